"""Run in a child process with mindspore 2.10 on CPU: the MindSpore side of each measured
divergence, printed as one JSON object (inputs are built from the same NumPy seeds as the
torch side in test_divergences.py)."""

import json
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")

import mindspore as ms  # noqa: E402
from mindspore import nn, ops  # noqa: E402

ms.set_device("CPU")
from inputs import INPUTS  # noqa: E402  (shared with the torch side)

x = {name: ms.Tensor(value) for name, value in INPUTS.items()}
out = {}


def record(name, value):
    if isinstance(value, (tuple, list)):
        out[name] = [v.asnumpy().tolist() if hasattr(v, "asnumpy") else v for v in value]
    elif hasattr(value, "asnumpy"):
        out[name] = value.asnumpy().tolist()
    else:
        out[name] = value


record("gelu_default", nn.GELU()(x["wide"]))
record("gelu_exact", nn.GELU(approximate=False)(x["wide"]))
record("std_default", ops.std(x["sample"]))
record("std_ddof1", ops.std(x["sample"], ddof=1))
record("var_default", ops.var(x["sample"]))
record("var_ddof1", ops.var(x["sample"], ddof=1))
record("leaky_default", nn.LeakyReLU()(x["wide"]))
record("leaky_alpha", nn.LeakyReLU(alpha=0.01)(x["wide"]))
record("layernorm_default", nn.LayerNorm((8,))(x["flat_rows"]))
record("layernorm_eps", nn.LayerNorm((8,), epsilon=1e-5)(x["flat_rows"]))
record("flatten_shape", list(ops.flatten(x["cube"]).shape))
record("flatten_start0_shape", list(ops.flatten(x["cube"], start_dim=0).shape))
record("unique", ops.unique(x["repeats"])[0])
record("max_nan", ops.max(x["with_nan"], axis=1)[0])
dropout = nn.Dropout(0.2)
dropout.set_train(True)
ms.set_seed(0)
dropped = dropout(x["ones"]).asnumpy()
record("dropout_zero_fraction", float((dropped == 0).mean()))
record("dropout_kept_value", float(dropped[dropped != 0][0]))
conv = nn.Conv2d(3, 4, 3)
record("conv_shape", list(conv(x["image"]).shape))
record("conv_has_bias", conv.bias is not None)
conv_pad = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=0, has_bias=True)
record("conv_pad_shape", list(conv_pad(x["image"]).shape))
record("maxpool_shape", list(nn.MaxPool2d(2)(x["image"]).shape))
record("maxpool_stride_shape", list(nn.MaxPool2d(2, stride=2)(x["image"]).shape))
record("meshgrid_shape", list(ops.meshgrid(x["axis3"], x["axis5"])[0].shape))
record("meshgrid_ij_shape", list(ops.meshgrid(x["axis3"], x["axis5"], indexing="ij")[0].shape))
svd = ops.svd(x["matrix"])
record("svd_shapes", [list(part.shape) for part in svd])
record("svd_first", svd[0])
json.dump(out, sys.stdout)
