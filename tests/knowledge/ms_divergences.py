"""Run in a child process with mindspore 2.10 on CPU: the MindSpore side of each measured
divergence, printed as one JSON object (inputs are built from the same NumPy seeds as the
torch side in test_divergences.py)."""

import json
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")

import mindspore as ms  # noqa: E402
import mindspore.numpy as mnp  # noqa: E402
from mindspore import mint, nn, ops  # noqa: E402

ms.set_device("CPU")
from inputs import INPUTS  # noqa: E402  (shared with the torch side)

x = {name: ms.Tensor(value) for name, value in INPUTS.items()}
out = {}


def record(name, value):
    if isinstance(value, (tuple, list)):
        out[name] = [v.asnumpy().tolist() if hasattr(v, "asnumpy") else v for v in value]
    elif hasattr(value, "asnumpy"):
        out[name] = value.asnumpy().tolist()
    elif isinstance(value, np.ndarray):
        out[name] = value.tolist()
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


def trained_mean(layer):
    """The running mean after one training step on the cube (N=2, C=3, L=4)."""
    layer.set_train(True)
    layer(x["cube"])
    return layer.moving_mean


def inferred(layer):
    layer.set_train(False)
    return layer(x["cube"])


record("bn1d_default_mean", trained_mean(nn.BatchNorm1d(3)))
record("bn1d_m01_mean", trained_mean(nn.BatchNorm1d(3, momentum=0.1)))
record("bn1d_batch_stats_eval", inferred(nn.BatchNorm1d(3, use_batch_statistics=True)))
record("bn1d_default_eval", inferred(nn.BatchNorm1d(3)))
record("meshgrid_shape", list(ops.meshgrid(x["axis3"], x["axis5"])[0].shape))
record("meshgrid_ij_shape", list(ops.meshgrid(x["axis3"], x["axis5"], indexing="ij")[0].shape))
svd = ops.svd(x["matrix"])
record("svd_shapes", [list(part.shape) for part in svd])
record("svd_first", svd[0])
equal = ops.equal(x["sample"], x["sample"])
record("equal_shape", list(equal.shape))
record("equal_all", bool(equal.all()))
record("array_equal", [bool(mnp.array_equal(x["sample"], other)) for other in (x["sample"], x["sample"][:5], x["sample"] + 1)])
record("full_dtype", str(ops.full((2, 2), 1.5).dtype))
record("full_default", ops.full((2, 2), 1.5))
record("full_float32", ops.full((2, 2), 1.5, dtype=ms.float32))
for window in ("hann_window", "kaiser_window"):
    record(f"{window}_dtype", str(getattr(ops, window)(8).dtype))
    record(f"{window}_times_float32_dtype", str((getattr(ops, window)(8) * x["wide"][:8]).dtype))
    record(f"{window}_float32", getattr(ops, window)(8, dtype=ms.float32))
eigvals = ops.eigvals(x["square"]).asnumpy()
record("eigvals_real", eigvals.real.tolist())
record("eigvals_max_imag", float(np.abs(eigvals.imag).max()))
values, indices = ops.nanmedian(x["with_nan"])
record("nanmedian_default_values", values)
record("nanmedian_default_indices", indices)
record("nanmedian_flat", ops.nanmedian(x["with_nan"].reshape(-1), 0)[0])
record("hinge_signs", ops.hinge_embedding_loss(x["scores"], x["signs"]))
record("hinge_halves", ops.hinge_embedding_loss(x["scores"], x["signs"] * 0.5))
grads = (x["matrix"], x["axis5"])
for clip in ("clip_by_norm", "clip_by_global_norm"):  # the clipped gradients, flattened into one vector
    record(clip, np.concatenate([g.asnumpy().reshape(-1) for g in getattr(ops, clip)(grads, 1.0)]))
record("clip_input_after", grads[1])
values, indices = ops.topk(x["sample"], 3)
record("topk_values", values)
record("topk_indices", indices)
record("topk_indices_dtype", str(indices.dtype))
record("topk_indices_cast_dtype", str(indices.astype(ms.int64).dtype))
record("method_topk_indices_dtype", str(x["sample"].topk(3)[1].dtype))
values, indices = x["with_nan"].nanmedian()
record("method_nanmedian_default_values", values)
record("method_nanmedian_flat", x["with_nan"].reshape(-1).nanmedian(0)[0])
record("method_equal_shape", list(x["sample"].equal(x["sample"]).shape))
for name in ("image", "flat_image"):
    record(f"groupnorm_{name}", mint.nn.GroupNorm(3, 3)(x[name]))
json.dump(out, sys.stdout)
