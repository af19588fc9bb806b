"""A MindSpore Cell whose construct is compiled as a static graph.

On Ascend with graph sinking, every shape in construct must be known at compile time.
msport example: run `msport check examples/` to see the dynamic-shape constructs; each
`*_static` variant below is the fix msport suggests, and is not reported.
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

    def construct_static(self, x, mask):
        """The same sums with every shape fixed: mask arithmetic instead of selection."""
        y = self.proj(x)
        weights = ops.cast(mask, y.dtype)
        picked_mean = (y * weights).sum() / ops.maximum(weights.sum(), 1.0)
        positions = ops.arange(y.shape[0]).reshape(-1, *([1] * (y.ndim - 1)))
        head = ops.where(positions < mask.sum(), y, 0.0)
        return picked_mean + head.sum() + y[: self.keep].sum()


def top_scores(scores, valid):
    """A helper of graph code: what it returns is followed into construct."""
    k = int(valid.sum())
    return ops.topk(scores, k)


class Detector(nn.Cell):
    def __init__(self, max_boxes=100):
        super().__init__()
        self.max_boxes = max_boxes
        self.gather = ops.Gather()

    def construct(self, boxes, scores):
        valid = scores > 0.5
        values, order = top_scores(scores, valid)
        kept = self.gather(boxes, order, 0)
        keep_idx = ops.nonzero(valid).reshape(-1)
        chosen = boxes[keep_idx]
        if valid.any():
            out = ops.masked_select(scores, valid)
        else:
            out = ops.zeros_like(scores)
        return values, kept, chosen, out

    def construct_static(self, boxes, scores):
        """A fixed number of boxes (max_boxes) and a mask of the valid ones."""
        values, order = ops.topk(scores, self.max_boxes)
        kept = self.gather(boxes, order, 0)
        valid = values > 0.5
        return ops.where(valid, values, 0.0), kept, valid


@ms.jit
def masked_total(x, mask):
    return ops.where(mask, x, ops.zeros_like(x)).sum()
