# msport-test: backend=cpu
# Curvature: Hessian-vector products and Hessians through torch.autograd.functional, and
# torch.func nesting. Each differentiates the function twice.
import torch
import torch.nn.functional as F
from torch.autograd.functional import hessian, hvp, jacobian
from torch.func import grad, jacfwd, jacrev, vmap


def energy(x):
    return (torch.sin(x) * torch.exp(-x * x)).sum()


def nll(logits):
    return -torch.log_softmax(logits, -1)[..., 0].sum()


def smooth(x):
    return F.softplus(x).pow(2).sum()


def robust(pred, target):
    return F.smooth_l1_loss(pred, target)


def curvature(x, v, target):
    h = hessian(energy, x)
    _, hv = hvp(nll, x, v)
    j = jacobian(smooth, x)
    jj = jacobian(lambda p: robust(p, target), x, create_graph=True)
    return h, hv, j, jj


def nested(x):
    second = grad(grad(lambda t: torch.tanh(t).sum()))(x)
    per_sample = vmap(jacrev(jacfwd(energy)))(x)
    first = grad(smooth)(x)
    return second, per_sample, first
