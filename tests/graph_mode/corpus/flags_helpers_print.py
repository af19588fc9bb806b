"""First-call flags and counter guards set in their own branch, attributes a helper creates for
forward, host values through locals and methods, print in forward, and the same constructs
where nothing is compiled (a training loop, an evaluator, an export helper). Reduced from
patterns of speechbrain's feature layers and losses, kornia's LoFTR fine matching, mmdet's
assigners and losses, ultralytics' assigner and yolov5's training script."""

import math

import numpy as np
import torch
import torch.nn as nn


class ContextWindow(nn.Module):
    def __init__(self, left=5):
        super().__init__()
        self.first_call = True
        self.left = left
        self.kernel = torch.eye(left)

    def forward(self, x):
        if self.first_call is True:
            self.first_call = False  # MS422
            self.left = self.left + 1  # ok: reported once, at the flag
        return x * self.left


class DistillLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.checked = False
        self.calls = 0

    def forward(self, scores, labels):
        if not self.checked:
            self.checked = True  # MS422
        self.calls += 1  # ok: a counter read again next call, no branch on it
        scale = 2.0 if self.checked else 1.0
        return (scores - labels).pow(2).mean() * scale


class Scheduled(nn.Module):
    def __init__(self, warmup=100):
        super().__init__()
        self.warmup = warmup
        self.steps = 0

    def forward(self, x):
        if self.steps < self.warmup:
            self.steps += 1  # MS422
            return x * (self.steps / self.warmup)
        return x


class FineMatching(nn.Module):
    def __init__(self):
        super().__init__()

    def prepare(self, feat):
        self.window = feat.shape[1]  # MS419
        self.stride = int(math.sqrt(feat.shape[1]))  # ok: read by no compiled method

    def forward(self, feat):
        self.prepare(feat)
        setattr(self, "scale", 2)  # MS419
        setattr(self, "debug_name", "fine")  # ok: never read back
        return feat * self.window * self.scale / math.sqrt(feat.size(-1))  # ok: math on a size


class Assigner(nn.Module):
    def positives(self, overlaps):
        return (overlaps > 0.5).sum().item()

    def forward(self, overlaps, labels):
        num_pos = self.positives(overlaps)  # MS421
        if num_pos == 0:  # MS413
            return labels * 0
        peak = overlaps.max().item()  # MS421
        bound = peak * 2
        if bound > 1:  # MS413
            labels = labels + 1
        avg = overlaps.sum().item()  # ok: only divides
        print("assigned", num_pos)  # MS423
        print(f"assigned {labels.sum()}")  # ok: one f-string prints through Python
        count = np.prod(overlaps.shape)  # ok: NumPy on the shape
        slots = overlaps.new_zeros(int(labels.max()), 4)  # MS421
        rows = overlaps.new_zeros(int(overlaps.shape[0]), 4)  # ok: a size from the shape
        labels = labels[: overlaps.argmax().item() + 1] + slots.sum() + rows.sum()  # MS421
        return labels / (avg + 1.0) / float(count)


def train(model, loader, optimizer):
    first = True
    for batch in loader:
        loss = model(batch)
        if first:
            first = False  # ok: a training loop
        print("loss", loss.item())  # ok: not compiled
        weights = np.prod(batch.cpu().numpy().shape)  # ok
        loss.backward()
        optimizer.step()
    return weights


class Evaluator:
    def __init__(self):
        self.seen = False

    def __call__(self, model, data):
        scores = model(data)
        if not self.seen:
            self.seen = True  # ok: an evaluator, not a model
        print("score", scores.mean().item())  # ok
        return scores
