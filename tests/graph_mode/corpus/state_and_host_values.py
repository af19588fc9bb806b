"""State kept on self and Python values taken out of tensor data, in compiled code and in its
look-alikes (__init__, a Dataset, a training loop, a metric). Reduced from patterns of d2l's
attention layers, basicsr's BasicVSR++ (a flag set in forward and read by a helper), mmdet's GHM
and EQL losses, torch_geometric's aggregations and sentence-transformers' losses."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset


class DotAttention(nn.Module):
    def __init__(self, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.attention_weights = None  # ok

    def forward(self, queries, keys, values):
        scores = torch.bmm(queries, keys.transpose(1, 2))
        self.attention_weights = F.softmax(scores, dim=-1)  # MS418
        return torch.bmm(self.dropout(self.attention_weights), values)


class RecurrentCell(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.proj = nn.Linear(size, size)
        self.register_buffer("state", torch.zeros(size))
        self.steps = 0

    def forward(self, x):
        out = self.proj(x) + self.state
        self.state = out.detach().mean(0)  # ok: a buffer, a Parameter after the port
        self.steps = self.steps + 1  # ok: a Python counter follows the calls
        self.last_input = x  # MS418
        return out


class VideoRestorer(nn.Module):
    def __init__(self, cache_length=100):
        super().__init__()
        self.cache_length = cache_length
        self.conv = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, lqs):
        t = lqs.size(1)
        self.cpu_cache = True if t > self.cache_length else False  # MS419
        return self.propagate(lqs)

    def propagate(self, lqs):
        if self.cpu_cache:
            lqs = lqs.cpu()
        return self.conv(lqs[:, 0])


class FlaggedRestorer(nn.Module):
    def __init__(self, cache_length=100):
        super().__init__()
        self.cache_length = cache_length
        self.cpu_cache = False
        self.conv = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, lqs):
        t = lqs.size(1)
        # propagate reads __init__'s False when compiled
        self.cpu_cache = True if t > self.cache_length else False  # MS419
        return self.propagate(lqs)

    def propagate(self, lqs):
        if self.cpu_cache:
            lqs = lqs.cpu()
        return self.conv(lqs[:, 0])


class LocalFlagRestorer(nn.Module):
    def __init__(self, cache_length=100):
        super().__init__()
        self.cache_length = cache_length
        self.conv = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, lqs):
        self.cpu_cache = lqs.size(1) > self.cache_length  # ok: read only here, after it is set
        if self.cpu_cache:
            lqs = lqs.cpu()
        return self.propagate(lqs, self.cpu_cache)

    def propagate(self, lqs, cpu_cache):
        return self.conv(lqs[:, 0])


class GradientHarmonizedLoss(nn.Module):
    def __init__(self, bins=10):
        super().__init__()
        self.bins = bins
        self.edges = [float(i) / bins for i in range(bins + 1)]
        first = torch.zeros(1).item()  # ok: __init__ runs in Python
        if first > 0:
            self.bins = bins + 1

    def forward(self, pred, target):
        g = torch.abs(pred.sigmoid().detach() - target)
        weights = torch.zeros_like(pred)
        tot = max(target.numel(), 1.0)
        for i in range(self.bins):
            inds = (g >= self.edges[i]) & (g < self.edges[i + 1])
            num_in_bin = inds.sum().item()  # MS421
            if num_in_bin > 0:  # MS413
                weights[inds] = tot / num_in_bin
        norm = weights.sum().item()  # ok: only a divisor
        return F.binary_cross_entropy_with_logits(pred, target, weights / max(norm, 1.0))


class MeanAggregation(nn.Module):
    def forward(self, x, index, dim_size=None):
        if dim_size is None:
            dim_size = int(index.max().item() + 1)  # MS421
        out = torch.zeros(dim_size, x.size(-1))
        return out.index_add_(0, index, x)


class TokenLoss(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, features, labels):
        input_ids = features["input_ids"]
        flat_ids = input_ids[0].tolist()  # MS421
        lengths = [len(flat_ids[:n]) for n in range(3)]
        return self.model(features)["embedding"].sum() * len(lengths)


class PairsDataset(Dataset):
    def __init__(self, pairs):
        self.pairs = pairs

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, i):
        count = self.pairs[i].sum().item()  # ok: a dataset runs in Python
        if count > 0:
            self.last = self.pairs[i] * 2  # ok
        return self.pairs[i]


def loss_is_large(loss, limit):
    value = loss.item()  # ok: only the training loop calls it
    if value > limit:
        return True
    return False


def train_epoch(model, loader, optimizer):
    for x, y in loader:
        loss = F.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        value = loss.item()  # ok: the training loop is Python
        if value > 100 or loss_is_large(loss, 1e3):
            break


class MeanShiftNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.mean = torch.zeros(1, 3, 1, 1)
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
        self.fitted = False

    def forward(self, x):
        self.mean = self.mean.type_as(x)  # ok: the same value converted on every call
        if not self.fitted:
            self.fit(x)
        return self.conv(x - self.mean)

    def fit(self, x):
        self.fitted = True  # ok: read by the next call's forward, not handed to a method it calls
