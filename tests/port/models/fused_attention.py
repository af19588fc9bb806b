"""A pre-norm transformer block written for PyTorch (a test model of msport): one fused
input projection split with chunk(dim=...), attention by batched matrix products, layer norms
sized by a variable, an MLP with GELU, gates built by a generator."""
import torch
from torch import nn
from torch.nn import functional as F


class FusedAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.scale = (dim // heads) ** -0.5
        self.in_proj_weight = nn.Parameter(torch.randn((dim * 3, dim)) * self.scale)
        self.in_proj_bias = nn.Parameter(torch.zeros(dim * 3))
        self.out_proj = nn.Linear(dim, dim)

    def forward(self, x):
        n, length, dim = x.shape
        q, k, v = F.linear(x, self.in_proj_weight, self.in_proj_bias).chunk(3, dim=-1)
        q = q.reshape(n * self.heads, length, -1) * self.scale
        k = k.reshape(n * self.heads, length, -1)
        v = v.reshape(n * self.heads, length, -1)
        weights = torch.bmm(q, k.transpose(-1, -2)).softmax(dim=-1)
        return self.out_proj(torch.bmm(weights, v).reshape(n, length, dim))


class Block(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = FusedAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        self.gates = nn.ModuleList(nn.Linear(dim, dim) for _ in range(2))

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        for gate in self.gates:
            x = x * gate(x).sigmoid()
        return x
