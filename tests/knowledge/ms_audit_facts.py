"""MindSpore's side of tests/knowledge/test_audit_facts.py: run in a child process, prints JSON.

Each value is what mindspore 2.10 computes (or raises) for a fact of rules/curated/audit.toml,
on inputs fixed by a seed so that the torch side can recompute them."""

import json

import numpy as np

import mindspore as ms
from mindspore import Tensor, ops

rng = np.random.default_rng(14)
MATRIX = rng.random((3, 4), dtype=np.float32)
ROW = rng.random((1, 3), dtype=np.float32)
VECTOR = rng.random(4, dtype=np.float32)
out = {}


def outcome(fn):
    try:
        value = fn()
        return value.asnumpy().tolist() if isinstance(value, Tensor) else value
    except Exception as error:  # the fact is the exception's kind
        return f"raised {type(error).__name__}"


@ms.jit
def broadcast_varargs(x):
    return x.broadcast_to(4, 3)


@ms.jit
def broadcast_tuple(x):
    return x.broadcast_to((2, 4, -1))


@ms.jit
def expand_jit(x):
    return x.expand(4, 3)


out["broadcast_varargs"] = outcome(lambda: Tensor(ROW).broadcast_to(4, 3))
out["broadcast_varargs_twice"] = outcome(lambda: Tensor(ROW).broadcast_to(4, 3))
out["broadcast_tuple"] = outcome(lambda: Tensor(ROW).broadcast_to((2, 4, -1)))
out["broadcast_varargs_jit"] = outcome(lambda: broadcast_varargs(Tensor(ROW)))
out["broadcast_tuple_jit"] = outcome(lambda: broadcast_tuple(Tensor(ROW)))
out["expand_jit"] = outcome(lambda: expand_jit(Tensor(ROW)))
for ord_ in (2, 1, float("inf")):
    out[f"norm_matrix_{ord_}"] = outcome(lambda: Tensor(MATRIX).norm(ord_))
    out[f"norm_matrix_{ord_}_dim1"] = outcome(lambda: Tensor(MATRIX).norm(ord_, dim=1))
    out[f"norm_vector_{ord_}"] = outcome(lambda: Tensor(VECTOR).norm(ord_))
out["norm_matrix_flat_2"] = outcome(lambda: Tensor(MATRIX).reshape(-1).norm(2))
out["log_softmax_1"] = outcome(lambda: ops.log_softmax(Tensor(MATRIX), 1))
out["log_softmax_default"] = outcome(lambda: ops.log_softmax(Tensor(MATRIX)))
out["int32_max"] = int(np.iinfo(ms.dtype_to_nptype(ms.int32)).max)
out["shape_is_tuple"] = type(Tensor(MATRIX).shape).__name__
out["ops_size"] = outcome(lambda: ops.Size()(Tensor(MATRIX)))
out["parameter_default_input"] = outcome(lambda: ms.Parameter(default_input=Tensor(MATRIX), requires_grad=False).asnumpy().tolist())
out["parameter_requires_grad"] = ms.Parameter(default_input=Tensor(MATRIX), requires_grad=False).requires_grad
out["parameter_data"] = outcome(lambda: ms.Parameter(data=Tensor(MATRIX)))
out["auto_mixed_precision"] = outcome(lambda: type(ms.amp.auto_mixed_precision(ms.nn.Dense(2, 2), "O1")).__name__)


@ms.jit
def matmul_jit(a, b):
    return a.matmul(b)


out["matmul_vector"] = outcome(lambda: Tensor(MATRIX).matmul(Tensor(VECTOR)))
out["matmul_vector_jit"] = outcome(lambda: matmul_jit(Tensor(MATRIX), Tensor(VECTOR)))
out["tile"] = outcome(lambda: Tensor(MATRIX).tile((2, 1)))
out["own_repeat_cpu"] = outcome(lambda: Tensor(VECTOR).repeat(2))
out["data"] = outcome(lambda: Tensor(MATRIX).data)
parameter = ms.Parameter(Tensor(MATRIX), name="w")
parameter.data = Tensor(MATRIX * 2)
out["parameter_data_assigned"] = parameter.asnumpy().tolist()
out["recompute"] = outcome(lambda: ms.nn.Dense(2, 2).recompute())
out["numpy_slices"] = [[c.asnumpy().tolist() for c in row] for row in ms.dataset.NumpySlicesDataset(
    (MATRIX, np.arange(3)), column_names=["x", "y"], shuffle=False).create_tuple_iterator()]
