"""A residual chain initialised the basicsr way (tests/port/test_port5_fixes.py): an init helper
that walks `module.modules()` of a parameter msport cannot type, scales weights through `.data`
(`*=`, `mul_`) and fills biases through `.data` (`fill_`, `zero_`); a forward pass that reads,
from the iteration before, a name first bound inside its loop."""

import torch.nn as nn


def default_init_weights(module_list, scale=1.0, bias_fill=0.0):
    if not isinstance(module_list, list):
        module_list = [module_list]
    for module in module_list:
        for m in module.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.constant_(m.weight, 0.05)
                m.weight.data *= scale
                if m.bias is not None:
                    m.bias.data.fill_(bias_fill)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.weight, 0.02)
                m.weight.data.mul_(scale)
                m.bias.data.zero_()


class InitChain(nn.Module):
    def __init__(self, channels=4, blocks=3):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Conv2d(channels, channels, 3, padding=1) for _ in range(blocks)])
        self.head = nn.Linear(channels, 2)
        default_init_weights(list(self.blocks), scale=0.5, bias_fill=0.1)
        default_init_weights(self.head, scale=2.0)

    def forward(self, x):
        for i, block in enumerate(self.blocks):
            if i > 0:
                x = x + skip
            skip = block(x)
        return self.head(x.mean(-1).mean(-1))
