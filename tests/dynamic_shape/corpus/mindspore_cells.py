"""Labeled corpus: MindSpore Cells and jit functions, in every spelling of the APIs."""

import mindspore as ms
import mindspore.ops as P
from mindspore import Tensor, jit, mint, nn, ops
from mindspore.ops import operations as OPS


class Picker(nn.Cell):
    def __init__(self, k=8):
        super().__init__()
        self.k = k
        self.masked_select = ops.MaskedSelect()
        self.unique = P.Unique()
        self.nonzero = OPS.NonZero()
        self.topk = ops.TopK(sorted=True)
        self.reduce_sum = ops.ReduceSum(keep_dims=False)
        self.transpose = ops.Transpose()
        self.segment_sum = ops.UnsortedSegmentSum()

    def construct(self, x, mask, ids):
        a = self.masked_select(x, mask)  # MS201
        b, _ = self.unique(ids)  # MS201
        c = self.nonzero(mask)  # MS201
        d = ops.MaskedSelect()(x, mask)  # MS201
        e = ops.masked_select(x, mask)  # MS201
        f = mint.masked_select(x, mask)  # MS201
        g = ms.ops.unique(ids)  # MS201
        h = mint.nonzero(mask)  # MS201
        i = x.masked_select(mask)  # MS201
        j = ops.argwhere(mask)  # MS201
        k_ok = ops.where(mask, x, 0.0)  # ok
        single = mint.where(mask)  # MS201
        count = mask.sum()
        vals, idx = self.topk(x, count)  # MS204
        vals2, idx2 = self.topk(x, self.k)  # ok
        vals3, _ = ops.topk(x, int(count))  # MS204
        seg = self.segment_sum(x, ids, ids.max() + 1)  # MS206
        seg2 = ops.unsorted_segment_sum(x, ids, int(ids.max()) + 1)  # MS206
        seg_ok = ops.unsorted_segment_sum(x, ids, 10)  # ok
        axis = int(count) % 2
        red = self.reduce_sum(x, axis)  # MS208
        red_ok = self.reduce_sum(x, 1)  # ok
        perm = (axis, 1 - axis)
        t = self.transpose(x, perm)  # MS209
        t_ok = self.transpose(x, (1, 0))  # ok
        m_ok = ops.masked_fill(x, mask, 0.0)  # ok
        s = x[mask]  # MS202
        w = x[: int(count)]  # MS203
        w_ok = x[: self.k]  # ok
        gathered = ops.gather(x, c.reshape(-1), 0)  # MS205
        return a, b, c, d, e, f, g, h, i, j, k_ok, single, vals, idx, vals2, idx2, vals3, seg, seg2, seg_ok, red, red_ok, t, t_ok, m_ok, s, w, w_ok, gathered


@jit
def select_positive(x, threshold):
    return x[x > threshold]  # MS202


@ms.jit(capture_mode="ast")
def fixed_top(x):
    values, _ = ops.topk(x, 3)  # ok
    return values


@jit
def shape_slice(x, n=4):
    return x[:n]  # ok
