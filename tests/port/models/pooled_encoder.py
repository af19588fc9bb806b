"""A pooled image encoder (a test model of msport), written for PyTorch with the idioms the port's
evaluation models were finished by hand for: the base initialiser called by name, activation
classes handed on as default arguments, an SPPF-style pyramid that extends a list with a generator
reading it, a batch norm without affine parameters, an embedding with a padding row, reductions read through .values/.indices, F.normalize and log_softmax."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvAct(nn.Module):
    def __init__(self, c_in, c_out, activation=nn.LeakyReLU):
        nn.Module.__init__(self)
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.norm = nn.BatchNorm2d(c_out, affine=False)
        self.act = activation()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class Pyramid(nn.Module):
    def __init__(self, n=3, k=5):
        super().__init__()
        self.n = n
        self.pool = nn.MaxPool2d(kernel_size=k, stride=1, padding=k // 2)

    def forward(self, x):
        y = [x]
        y.extend(self.pool(y[-1]) for _ in range(self.n))
        return torch.cat(y, 1)


class Encoder(nn.Module):
    def __init__(self, c_in=3, c=4, out=6, activation=nn.GELU):
        super().__init__()
        self.stem = ConvAct(c_in, c)
        self.pyramid = Pyramid()
        self.emb = nn.Embedding(20, c, padding_idx=0)
        self.head = nn.Linear(4 * c * 3 + c, out)
        self.act = activation()

    def forward(self, x, tokens):
        flat = self.pyramid(self.stem(x)).flatten(2)
        peak = flat.max(dim=2).values
        low = flat.min(dim=2).values
        top = flat.topk(2, dim=2).values.sum(2)
        z = self.act(self.head(torch.cat([peak, low, top, self.emb(tokens).mean(1)], 1)))
        where = flat.max(dim=2).indices
        return F.normalize(z, p=2, dim=1), torch.log_softmax(z, dim=-1), where
