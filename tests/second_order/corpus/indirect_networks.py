# msport-test: backend=cpu
# Networks reached indirectly by a gradient penalty or a meta-learning inner step: a critic built
# by a factory function and kept in an attribute (self.net_d = build_critic(opt)), a model bound
# to a name from a factory, a loss layer built by the caller and handed to the helper that
# differentiates twice. The same layers handed to a first-order gradient are fine.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class PatchCritic(nn.Module):
    def __init__(self, channels=3):
        super().__init__()
        self.body = nn.Linear(channels, 8)  # ok
        self.head = nn.Linear(8, 1)  # ok

    def forward(self, x):
        x = self.body(x)  # ok
        x = F.elu(x)  # MS501
        return self.head(x)  # ok


def build_critic(opt):
    critic = PatchCritic(opt.get("channels", 3))
    return critic


class PenaltyModel:
    def __init__(self, opt):
        self.net_d = build_critic(opt)
        self.smooth = nn.ELU()  # MS501
        self.spare = nn.ELU()  # ok

    def r1(self, real):
        real.requires_grad_(True)
        pred = self.net_d(real)
        grad_real = autograd.grad(pred.sum(), real, create_graph=True)[0]  # MS504
        return grad_real.pow(2).flatten(1).sum(1).mean()

    def smoothed_penalty(self, x):
        return input_penalty(self.smooth, x)


def input_penalty(act, x):
    out = act(x * 2.0)
    grad = autograd.grad(out.sum(), x, create_graph=True)[0]  # MS504
    return grad.pow(2).mean()


def adapt_once(x):
    act = nn.ELU()  # MS501
    return input_penalty(act, x)


def plain_gradient(act, x):
    out = act(x)
    return autograd.grad(out.sum(), x)[0]


def saliency(x):
    act = nn.ELU()  # ok
    return plain_gradient(act, x)


def hvp_step(opt, x, v):
    model = build_critic(opt)
    loss = model(x).sum()
    g = autograd.grad(loss, x, create_graph=True)[0]  # MS504
    return autograd.grad((g * v).sum(), x)[0]
