"""Labeled corpus: a PyTorch detector being migrated. `# MS2xx` marks a line that must have
that finding; `# ok` a line that must have none (as must every unlabeled line)."""

import torch
import torch as T
import torch.nn as nn
import torch.nn.functional as F
from torch import masked_select as msel
from torch import nonzero, unique as uniq


class Head(nn.Module):
    def __init__(self, num_classes, keep=100):
        super().__init__()
        self.num_classes = num_classes
        self.keep = keep
        self.cls = nn.Linear(16, num_classes)

    def forward(self, x, mask, scores, labels):
        logits = self.cls(x)
        picked = torch.masked_select(logits, mask)  # MS201
        picked2 = msel(logits, mask)  # MS201
        idx = nonzero(mask)  # MS201
        idx2 = mask.nonzero()  # MS201
        where_idx = torch.where(mask)  # MS201
        rows = torch.argwhere(scores > 0.5)  # MS201
        classes = uniq(labels)  # MS201
        classes2 = labels.unique(sorted=True)  # MS201
        runs = T.unique_consecutive(labels)  # MS201
        counts = torch.bincount(labels)  # MS201
        positive = scores[scores > 0]  # MS202
        chosen = logits[mask]  # MS202
        valid = (scores > 0.3) & (labels >= 0)
        kept = logits[valid]  # MS202
        kept_cols = logits[:, labels > 2]  # MS202
        safe = torch.where(mask, logits, torch.zeros_like(logits))  # ok
        filled = logits.masked_fill(~mask, 0.0)  # ok
        logits[mask] = 0.0  # ok
        logits[scores > 0.9] += 1.0  # MS202
        top = torch.topk(scores, self.keep)  # ok
        top2 = scores.topk(10, dim=0)  # ok
        half = x[: x.shape[0] // 2]  # ok
        first = x[: len(x) - 1]  # ok
        narrow_ok = x.narrow(0, 0, x.size(0) // 2)  # ok
        flat = logits.view(logits.shape[0], -1)  # ok
        total = logits.sum(dim=1)  # ok
        static_nz = torch.nonzero_static(mask, size=8)  # ok
        return picked, picked2, idx, idx2, where_idx, rows, classes, classes2, runs, counts, positive, chosen, kept, kept_cols, safe, filled, top, top2, half, first, narrow_ok, flat, total, static_nz


class Sampler(nn.Module):
    def forward(self, probs, weights):
        n = int((weights > 0).sum())
        drawn = torch.multinomial(probs, n)  # MS207
        drawn_ok = torch.multinomial(probs, 4)  # ok
        perm = torch.randperm(n)  # MS207
        perm_ok = torch.randperm(probs.shape[0])  # ok
        window = probs.narrow(0, 0, n)  # MS203
        head = probs[:n]  # MS203
        tail = probs[n:]  # MS203
        top = probs.topk(n)  # MS204
        top_kw = torch.topk(probs, k=weights.sum().long())  # MS204
        axis = int(weights.argmax())
        reduced = probs.sum(axis)  # MS208
        reduced_ok = probs.sum(1)  # ok
        biggest = torch.max(probs, weights)  # ok
        order = weights.argsort().tolist()
        shuffled = probs.permute(*order)  # MS209
        swapped = torch.transpose(probs, 0, axis)  # MS209
        swapped_ok = probs.transpose(0, 1)  # ok
        buf = torch.zeros(n, 4)  # MS210
        buf_ok = torch.zeros(probs.shape[0], 4)  # ok
        ar = torch.arange(n)  # MS210
        ar_ok = torch.arange(probs.size(0))  # ok
        grown = probs.view(n, -1)  # MS210
        rep = torch.repeat_interleave(probs, weights.long(), dim=0)  # MS210
        rep_ok = torch.repeat_interleave(probs, 2, dim=0)  # ok
        padded = F.pad(probs, (0, n))  # MS210
        empty = probs.new_zeros((n, 4))  # MS210
        return drawn, drawn_ok, perm, perm_ok, window, head, tail, top, top_kw, reduced, reduced_ok, biggest, shuffled, swapped, swapped_ok, buf, buf_ok, ar, ar_ok, grown, rep, rep_ok, padded, empty


class Gatherer(nn.Module):
    def forward(self, x, mask):
        keep = torch.nonzero(mask).squeeze(1)  # MS201
        rows = torch.index_select(x, 0, keep)  # MS205
        rows2 = x[keep]  # MS205
        taken = torch.take(x, keep)  # MS205
        fixed = torch.arange(4)
        rows_ok = torch.index_select(x, 0, fixed)  # ok
        rows_ok2 = x[fixed]  # ok
        return rows, rows2, taken, rows_ok, rows_ok2
