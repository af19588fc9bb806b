import torch.nn as nn
import torch.nn.functional as F

from .registry import ARCH_REGISTRY


@ARCH_REGISTRY.register()
class Generator(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(width, width)  # ok

    def forward(self, z):
        return F.elu(self.fc(z))  # MS501
