import torch
from torch import autograd

from gan_r1.nets import Critic, Generator
from gan_r1.nets.critic import Block


class GANModel:
    def __init__(self):
        self.net_d = Critic()
        self.encoder = Block()
        self.net_g = Generator()

    def r1_penalty(self, real):
        real.requires_grad_(True)
        pred = self.net_d(self.encoder(real))
        grad = autograd.grad(pred.sum(), real, create_graph=True)[0]  # MS504
        return grad.pow(2).flatten(1).sum(1).mean()

    def saliency(self, noise):
        noise.requires_grad_(True)
        fake = self.net_g(noise)
        return autograd.grad(fake.sum(), noise)[0]
