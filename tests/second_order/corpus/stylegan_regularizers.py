# msport-test: backend=cpu
# R1 on real images and the generator's path-length regularisation, in the StyleGAN manner: the
# discriminator's output on real images, and the generated image times noise, are differentiated
# with create_graph=True.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Mapping(nn.Module):
    def __init__(self, dim=128, depth=4):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])

    def forward(self, z):
        w = z * torch.rsqrt(z.pow(2).mean(dim=1, keepdim=True) + 1e-8)  # ok
        for layer in self.layers:
            w = F.leaky_relu(layer(w), 0.2)  # ok
        return w


class Synthesis(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        self.fc = nn.Linear(dim, 3 * 16 * 16)

    def forward(self, w):
        x = self.fc(w).view(-1, 3, 16, 16)  # ok
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)  # MS501
        return torch.tanh(x)  # ok


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3, padding=1)
        self.fc = nn.Linear(32, 1)

    def forward(self, img):
        h = F.leaky_relu(self.conv(img), 0.2)  # ok
        h = F.max_pool2d(h, 2)  # MS501
        return self.fc(h.mean(dim=(2, 3)))  # MS503


def r1_penalty(disc, real):
    real.requires_grad_(True)
    pred = disc(real)
    grad_real, = autograd.grad(outputs=pred.sum(), inputs=real, create_graph=True)  # MS504
    return grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()  # ok


def path_length_penalty(mapping, synthesis, z, mean_length, decay=0.01):
    latents = mapping(z)
    images = synthesis(latents)
    noise = torch.randn_like(images) / math.sqrt(images.shape[2] * images.shape[3])
    grad, = autograd.grad(outputs=(images * noise).sum(), inputs=latents, create_graph=True)  # MS504
    lengths = torch.sqrt(grad.pow(2).sum(1))  # ok
    new_mean = mean_length + decay * (lengths.mean() - mean_length)
    return (lengths - new_mean).pow(2).mean(), new_mean.detach()


def step(z, real):
    mapping, synthesis, disc = Mapping(), Synthesis(), Discriminator()
    r1 = r1_penalty(disc, real)
    pl, _ = path_length_penalty(mapping, synthesis, z, 0.0)
    return r1 + pl
