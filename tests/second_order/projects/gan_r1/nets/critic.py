import torch.nn as nn
import torch.nn.functional as F

from .base import BaseCritic


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)  # ok

    def forward(self, x):
        h = self.fc(x)  # ok
        return F.log_softmax(h, dim=-1)  # MS501


class Critic(BaseCritic):
    def __init__(self):
        super().__init__()
        self.act = nn.ELU()  # ok


class Generator(nn.Module):
    """Differentiated once only (a saliency map): nothing of it is on a second-order path."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)  # ok

    def forward(self, x):
        return F.elu(self.fc(x))  # ok
