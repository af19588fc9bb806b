"""Labeled corpus: branches and loops on data-derived conditions."""

import mindspore as ms
from mindspore import nn, ops


class Branchy(nn.Cell):
    def construct(self, x, y):
        cond = (x > 0.5).any()
        if cond:  # MS211
            out = ops.masked_select(x, x > 0.5)  # MS201
        else:
            out = ops.zeros_like(x)
        if x.sum() > 0:  # MS211
            z = x[:, :3]
        else:
            z = x
        if y.max() > 1:  # ok
            w = x * 2
        else:
            w = ops.zeros_like(x)
        if x.shape[0] > 4:  # ok
            v = x[:, :3]
        else:
            v = x
        if int(y.sum()) > 3:  # MS211
            x = x.sum(0)
        u = x if y.min() > 0 else ops.ones_like(x)  # ok
        t = x[:2] if y.mean() > 0 else x  # MS211
        return out, z, w, v, u, t


class Loopy(nn.Cell):
    def construct(self, x, n):
        steps = int(n.sum())
        acc = x
        while steps > 0:  # MS211
            acc = ops.cat((acc, x))
            steps = steps - 1
        y = x
        while y.sum() > 1:  # ok
            y = y * 0.5
        for _ in range(int(n.max())):  # MS211
            x = ops.concat((x, y))
        for _ in range(4):  # ok
            y = ops.concat((y, y))
        return acc, x, y


class Early(nn.Cell):
    def construct(self, x):
        if x.mean() > 0:  # MS211
            return x[:1]
        else:
            return x


def helper_branch(x, mask):
    if mask.any():  # ok
        return x
    return x
