"""Labeled corpus: edge cases for provenance and graph context."""

import mindspore as ms
import mindspore.mint as M
import torch
import torch.nn as nn
from mindspore import nn as msnn
from mindspore import ops


class Scorer(nn.Module):
    def __init__(self, ratio=0.25):
        super().__init__()
        self.ratio = ratio
        self.register_buffer("anchors", torch.zeros(10, 4))

    def forward(self, x, scores, k=5, dim=1):
        top = torch.topk(scores, k)  # ok
        red = x.sum(dim)  # ok
        n_keep = int(x.shape[0] * self.ratio)
        kept = x[:n_keep]  # ok
        idx = torch.where(scores > 0.5)[0]  # MS201
        picked = x[idx]  # MS205
        rows = []
        for i in range(x.shape[0]):
            rows.append(x[i][scores[i] > 0])  # MS202
        with torch.no_grad():
            dropped = x[scores < 0.1]  # MS202
        spelled = torch.Tensor.nonzero(scores)  # MS201
        tuple_idx = torch.nonzero(scores, as_tuple=True)  # MS201
        flat = x.view(*x.shape[:2], -1)  # ok
        expanded = x.expand(x.size(0), -1)  # ok
        n_cls = int(scores.max()) + 1
        onehot = torch.zeros(x.shape[0], n_cls)  # MS210
        return top, red, kept, picked, rows, dropped, spelled, tuple_idx, flat, expanded, onehot


class MsHead(msnn.Cell):
    def __init__(self, k=8):
        super().__init__()
        self.k = k
        self.shape = ops.Shape()
        self.reduce_mean = ops.ReduceMean(keep_dims=True)

    def construct(self, x, labels, shape):
        b = self.shape(x)[0]
        y = x.reshape(b, -1)  # ok
        bs, c = shape
        z = ops.zeros((bs, c), ms.float32)  # ok
        mean = self.reduce_mean(x, (2, 3))  # ok
        positive = M.masked_select(x, labels > 0)  # MS201
        counts = M.bincount(labels.reshape(-1))  # MS201
        vals, ind = M.topk(x.reshape(-1), self.k)  # ok
        num_pos = (labels > 0).sum()
        vals2, ind2 = M.topk(x.reshape(-1), num_pos)  # MS204
        return y, z, mean, positive, counts, vals, ind, vals2, ind2


def main():
    model = Scorer()
    out = model(torch.rand(4, 3), torch.rand(4))
    keep = out[0].values
    return keep[keep > 0.5]  # MS202


if __name__ == "__main__":
    main()
