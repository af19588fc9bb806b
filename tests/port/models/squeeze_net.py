"""A SqueezeNet-style classifier written for PyTorch (a test model of msport): squeeze/expand
blocks between max pools that round up (ceil_mode), a padded max pool, batch norms with the
default and with a chosen momentum."""
import torch
import torch.nn as nn


class SqueezeExpand(nn.Module):
    def __init__(self, cin, squeeze, expand, pad=1):
        super().__init__()
        self.squeeze = nn.Conv2d(cin, squeeze, kernel_size=1)
        self.norm = nn.BatchNorm2d(squeeze, momentum=0.03)
        self.left = nn.Conv2d(squeeze, expand, kernel_size=1)
        self.right = nn.Conv2d(squeeze, expand, kernel_size=3, padding=pad)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.act(self.norm(self.squeeze(x)))
        return torch.cat([self.act(self.left(x)), self.act(self.right(x))], 1)


class SqueezeNet(nn.Module):
    def __init__(self, num_classes=6):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, kernel_size=3, stride=2),
            nn.BatchNorm2d(16),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True),
        )
        self.block1 = SqueezeExpand(16, 8, 16)
        self.pool = nn.MaxPool2d(3, 2, 1)
        self.block2 = SqueezeExpand(32, 8, 16)
        self.head = nn.Conv2d(32, num_classes, kernel_size=1)
        self.gap = nn.AdaptiveAvgPool2d((1, 1))

    def forward(self, x):
        x = self.block2(self.pool(self.block1(self.stem(x))))
        return torch.flatten(self.gap(self.head(x)), 1)
