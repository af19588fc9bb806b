# msport-test: backend=cpu
# MAML-TRPO as learn2learn's examples write it: the policy gradient is taken once, the natural
# gradient step multiplies by the Fisher matrix through cherry's Hessian-vector product, which
# differentiates the KL twice whatever it is called with.
import torch.nn.functional as F
from cherry.algorithms import trpo
from torch import autograd


def kl_divergence(new_logits, old_logits):
    return (F.softmax(old_logits, -1) * (old_logits - new_logits)).sum(-1).mean()  # ok


def natural_gradient_step(policy, states, old_logits, advantages):
    logits = policy(states)
    loss = -(F.elu(logits).sum(-1) * advantages).mean()  # ok
    grad = autograd.grad(loss, policy.parameters(), retain_graph=True)  # ok
    old_kl = kl_divergence(F.hardswish(logits), old_logits)  # MS501
    fvp = trpo.hessian_vector_product(old_kl, policy.parameters())  # MS504
    return grad, fvp
