import torch
from torch import autograd

from .registry import MODELS


def r1_step(real):
    critic = MODELS.build(dict(type="StyleCritic", width=8))
    real.requires_grad_(True)
    grad = autograd.grad(critic(real).sum(), real, create_graph=True)[0]
    return grad.pow(2).sum()


def configured_step(real, cfg):
    critic = MODELS.build(cfg)
    return autograd.grad(critic(real).sum(), real, create_graph=True)[0]


def saliency(real):
    critic = MODELS.build(dict(type="patch"))
    return autograd.grad(critic(real).sum(), real)[0]
