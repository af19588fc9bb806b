"""A ResNet-style bottleneck block and classifier head, written for PyTorch.

msport example: run `msport check examples/` to see what needs porting to MindSpore.
"""

import torch
from torch import nn
from torch.nn import functional as F


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, drop_rate=0.2):
        super().__init__()
        width = planes
        self.conv1 = nn.Conv2d(inplanes, width, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, planes * self.expansion, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample if downsample is not None else nn.Identity()
        self.drop = nn.Dropout(drop_rate)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shortcut = self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.drop(self.bn3(self.conv3(out)))
        return F.relu(out + shortcut)


class ClassifierHead(nn.Module):
    """Global pooling, then a transformer-style norm and MLP."""

    def __init__(self, channels, num_classes, hidden=512):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.norm = nn.LayerNorm(channels)
        self.fc1 = nn.Linear(channels, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = self.pool(x)
        x = torch.flatten(x, 1)
        x = self.norm(x)
        spread = x.std(dim=1, keepdim=True)
        x = self.act(self.fc1(x / spread))
        return self.fc2(x)


def predict(model, images):
    model.eval()
    with torch.no_grad():
        logits = model(images.cuda())
    return logits.max(dim=1)
