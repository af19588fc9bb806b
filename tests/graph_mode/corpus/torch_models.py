"""PyTorch models being ported: what fails or changes once forward becomes a compiled construct.
Patterns reduced from timm, yolov5, ultralytics, speechbrain, mmdet and torchvision."""

import math
import random
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from scipy.optimize import linear_sum_assignment


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.1):
        super().__init__()
        self.drop_prob = drop_prob
        self.seed = random.random()  # ok

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:  # ok
            return x
        if random.random() < self.drop_prob:  # MS411
            return x * 0
        keep = torch.rand(x.shape[0], 1, 1, 1) > self.drop_prob  # ok
        return x * keep / (1 - self.drop_prob)


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        self.cv1 = nn.Conv2d(c1, c2, 1)
        self.m = nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        x = self.cv1(x)
        with warnings.catch_warnings():  # MS404
            warnings.simplefilter("ignore")
            y1 = self.m(x)
        return torch.cat((x, y1), 1)


class Teacher(nn.Module):
    def __init__(self, student, teacher):
        super().__init__()
        self.student = student
        self.teacher = teacher
        self.feats = []
        self.seen = {}

    def forward(self, x):
        with torch.no_grad():  # MS404
            target = self.teacher(x)
        out = self.student(x)
        self.feats.append(out)  # MS408
        self.seen["last"] = out  # MS408
        local = []
        local.append(out)  # ok
        return F.mse_loss(out, target)


class Encoder(nn.Module):
    def __init__(self, dims):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(d, d) for d in dims])
        self.dims = list(dims)

    def forward(self, x):
        for d in reversed(self.dims):  # ok
            x = x + d
        for block in reversed(self.blocks):  # MS403
            x = block(x)
        for block in self.blocks[::-1]:  # ok
            x = block(x)
        dtype = next(self.parameters()).dtype  # MS403, MS407
        return x.to(dtype)


class Matcher(nn.Module):
    def __init__(self, cost_class=1.0):
        super().__init__()
        self.cost_class = cost_class
        self.scale = float(np.sqrt(cost_class))  # ok

    def forward(self, logits, targets):
        cost = -logits.softmax(-1)[:, targets] * self.cost_class * self.scale
        rows, cols = linear_sum_assignment(cost.detach().cpu().numpy())  # MS410
        cols = torch.as_tensor(cols)
        return rows, cols


class Criterion(nn.Module):
    def forward(self, pred, target, mask):
        loss = 0
        num_pos = mask.sum()
        if num_pos > 0:  # MS412
            loss = loss + F.l1_loss(pred[mask], target[mask])
        total = torch.zeros((), device=pred.device)
        if mask.any():  # MS413
            total = total + pred.mean()
        if pred.shape[0] > 1:  # ok
            total = total * 2
        return loss + total


class Head(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 1)
        self.export_formats = ("onnx", "coreml")

    def forward(self, x, fmt="torch"):
        if fmt in {"onnx", "coreml"}:  # MS402
            return x
        if fmt in self.export_formats:  # ok
            return x
        if x is None:  # ok
            return x
        y = self.conv(x)
        try:  # MS401
            y = y.contiguous()
        except RuntimeError:
            pass
        return y


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, dim * 3)

    def forward(self, query, key, value):
        if query is key:  # MS416
            qkv = self.qkv(query)
        else:
            qkv = self.qkv(key)
        flat = qkv.view(-1)
        flat[0] = 0  # MS415
        qkv = qkv.view(-1)
        qkv[0] = 0  # ok
        return qkv


class Projection(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.layers = [1, 2, 3]

    def forward(self, x):
        import torch.utils.checkpoint as cp  # MS401
        pairs = [i * j for i in self.layers for j in self.layers]  # MS402
        if (n := len(pairs)) > 3:  # MS402
            x = x * n
        x = cp.checkpoint(self.fc, x)
        del pairs  # MS401
        return x * math.sqrt(x.shape[-1])

    def init_weights(self):
        for m in self.modules():  # ok
            nn.init.zeros_(m.weight)
        with torch.no_grad():  # ok
            self.fc.weight.zero_()


class GHMC(nn.Module):
    def __init__(self, bins=10, momentum=0.0):
        super().__init__()
        self.bins = bins
        self.momentum = momentum
        if momentum > 0:
            self.register_buffer("acc_sum", torch.zeros(bins))
        self.register_buffer("edges", torch.arange(bins + 1).float() / bins)

    def forward(self, pred, target):
        g = (pred.sigmoid() - target).abs()
        mmt = self.momentum
        n = 0
        for i in range(self.bins):
            inds = (g >= self.edges[i]) & (g < self.edges[i + 1])
            num_in_bin = inds.sum().item()  # MS421
            if num_in_bin > 0:  # MS413
                if mmt > 0:  # ok
                    self.acc_sum[i] = mmt * self.acc_sum[i] + (1 - mmt) * num_in_bin  # MS417
                n += 1
        return F.binary_cross_entropy_with_logits(pred, target) / max(n, 1)


def attach_feature_hooks(model, store):
    model.layer4.register_forward_hook(lambda m, i, o: store.append(o))  # MS414


def build_model(cfg):
    try:  # ok
        import timm
    except ImportError:
        timm = None
    return timm


class Res2NetBlock(nn.Module):
    """speechbrain's ECAPA Res2Net block: each split adds the one before it."""

    def __init__(self, channels=8, scale=4):
        super().__init__()
        self.scale = scale
        self.blocks = nn.ModuleList([nn.Conv1d(channels // scale, channels // scale, 3, padding=1) for _ in range(scale - 1)])

    def forward(self, x):
        y = []
        for i, x_i in enumerate(torch.chunk(x, self.scale, dim=1)):
            if i == 0:
                y_i = x_i
            elif i == 1:
                y_i = self.blocks[i - 1](x_i)
            else:
                y_i = self.blocks[i - 1](x_i + y_i)  # MS425
            y.append(y_i)
        total = None
        for part in y:
            if total is not None:  # ok: bound before the loop
                part = part + total  # ok
            total = part
        return torch.cat(y, dim=1) + total
