# A small transformer discriminator with R1, for Ascend (the default target): the mint operators
# msport maps to there lack second-order bprops for conv and GELU, and transposes crash when the
# nested gradient is compiled.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class PatchCritic(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 4, 4)  # MS501
        self.proj = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, 1)

    def forward(self, img):
        tokens = self.patch(img).flatten(2)  # ok
        tokens = torch.transpose(tokens, 1, 2)  # MS502
        tokens = F.gelu(self.proj(tokens))  # MS501
        return self.head(tokens).squeeze(-1)  # ok


def r1(critic, real):
    real.requires_grad_(True)
    out = critic(real)
    (g,) = autograd.grad(out.sum(), real, create_graph=True)  # MS504
    return 0.5 * g.pow(2).flatten(1).sum(1).mean()  # ok


def step(real):
    critic = PatchCritic()
    return r1(critic, real)
