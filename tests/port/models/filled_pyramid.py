"""A feature-pyramid neck written for PyTorch (reduced from the shape of mmdet's FPN): the
lateral and output convolutions live in ModuleLists assigned empty and filled by append in a
loop, and the top-down path adds each upsampled level to the one below."""

import torch.nn as nn
import torch.nn.functional as F


class Pyramid(nn.Module):
    def __init__(self, in_channels=(4, 8, 16), out_channels=6):
        super().__init__()
        self.lateral_convs = nn.ModuleList()
        self.fpn_convs = nn.ModuleList()
        for channels in in_channels:
            self.lateral_convs.append(nn.Conv2d(channels, out_channels, 1))
            self.fpn_convs.append(nn.Conv2d(out_channels, out_channels, 3, padding=1))

    def forward(self, c3, c4, c5):
        laterals = [conv(x) for conv, x in zip(self.lateral_convs, (c3, c4, c5))]
        for i in range(len(laterals) - 1, 0, -1):
            laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], scale_factor=2.0, mode="nearest")
        return tuple(conv(x) for conv, x in zip(self.fpn_convs, laterals))
