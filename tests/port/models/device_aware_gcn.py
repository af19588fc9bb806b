"""A dense graph convolution written for PyTorch (reduced from the shapes of torch_geometric's
DenseGCNConv and timm's LayerNorm subclass): the adjacency is copied before it is normalised,
a branch reads the tensor's device type, a flag reads is_cuda, the normalisation layer is a
subclass of nn.LayerNorm handing PyTorch's keywords to its base, and the activation reaches a
container through a conditional expression held by an attribute."""

import torch
import torch.nn as nn


class LayerNorm(nn.LayerNorm):
    def __init__(self, num_channels, eps=1e-6, affine=True):
        super().__init__(num_channels, eps=eps, elementwise_affine=affine)


class DenseGraphConv(nn.Module):
    def __init__(self, channels=8, out_channels=6, act=True):
        super().__init__()
        self.lin = nn.Linear(channels, out_channels)
        self.norm = LayerNorm(out_channels)
        self.act = nn.ReLU() if act else nn.Identity()
        self.head = nn.Sequential(nn.Linear(out_channels, out_channels), self.act)

    def forward(self, x, adj):
        adj = adj.clone()
        adj = adj + torch.eye(adj.shape[-1])
        deg = adj.sum(-1, keepdim=True)
        if x.device.type == "cpu":
            deg = deg + 1.0
        out = torch.matmul(adj, self.lin(x)) / deg
        kept = torch.clone(out)
        if not x.is_cuda:
            out = out * 2.0
        return self.head(self.norm(out)), kept
