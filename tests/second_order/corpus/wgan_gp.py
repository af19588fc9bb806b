# msport-test: backend=cpu
# A WGAN-GP critic and its gradient penalty, as GAN training code writes it: the penalty
# differentiates the critic's output with create_graph=True, so every layer of the critic is
# differentiated twice.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Critic(nn.Module):
    def __init__(self, channels=3, width=64):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(channels, width, 4, 2, 1),  # ok
            nn.LeakyReLU(0.2),  # ok
            nn.Conv2d(width, width * 2, 4, 2, 1),  # ok
            nn.ELU(),  # MS501
        )
        self.pool = nn.AvgPool2d(2)  # MS501
        self.head = nn.Linear(width * 2, 1)  # ok

    def forward(self, x):
        h = self.features(x)  # ok
        h = self.pool(h)  # ok
        h = F.adaptive_avg_pool2d(h, 1)  # MS501
        return self.head(h.flatten(1))  # ok


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1, 1, 1)
    mixed = alpha * real + (1 - alpha) * fake  # ok
    mixed.requires_grad_(True)
    scores = critic(mixed)
    grads = autograd.grad(outputs=scores, inputs=mixed, grad_outputs=torch.ones_like(scores), create_graph=True, retain_graph=True)[0]  # MS504
    grads = grads.view(grads.size(0), -1)
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()  # ok


def critic_step(critic, optimizer, real, fake, weight=10.0):
    optimizer.zero_grad()
    loss = critic(fake).mean() - critic(real).mean()
    loss = loss + weight * gradient_penalty(critic, real, fake)
    loss.backward()  # ok
    optimizer.step()
    return loss.item()


def train(real, fake):
    critic = Critic()
    optimizer = torch.optim.Adam(critic.parameters(), lr=1e-4)
    return critic_step(critic, optimizer, real, fake)
