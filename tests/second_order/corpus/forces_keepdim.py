# msport-test: backend=cpu mode=pynative
# An interatomic potential trained on forces (schnetpack/PaiNN style, written fresh): the force
# is a create_graph gradient of the energy, so the whole network is differentiated twice. In
# PyNative a reduction that drops its axes gives zeros for the second derivative; one that keeps
# them (keepdim=True) was measured right. A loss held by the trainer is reported where it is built.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Mixing(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.inner = nn.Linear(width, width)
        self.outer = nn.Linear(width, 1)

    def forward(self, vectors):
        mixed = self.inner(vectors)  # ok
        norms = torch.sqrt(torch.sum(mixed ** 2, dim=-2, keepdim=True) + 1e-8)  # ok
        gate = mixed * mixed.sum(1, keepdim=True)  # ok
        pooled = mixed.mean([1, 2], keepdims=True)  # ok
        atoms = torch.tanh(gate + norms + pooled).sum(1)  # MS503
        return self.outer(F.softplus(atoms)).squeeze(-1)  # MS501


def force_loss(model, positions, reference):
    positions.requires_grad_(True)
    energy = model(positions)
    (forces,) = autograd.grad(energy.sum(), positions, create_graph=True)  # MS504
    return (forces + reference).pow(2).mean()  # ok


class InnerLoop:
    """A meta-learning inner step: the loss object is differentiated twice."""

    def __init__(self, width=8):
        self.model = nn.Linear(width, 3)
        self.criterion = nn.CrossEntropyLoss()  # MS503

    def adapt(self, x, labels):
        loss = self.criterion(self.model(x), labels)  # ok
        grads = autograd.grad(loss, list(self.model.parameters()), create_graph=True)  # MS504
        return sum(g.pow(2).sum() for g in grads)

    def evaluate(self, x, labels):
        return self.criterion(self.model(x), labels)  # ok


def train(positions, reference):
    return force_loss(Mixing(), positions, reference)


def predict_forces(model, positions):
    """Inference: the forces are not differentiated again."""
    positions.requires_grad_(True)
    (forces,) = autograd.grad(model(positions).sum(), positions)  # ok
    return -forces
