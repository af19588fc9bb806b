# msport-test: backend=cpu
# MAML with a functional forward: the inner loop takes gradients with create_graph=True so that
# the outer loss is differentiated through them (second-order MAML); a first-order variant and a
# learn2learn-style learner.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd
import learn2learn as l2l


def conv_block(x, weight, bias, bn_weight, bn_bias):
    x = F.conv2d(x, weight, bias, padding=1)  # ok
    x = F.batch_norm(x, None, None, bn_weight, bn_bias, training=True)  # ok
    x = F.relu(x)  # ok
    return F.max_pool2d(x, 2)  # MS501


def functional_forward(x, params):
    x = conv_block(x, params[0], params[1], params[2], params[3])
    x = x.view(x.size(0), -1)
    return F.linear(x, params[4], params[5])  # ok


def inner_loop(params, support_x, support_y, steps=5, lr=0.4):
    for _ in range(steps):
        logits = functional_forward(support_x, params)
        loss = F.cross_entropy(logits, support_y)  # MS502
        grads = autograd.grad(loss, params, create_graph=True)  # MS504
        params = [p - lr * g for p, g in zip(params, grads)]
    return params


def first_order_inner_loop(params, support_x, support_y, lr=0.4):
    loss = F.cross_entropy(functional_forward(support_x, params), support_y)
    grads = autograd.grad(loss, params)  # ok
    return [p - lr * g.detach() for p, g in zip(params, grads)]


def meta_step(params, tasks, optimizer):
    optimizer.zero_grad()
    total = 0.0
    for support_x, support_y, query_x, query_y in tasks:
        fast = inner_loop(params, support_x, support_y)
        total = total + F.cross_entropy(functional_forward(query_x, fast), query_y)
    total.backward()  # ok
    optimizer.step()


class Learner(nn.Module):
    def __init__(self, ways=5):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.Flatten(), nn.Linear(32 * 26 * 26, ways))

    def forward(self, x):
        return self.body(x)


def fast_adapt(batch, learner, steps):
    data, labels = batch
    for _ in range(steps):
        error = F.cross_entropy(learner(data), labels)  # MS502
        learner.adapt(error)  # MS504
    return F.cross_entropy(learner(data), labels)


def main(batch):
    maml = l2l.algorithms.MAML(Learner(), lr=0.5, first_order=False)  # ok
    return fast_adapt(batch, maml.clone(), 1)
