"""Labeled corpus: ordinary model code (attention, losses, heads) that must stay quiet, with
the dynamic-shape idioms that sneak into it."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def l2norm(x):
    return x / x.norm(dim=-1, keepdim=True)  # ok


def valid_rows(x):
    return x[x.sum(1) > 0]  # MS202


class Attention(nn.Module):
    def __init__(self, dim, heads=8, max_len=512, ratio=0.5, k=16):
        super().__init__()
        self.heads = heads
        self.max_len = max_len
        self.ratio = ratio
        self.k = k
        self.qkv = nn.Linear(dim, dim * 3)
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(4)])

    def forward(self, x, mask=None):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)  # ok
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q @ k.transpose(-2, -1)) * (C ** -0.5)  # ok
        if mask is not None:  # ok
            attn = attn.masked_fill(mask == 0, float("-inf"))  # ok
        attn = attn.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(B, N, C)  # ok
        out = out[:, : self.max_len]  # ok
        keep = int(self.ratio * N)
        pruned = out[:, :keep]  # ok
        top = torch.topk(attn.mean(1), min(self.k, N), dim=-1)  # ok
        pos = torch.arange(N, device=x.device)  # ok
        for layer in self.layers:
            out = layer(out)
        n_layers = len(self.layers)
        first = out[:n_layers]  # ok
        return l2norm(out), pruned, top, pos, first


class Criterion(nn.Module):
    def __init__(self, ignore_index=-100, num_samples=4):
        super().__init__()
        self.ignore_index = ignore_index
        self.num_samples = num_samples

    def forward(self, logits, labels, probs):
        loss = F.cross_entropy(logits, labels, reduction="none")  # ok
        valid = labels != self.ignore_index
        mean_ok = (loss * valid).sum() / valid.sum().clamp(min=1)  # ok
        mean_dyn = loss[valid].mean()  # MS202
        values, idx = logits.max(1)
        picked = logits[idx]  # ok
        gathered = torch.gather(logits, 1, labels.unsqueeze(-1))  # ok
        drawn = torch.multinomial(probs, num_samples=self.num_samples)  # ok
        perm = torch.randperm(logits.size(0))  # ok
        summed = logits.sum(dim=1)  # ok
        nhwc = logits.permute(1, 0)  # ok
        rows = valid_rows(logits)
        h, w = probs.shape[-2:]
        resized = F.interpolate(probs, size=(h, w))  # ok
        hard = int(valid.sum() * 0.25)
        hardest = torch.topk(loss, hard)  # MS204
        return mean_ok, mean_dyn, values, picked, gathered, drawn, perm, summed, nhwc, rows, resized, hardest


class Head(nn.Module):
    def forward(self, feats, boxes):
        if self.training:  # ok
            feats = feats * 2
        if feats.dim() == 4:  # ok
            feats = feats.flatten(2)
        scores = feats.sigmoid().amax(-1)
        order = scores.argsort(descending=True)
        ranked = boxes[order]  # ok
        good = scores > 0.05
        n_good = good.sum()
        best = boxes[:n_good]  # MS203
        if n_good > 10:  # MS211
            boxes = boxes[:10]
        return ranked, best, boxes
