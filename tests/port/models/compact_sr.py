"""A compact super-resolution generator written for PyTorch (a test model of msport):
convolutions with PReLU in a ModuleList, a pixel shuffle, and the input upsampled by the
scale kept on the module (an int attribute) added back, weighted by the input's contrast."""
import torch.nn as nn
import torch.nn.functional as F


class CompactSR(nn.Module):
    def __init__(self, channels=3, feat=8, depth=2, scale=2):
        super().__init__()
        self.scale = scale
        self.body = nn.ModuleList()
        self.body.append(nn.Conv2d(channels, feat, 3, 1, 1))
        self.body.append(nn.PReLU(num_parameters=feat))
        for _ in range(depth):
            self.body.append(nn.Conv2d(feat, feat, 3, 1, 1))
            self.body.append(nn.PReLU(num_parameters=feat))
        self.body.append(nn.Conv2d(feat, channels * scale * scale, 3, 1, 1))
        self.shuffle = nn.PixelShuffle(scale)

    def forward(self, x):
        out = x
        for layer in self.body:
            out = layer(out)
        # the local contrast of the input (unbiased, over channels) steers the residual's weight
        contrast = x.std(dim=1, keepdim=True)
        return self.shuffle(out) + F.interpolate(x * (1 + contrast), scale_factor=self.scale, mode='nearest')
