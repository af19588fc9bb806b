import torch.nn as nn
import torch.nn.functional as F


class BaseCritic(nn.Module):
    """A critic whose forward is inherited: the path reaches it through the subclass."""

    def forward(self, x):
        h = x * 2.0
        return F.elu(h)  # MS501
