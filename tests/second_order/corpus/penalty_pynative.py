# msport-test: backend=cpu mode=pynative
# A gradient penalty ported to run in PyNative: reductions followed by a non-linearity on the
# path give zeros for the second derivative there, and some operators fail only there.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Scorer(nn.Module):
    def __init__(self, width=16, classes=4):
        super().__init__()
        self.embed = nn.Linear(3, width)
        self.out = nn.Linear(width, classes)

    def forward(self, x, labels):
        h = torch.tanh(self.embed(x))  # ok
        pooled = h.mean(dim=1)  # MS503
        logits = self.out(torch.relu(pooled))  # ok
        probs = F.softmax(logits, dim=-1)  # MS502
        picked = torch.gather(probs, 1, labels[:, None])  # MS502
        total = torch.sum(h, 1)  # MS503
        return picked.squeeze(1) * torch.sigmoid(total.sum(-1))  # MS503


def penalty(scorer, x, labels):
    x.requires_grad_(True)
    score = scorer(x, labels)
    (g,) = autograd.grad(score.sum(), x, create_graph=True)  # MS504
    return g.pow(2).sum()  # ok


def run(x, labels):
    return penalty(Scorer(), x, labels)
