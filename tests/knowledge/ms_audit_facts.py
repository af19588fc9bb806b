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
print(json.dumps(out))
