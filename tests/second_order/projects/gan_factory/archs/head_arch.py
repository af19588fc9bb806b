import torch.nn as nn
import torch.nn.functional as F

from .registry import HEAD_REGISTRY


@HEAD_REGISTRY.register()
class SaliencyHead(nn.Module):
    def forward(self, x):
        # built by build_head and differentiated once only (saliency): nothing to report
        return F.elu(x)  # ok
