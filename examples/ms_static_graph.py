"""A MindSpore Cell whose construct is compiled as a static graph.

On Ascend with graph sinking, every shape in construct must be known at compile time.
msport example: run `msport check examples/` to see the dynamic-shape constructs.
"""

import mindspore as ms
from mindspore import nn, ops


class MaskedMeanPool(nn.Cell):
    def __init__(self, channels, keep=16):
        super().__init__()
        self.keep = keep
        self.proj = nn.Dense(channels, channels)
        self.unique = ops.Unique()

    def construct(self, x, mask):
        y = self.proj(x)
        picked = ops.masked_select(y, mask)
        count = int(mask.sum())
        head = y[:count]
        fixed = y[: self.keep]
        ids, _ = self.unique(ops.cast(mask, ms.int32))
        return picked.mean() + head.sum() + fixed.sum() + ids.sum()


@ms.jit
def masked_total(x, mask):
    return ops.where(mask, x, ops.zeros_like(x)).sum()
