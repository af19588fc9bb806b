"""Conditions mixing tensor data with Python values, managers chosen into a local, and tensors
cached on the first call, in compiled code and in look-alikes. Reduced from patterns of gpytorch's
VariationalStrategy, kornia's augmentation gate, lightweight_gan's AugWrapper, cogdl's SIGN, PPNP
and CorrectSmooth, and mmdet's and torchani's guards that test the Python value first."""

from contextlib import nullcontext

import torch
import torch.nn as nn


class Strategy(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.proj = nn.Linear(size, size)
        self.register_buffer("updated", torch.tensor(False))

    def forward(self, x, prior=False):
        if not self.updated.any() and not prior:  # MS412
            x = self.proj(x)
        if prior and self.updated.any():  # MS413
            x = x * 2
        return x


class Gate(nn.Module):
    def forward(self, x, transformed, to_apply):
        apply_all = to_apply.all()
        if apply_all or transformed.shape[1:] != x.shape[1:]:  # MS412
            return transformed
        if transformed.shape[1:] != x.shape[1:] or apply_all:  # MS413
            return x
        return transformed * 0.5 if to_apply.any() and self.training else x  # MS412


class Solver(nn.Module):
    def forward(self, x, max_iter=5):
        steps = 0
        while x.abs().max() > 1e-3 and steps < max_iter:  # MS412
            x = x / 2
            steps += 1
        while x.abs().max() > 1e-6 and x.abs().sum() > 1e-5:  # MS413
            x = x / 2
        return x


class AugWrapper(nn.Module):
    def __init__(self, discriminator):
        super().__init__()
        self.discriminator = discriminator

    def forward(self, images, detach=False):
        context = torch.no_grad if detach else nullcontext
        with context():  # MS404
            images = images.flip(3)
        manager = nullcontext  # contextlib's managers are no jit_class either
        with manager():  # MS404
            images = images * 1.0
        return self.discriminator(images)


class CachedPropagation(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.mlp = nn.Linear(size, size)
        self.cache_x = None
        self.vals = None
        self.index = 0

    def forward(self, x):
        if self.cache_x is not None:
            x = self.cache_x
        else:
            x = torch.cat([x, x.mean(0, keepdim=True).expand_as(x)], dim=1)
            self.cache_x = x  # ok: filled on the first call, measured to agree
        if self.vals is None:
            self.vals = torch.eye(x.shape[0]) * 0.5  # ok
        self.index = (self.index + 1) % 8  # ok: a Python counter follows the calls
        return self.mlp(self.vals @ x)
