# msport-test: backend=cpu
# Curvature: Hessian-vector products and Hessians through torch.autograd.functional, and
# torch.func nesting. Each differentiates the function twice.
import torch
import torch.nn.functional as F
from torch.autograd.functional import hessian, hvp, jacobian
from torch.func import grad, jacfwd, jacrev, vmap


def energy(x):
    return (torch.sin(x) * torch.exp(-x * x)).sum()  # ok


def nll(logits):
    return -torch.log_softmax(logits, -1)[..., 0].sum()  # MS501


def smooth(x):
    return F.softplus(x).pow(2).sum()  # ok


def robust(pred, target):
    return F.smooth_l1_loss(pred, target)  # MS501


def curvature(x, v, target):
    h = hessian(energy, x)  # MS504
    _, hv = hvp(nll, x, v)  # MS504
    j = jacobian(smooth, x)  # ok
    jj = jacobian(lambda p: robust(p, target), x, create_graph=True)  # MS504
    return h, hv, j, jj


def nested(x):
    second = grad(grad(lambda t: torch.tanh(t).sum()))(x)  # MS504
    per_sample = vmap(jacrev(jacfwd(energy)))(x)  # MS504
    first = grad(smooth)(x)  # ok
    return second, per_sample, first
