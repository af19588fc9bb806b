"""A MindSpore script that stays in PyNative mode: only what jit compiles is judged."""

import numpy as np
import mindspore as ms
from mindspore import Tensor, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)


class Probe(nn.Cell):
    def __init__(self):
        super().__init__()
        self.seen = []

    def construct(self, x):
        try:  # ok
            y = x * 2
        except ValueError:
            y = x
        self.seen.append(y)  # ok
        values = np.sort(x.asnumpy())  # ok
        return y + Tensor(values)


@ms.jit
def compiled_part(x):
    try:  # MS401
        return x * 2
    except ValueError:
        return x


def train(net, data):
    for x in data:
        out = net(x)
        del out  # ok
    net.register_forward_hook(lambda cell, inputs, output: None)  # ok
    return compiled_part(ops.ones((2,), ms.float32))
