"""MindSpore code bound for graphs: Cells whose construct is compiled, and jit functions.
Written fresh from the failure patterns ported models meet, with look-alikes that compile."""

import time

import numpy as np
import mindspore as ms
from mindspore import Parameter, Tensor, mint, nn, ops


class Norm(nn.Cell):
    def __init__(self, dim):
        super().__init__()
        self.gamma = Parameter(Tensor(np.ones(dim, np.float32)))
        self.running = Parameter(Tensor(np.zeros(dim, np.float32)), requires_grad=False)
        self.history = []

    @classmethod
    def from_config(cls, cfg):
        return cls(cfg["dim"])

    @classmethod
    def eps(cls, t):
        return t * 1e-5

    @staticmethod
    def clamp(t):
        return ops.clamp(t, -1.0, 1.0)

    def construct(self, x):
        mean = x.mean(0)
        self.running.set_data(mean)  # MS406
        ops.assign(self.running, mean)  # ok
        x = x * self.gamma + self.eps(x)  # MS405
        x = self.clamp(x)  # ok
        self.history.append(mean)  # MS408
        return x


class Sampler(nn.Cell):
    def __init__(self):
        super().__init__()
        self.start = time.time()  # ok

    def construct(self, x):
        t = time.perf_counter()  # MS411
        noise = ops.standard_normal(x.shape)  # ok
        return x + noise * t


class Blocks(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4) for _ in range(n)])
        self.stages = nn.SequentialCell([nn.ReLU(), nn.Tanh()])

    def construct(self, x):
        for i in reversed(range(len(self.layers))):  # MS403
            x = self.layers[i](x)
        for cell in reversed(self.stages):  # ok
            x = cell(x)
        for cell in self.layers:  # ok
            x = cell(x)
        params = self.trainable_params()  # MS407
        return x * len(params)


class Decoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.proj = nn.Dense(4, 4)

    def construct(self, x, steps=4):
        for _ in range(steps):  # MS401
            x = self.proj(x)
        else:
            x = x * 2
        i = 0
        while i < steps:  # ok
            i += 1
        v = x.mean().item()
        scale = round(v)  # MS403
        width = round(x.shape[-1] / 2)  # ok
        flat = mint.reshape(x, (-1,))
        flat[0] = 0.0  # MS415
        out = mint.reshape(x, (-1,))
        out[0] = 0.0  # ok
        return out * scale * width


class Gate(nn.Cell):
    def construct(self, x):
        score = x.max()
        if score > 1:  # MS413
            x = x / score
        y = x * 2 if x.sum() > 0 else x  # MS413
        if x.ndim == 2:  # ok
            x = x + 1
        return x + y


class LayerDrop(nn.Cell):
    def __init__(self, n=3, p=0.1):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4) for _ in range(n)])
        self.p = p

    def construct(self, x):
        keep = ops.rand(len(self.layers))
        hidden = []
        for i, layer in enumerate(self.layers):
            if not self.training or keep[i] > self.p:  # MS412
                x = layer(x)
                hidden.append(x)
        every = []
        for layer in self.layers:
            x = layer(x)
            every.append(x)  # ok
        return x, hidden, every


class Branches(nn.Cell):
    def construct(self, x):
        if x.sum() > 3:  # MS412
            return x, x
        return x


class Pairs(nn.Cell):
    def construct(self, x):
        sizes = {"a": 1, "b": 2}
        sizes.pop("a")  # MS409
        order = [3, 1, 2]
        order.sort()  # MS409
        order.append(4)  # ok
        order = sorted(order)  # ok
        c = 1 + 2j  # MS402
        keep = {k for k in order}  # MS402
        return x * len(sizes) * order[0] * c.real * len(keep)


@ms.jit
def step(x, y):
    import math  # MS401
    match y.ndim:  # MS401
        case 1:
            y = y * 2
    idx = np.argsort(x.asnumpy())  # MS410
    z = x.asnumpy()  # MS410
    return x * math.pi + y + Tensor(idx) + Tensor(z)


@ms.jit
def clean_step(x, y):
    z = ops.sort(x)[1]  # ok
    return x + y + z


@ms.jit(jit_level="O2")  # MS420
def sink_step(x):
    return x * 2


config = ms.JitConfig(jit_level="O2")  # MS420
ms.set_context(jit_config={"jit_level": "O1"})  # ok
fast = ms.jit(sink_step, backend="GE")  # MS420
