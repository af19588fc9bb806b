"""A dense block written for PyTorch (reduced from the shape of torchvision's DenseNet and
basicsr's residual dense blocks): its layers are registered by add_module in a loop under
computed names, read back with getattr, and each layer sees every earlier output concatenated."""

import torch
import torch.nn as nn


class DenseBlock(nn.Module):
    def __init__(self, num_layers=3, channels=4, growth=2):
        super().__init__()
        self.num_layers = num_layers
        for i in range(num_layers):
            layer = nn.Conv2d(channels + i * growth, growth, 3, padding=1)
            self.add_module("denselayer%d" % (i + 1), layer)
        self.add_module(name="fuse", module=nn.Conv2d(channels + num_layers * growth, channels, 1))

    def forward(self, x):
        features = [x]
        for i in range(self.num_layers):
            layer = getattr(self, "denselayer%d" % (i + 1))
            features.append(torch.relu(layer(torch.cat(features, 1))))
        return self.fuse(torch.cat(features, 1)) + x
