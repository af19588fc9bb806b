"""Labeled corpus: provenance through assignments, arithmetic, unpacking and helpers."""

import math

import torch
import torch.nn as nn


def count_valid(mask):
    return int(mask.sum())


def half_of(x):
    return x.shape[0] // 2


def positives(scores):
    return torch.nonzero(scores > 0)  # MS201


def first_rows(x, k):
    return x[:k]  # MS203


def pair(x, mask):
    return x.shape[0], int(mask.sum().item())


class Chains(nn.Module):
    def __init__(self, size=16):
        super().__init__()
        self.size = size
        self.limit = size * 2

    def forward(self, x, mask, boxes):
        n = count_valid(mask)
        a = x[:n]  # MS203
        h = half_of(x)
        b = x[:h]  # ok
        c = x[: self.limit - 1]  # ok
        m = n * 2 + 1
        d = x[:m]  # MS203
        p = math.ceil(n / 4)
        e = x[:p]  # MS203
        rows, count = pair(x, mask)
        f = x[:rows]  # ok
        g = x[:count]  # MS203
        idx = positives(x)
        gathered = x[idx]  # MS205
        sel = torch.index_select(x, 0, idx.view(-1))  # MS205
        first = first_rows(x, n)
        k_item = mask.sum().item()
        top = torch.topk(x, k_item)  # MS204
        size_list = mask.sum(0).tolist()
        h0, w0 = size_list[0], size_list[1]
        crop = x[:h0, :w0]  # MS203
        shp = boxes.shape
        bh, bw = shp[0], shp[1]
        crop_ok = x[:bh, :bw]  # ok
        picked = torch.masked_select(x, mask)  # MS201
        num = picked.shape[0]
        again = x[:num]  # MS203
        static_num = x.numel()
        fine = x.view(-1)[:static_num]  # ok
        j = self.size
        fine2 = x[:j]  # ok
        return a, b, c, d, e, f, g, gathered, sel, first, top, crop, crop_ok, again, fine, fine2


class Reader(nn.Module):
    def forward(self, x, lengths):
        total = 0
        for length in lengths.tolist():
            total += length
        trimmed = x[:total]  # MS203
        steps = x.shape[1]
        for i in range(steps):
            x = x * 2
        ok = x[:steps]  # ok
        return trimmed, ok


def relative_positions(q_thw):
    q_t, q_h, q_w = q_thw
    return torch.arange(q_h)  # ok


class ShapedPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool3d(2)

    def forward(self, x, thw):
        x = self.pool(x)
        return x, (x.shape[2], x.shape[3], x.shape[4])


class PooledAttention(nn.Module):
    """A layer may return (tensor, shape): the unpacked shape is not data (torchvision's MViT)."""

    def __init__(self):
        super().__init__()
        self.pool_q = ShapedPool()

    def forward(self, q, thw):
        q, thw = self.pool_q(q, thw)
        rel = relative_positions(thw)
        h = thw[1]
        crop = q[:h]  # ok
        return rel, crop