out["set_deterministic"] = outcome(lambda: ms.set_deterministic(True))


class MeanLoss(ms.nn.LossBase):
    def construct(self, x):
        return self.get_loss(x)


out["loss_base_mean"] = outcome(lambda: MeanLoss()(Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))))


class Doubled(ms.nn.Cell):
    """The custom-gradient pattern the torch.autograd.Function rule names: forward x * 2, gradient 3 * x."""

    def construct(self, x):
        return x * 2

    def bprop(self, x, out, dout):
        return (dout * 3 * x,)


out["bprop_grad"] = outcome(lambda: ms.grad(lambda v: Doubled()(v).sum())(Tensor(VECTOR)))
np.set_printoptions(precision=2)
out["printed"] = str(Tensor(np.array([1.23456], np.float32)))
np.set_printoptions(precision=8)
for kind in ("GRU", "RNN", "LSTM"):
    layer = getattr(ms.nn, kind)(3, 4, num_layers=2, batch_first=True)
    out[f"{kind}_names"] = [p.name.split(".")[-1] for p in layer.get_parameters()]
    weights = np.load(f"{kind}.npz")
    for p in layer.get_parameters():
        p.set_data(Tensor(weights[p.name.split(".")[-1]]))
    output, state = layer(Tensor(weights["input"]))
    out[f"{kind}_output"] = output.asnumpy().tolist()
    out[f"{kind}_state"] = [s.asnumpy().tolist() for s in (state if isinstance(state, tuple) else (state,))]
import mindspore.numpy as mnp  # noqa: E402

out["constants"] = [mnp.nan != mnp.nan, mnp.inf, mnp.pi]
out["sigmoid"] = outcome(lambda: ms.nn.Sigmoid()(Tensor(MATRIX)))
for dims in (0, (0,), (0, 1), [0, 1]):
    out[f"flip_{dims}"] = outcome(lambda: Tensor(MATRIX).flip(dims))
out["flip_varargs"] = outcome(lambda: Tensor(MATRIX).flip(0, 1))
out["instance_norm_parameters"] = [p.name.split(".")[-1] for p in ms.nn.InstanceNorm2d(3).trainable_params()]
out["instance_norm_plain_parameters"] = [p.name.split(".")[-1] for p in ms.nn.InstanceNorm2d(3, affine=False).trainable_params()]
import mindspore.nn.probability.distribution as D  # noqa: E402

VALUES = np.array([0.3, 0.7], np.float32)
#: name -> (the MindSpore distribution as the rule says to write it, the values to score)
DISTRIBUTIONS = {
    "Normal": (lambda: D.Normal(0.5, 2.0), VALUES),
    "Laplace": (lambda: D.Laplace(0.5, 2.0), VALUES),
    "StudentT": (lambda: D.StudentT(3.0, 0.5, 2.0), VALUES),
    "HalfNormal": (lambda: D.HalfNormal(0.0, 2.0), VALUES),
    "LogNormal": (lambda: D.LogNormal(0.5, 2.0), VALUES),
    "Uniform": (lambda: D.Uniform(0.0, 2.0), VALUES),
    "Exponential": (lambda: D.Exponential(2.0), VALUES),
    "Cauchy": (lambda: D.Cauchy(0.5, 2.0), VALUES),
    "Gumbel": (lambda: D.Gumbel(0.5, 2.0), VALUES),
    "Bernoulli": (lambda: D.Bernoulli(0.3, dtype=ms.int32), np.array([1, 0], np.int32)),
    "Categorical": (lambda: D.Categorical(Tensor(np.array([0.2, 0.5, 0.3], np.float32))), np.array([1, 2], np.int32)),
    "Geometric": (lambda: D.Geometric(0.3, dtype=ms.int32), np.array([1, 3], np.int32)),
    "Gamma": (lambda: D.Gamma(Tensor([2.0], ms.float32), Tensor([3.0], ms.float32)), VALUES),
    "Beta": (lambda: D.Beta(Tensor([2.0], ms.float32), Tensor([3.0], ms.float32)), VALUES),
    "Poisson": (lambda: D.Poisson(Tensor([2.0], ms.float32)), np.array([1.0, 3.0], np.float32)),
}
for name, (make, values) in DISTRIBUTIONS.items():
    out[f"dist_{name}_log_prob"] = outcome(lambda: make().log_prob(Tensor(values)))
    out[f"dist_{name}_entropy"] = outcome(lambda: make().entropy())
