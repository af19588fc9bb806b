# msport-test: backend=cpu mode=pynative
# Look-alikes: gradients taken once (no create_graph, create_graph=False, plain backward), names
# that contain "grad" without differentiating, and operations applied to a gradient after it is
# taken (they are differentiated once, not twice). None of this is a second-order path.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)  # ok

    def forward(self, x):
        return F.log_softmax(F.elu(self.fc(x)), -1)  # MS501


def saliency(model, x):
    x.requires_grad_(True)
    out = model(x).max()
    g = autograd.grad(out, x)[0]  # ok
    return g.abs()


def explicit_false(model, x, y):
    loss = F.nll_loss(model(x), y)
    return autograd.grad(loss, list(model.parameters()), create_graph=False, retain_graph=True)  # ok


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = F.nll_loss(model(x), y)
    loss.backward()  # ok
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # ok
    optimizer.step()
    with torch.no_grad():
        return model(x).argmax(-1)


def grad(values):
    return values[1:] - values[:-1]


def finite_difference(x):
    return grad(F.elu(x))  # ok


def penalty_after_gradient(model, x):
    x.requires_grad_(True)
    score = model(x).sum()
    g = autograd.grad(score, x, create_graph=True)[0]  # MS504
    return F.elu(g).pow(2).mean()  # ok


def main(x, y):
    model = Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return saliency(model, x), explicit_false(model, x, y), train_step(model, optimizer, x, y), penalty_after_gradient(model, x)
