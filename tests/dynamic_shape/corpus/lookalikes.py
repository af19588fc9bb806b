"""Labeled corpus: look-alike names, NumPy, data-pipeline code. Nothing here is a finding
unless labeled."""

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


def nonzero(values):
    return [v for v in values if v]


def unique(values):
    return sorted(set(values))


class Heap:
    def topk(self, k):
        return sorted(self.items)[:k]

    def masked_select(self, mask):
        return [i for i, m in zip(self.items, mask) if m]


class LookAlike(nn.Module):
    def __init__(self):
        super().__init__()
        self.heap = Heap()

    def unique(self, x):
        return x

    def forward(self, x, labels):
        a = nonzero([1, 0, 2])  # ok
        b = unique([3, 1, 3])  # ok
        c = self.unique(x)  # ok
        d = self.heap.topk(int(labels.sum()))  # ok
        e = self.heap.masked_select([True, False])  # ok
        arr = x.detach().cpu().numpy()
        f = arr[arr > 0]  # ok
        g = np.nonzero(arr)  # ok
        h = np.unique(arr)  # ok
        i = np.where(arr > 0)  # ok
        n = int(labels.sum())
        j = arr[:n]  # ok
        return a, b, c, d, e, f, g, h, i, j


class Boxes(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        boxes = torch.as_tensor(self.items[index])
        keep = boxes[:, 2] > 0
        boxes = boxes[keep]  # ok
        count = int(keep.sum())
        return boxes[:count], torch.nonzero(keep)  # ok


def pad_collate(batch):
    lengths = torch.tensor([len(b) for b in batch])
    longest = int(lengths.max())
    out = torch.zeros(len(batch), longest)  # ok
    return out[:, : lengths.max()]  # ok


def filter_boxes(sample):
    scores = torch.as_tensor(sample["scores"])
    return scores[scores > 0.5]  # ok


class RandomDrop:
    def __call__(self, image):
        mask = torch.rand(image.shape[0]) > 0.1
        return image[mask]  # ok


loader = DataLoader(Boxes([]), batch_size=2, collate_fn=pad_collate, transform=filter_boxes)