out["dist_Gamma_scalar"] = outcome(lambda: D.Gamma(2.0, 3.0))
out["dist_kl"] = outcome(lambda: D.Normal(0.0, 1.0).kl_loss("Normal", Tensor([1.0], ms.float32), Tensor([2.0], ms.float32)))
import mindspore.scipy.linalg  # noqa: E402

LOWER = np.tril(rng.random((3, 3), dtype=np.float32) + np.eye(3, dtype=np.float32))
out["softplus"] = outcome(lambda: ops.softplus(Tensor(MATRIX * 10 - 5), beta=2, threshold=10))
out["current_device"] = list(ms.get_current_device())
out["trapz"] = outcome(lambda: ops.trapz(Tensor(MATRIX)))
out["trapz_dx"] = outcome(lambda: ops.trapz(Tensor(MATRIX), dx=0.5, dim=0))
out["solve_triangular"] = outcome(lambda: mindspore.scipy.linalg.solve_triangular(Tensor(LOWER), Tensor(MATRIX[:, :2].copy()), lower=True))
from mindspore import mint  # noqa: E402

IMAGE = rng.random((1, 2, 4, 4), dtype=np.float32)
for mode in ("nearest", "bilinear", "bicubic"):
    extra = {} if mode == "nearest" else {"align_corners": False}
    out[f"mint_interpolate_{mode}"] = outcome(lambda: mint.nn.functional.interpolate(Tensor(IMAGE), size=(8, 8), mode=mode, **extra))
    out[f"ops_interpolate_{mode}"] = outcome(lambda: ops.interpolate(Tensor(IMAGE), size=(8, 8), mode=mode, **extra))
out["ops_interpolate_scale"] = outcome(lambda: ops.interpolate(Tensor(IMAGE), scale_factor=2.0, mode="bilinear"))
out["mint_upsample_bicubic"] = outcome(lambda: mint.nn.Upsample(size=(8, 8), mode="bicubic")(Tensor(IMAGE)))
CUBE = rng.random((2, 3, 4), dtype=np.float32)
out["max_dim"] = type(ops.max(Tensor(MATRIX), 1)).__name__
out["max_dim_values"] = outcome(lambda: ops.max(Tensor(MATRIX), 1).values)
out["mint_max_dim_values"] = outcome(lambda: mint.max(Tensor(MATRIX), 1).values)
out["tensor_max_dim_indices"] = outcome(lambda: Tensor(MATRIX).max(axis=1, return_indices=True).indices)
out["sort_values"] = outcome(lambda: ops.sort(Tensor(MATRIX)).values)
out["topk_indices"] = outcome(lambda: ops.topk(Tensor(MATRIX), 2).indices)
out["sort_first"] = outcome(lambda: ops.sort(Tensor(MATRIX))[0])
out["flatten_layers"] = [outcome(lambda: layer()(Tensor(CUBE))) for layer in (mint.nn.Flatten, ms.nn.Flatten)]
import mindspore.dataset.vision as vision  # noqa: E402

CHW = rng.random((3, 4, 5), dtype=np.float32)
MEAN, STD = [0.5, 0.4, 0.3], [0.2, 0.25, 0.3]
out["normalize_chw_default"] = outcome(lambda: vision.Normalize(mean=MEAN, std=STD)(CHW))
out["normalize_chw"] = outcome(lambda: vision.Normalize(mean=MEAN, std=STD, is_hwc=False)(CHW).tolist())
out["multinomial_default_replacement"] = str(__import__("inspect").signature(ops.multinomial).parameters["replacement"].default)
SQUARE = Tensor(MATRIX[:3, :3].copy())
filled = SQUARE.fill_diagonal(-1.0)
out["fill_diagonal_new"] = filled is not SQUARE
out["fill_diagonal_input_unchanged"] = bool(np.array_equal(SQUARE.asnumpy(), MATRIX[:3, :3]))
out["fill_diagonal_value"] = filled.asnumpy().tolist()
out["fill_diagonal_inplace_cpu"] = outcome(lambda: Tensor(MATRIX[:3, :3].copy()).fill_diagonal_(-1.0))
out["where_condition_only"] = outcome(lambda: mint.where(Tensor(MATRIX > 0.5)))
nonzero = ops.nonzero(Tensor(MATRIX > 0.5)).asnumpy()
out["nonzero_columns"] = [nonzero[:, i].tolist() for i in range(nonzero.shape[1])]
print(json.dumps(out))
