"""MindSpore's side of tests/knowledge/test_other_names.py: run in a child process, prints JSON.

Each value is what mindspore 2.10 computes (or raises) for a claim of rules/curated/other_names.toml,
on inputs fixed by a seed so that the torch side can recompute them."""

import json

import numpy as np

import mindspore as ms
import mindspore.scipy.linalg
from mindspore import Tensor, nn, ops

from ms_outcome import outcome  # noqa: E402
from other_names_inputs import (BAGS, DENSE, DTYPES, FLAT, PAIR, REAL, SPARSE_INDICES, SPARSE_SHAPE,  # noqa: E402
                                SPARSE_VALUES, SYMMETRIC, TABLE)  # shared with the torch side

out = {}
# Before any tensor is made, as a port calls it (torch.set_default_device's counterpart).
out["set_device"] = "ran" if ms.set_device("CPU") is None else "returned"


@ms.jit
def complex_jit(real, imag):
    return ops.Complex()(real, imag)


out["itemsize"] = {name: ops.zeros(2, getattr(ms, "bool_" if name == "bool" else name)).itemsize for name in DTYPES}
real, imag = Tensor(REAL[0]), Tensor(REAL[1])
built = ops.Complex()(real, imag)
out["complex"] = [str(built.dtype), np.real(built.asnumpy()).tolist(), np.imag(built.asnumpy()).tolist()]
jitted = complex_jit(real, imag)
out["complex_jit"] = [str(jitted.dtype), np.real(jitted.asnumpy()).tolist(), np.imag(jitted.asnumpy()).tolist()]
pair = Tensor(PAIR)
viewed = ops.Complex()(pair[..., 0], pair[..., 1])
out["view_as_complex"] = [str(viewed.dtype), np.real(viewed.asnumpy()).tolist(), np.imag(viewed.asnumpy()).tolist()]
flat = Tensor(FLAT)
out["unflatten"] = {f"{dim} {sizes}": outcome(lambda d=dim, s=sizes: nn.Unflatten(d, s)(flat))
                    for dim, sizes in ((1, (3, 4)), (-2, (3, -1)), (2, (5, 1)))}
values, vectors = mindspore.scipy.linalg.eigh(Tensor(SYMMETRIC))
upper_values, _ = mindspore.scipy.linalg.eigh(Tensor(SYMMETRIC), lower=False)
out["eigh"] = [values.asnumpy().tolist(), np.abs(vectors.asnumpy()).tolist(), upper_values.asnumpy().tolist()]
like = Tensor(REAL[0])
out["new_empty"] = [list(like.new_empty((2, 3)).shape), str(like.new_empty((2, 3)).dtype), list(like.new_empty((0,)).shape)]
out["new_data"] = outcome(lambda: Tensor([1, 2], dtype=like.dtype))
coo = ms.COOTensor(Tensor(np.array([[0, 1]], np.int32)), Tensor(np.array([1.0], np.float32)), (3, 4))
out["is_sparse"] = [isinstance(like, (ms.COOTensor, ms.CSRTensor)), isinstance(coo, (ms.COOTensor, ms.CSRTensor))]
out["lazy_bits"] = [hasattr(Tensor, name) for name in ("is_conj", "is_neg", "resolve_conj", "resolve_neg")]
out["no_grad_on_tensors"] = [hasattr(Tensor, "grad"), hasattr(Tensor, "grad_fn"), hasattr(ms.Parameter, "grad")]
out["hooks"] = [hasattr(ops, "HookBackward"), hasattr(nn.Cell, "register_backward_hook")]
out["threads"] = outcome(lambda: ms.device_context.cpu.op_tuning.threads_num(2) or "ran")
out["threads_getter"] = [name for name in dir(ms.device_context.cpu.op_tuning) if "get" in name.lower()]
out["missing_on_tensor"] = [hasattr(Tensor, name) for name in ("element_size", "unflatten", "new", "is_sparse")]
out["mstx"] = outcome(lambda: ms.profiler.mstx.range_end(ms.profiler.mstx.range_start("step")) or "ran")
out["all_finite"] = [bool(ms.amp.all_finite((Tensor(np.array([1.0, np.nan], np.float32)),))),
                     bool(ms.amp.all_finite((Tensor(np.array([1.0, np.inf], np.float32)), Tensor(REAL[0])))),
                     bool(ms.amp.all_finite((Tensor(REAL[0]), Tensor(REAL[1]))))]


def in_stream():
    with ms.runtime.StreamCtx(ms.runtime.Stream()):
        return ops.ones(2)


out["stream_on_cpu"] = outcome(in_stream)
out["stream_ctx"] = hasattr(ms.runtime, "StreamCtx")
out["device_name"] = outcome(lambda: ms.hal.get_device_name(0, "CPU"))
rows = ops.gather(Tensor(TABLE), Tensor(BAGS), 0)
out["bags"] = {"mean": rows.mean(1).asnumpy().tolist(), "sum": rows.sum(1).asnumpy().tolist(),
               "max": rows.amax(1).asnumpy().tolist()}
coo = ms.COOTensor(Tensor(SPARSE_INDICES.T), Tensor(SPARSE_VALUES), SPARSE_SHAPE)
out["coo_dense"] = coo.to_dense().asnumpy().tolist()
out["sparse_dense_matmul"] = outcome(lambda: ops.SparseTensorDenseMatmul()(coo.indices, coo.values, coo.shape, Tensor(DENSE)))
# The private bases' public layers: isinstance of each MindSpore layer with the tuple a note writes.
from mindspore.nn.layer.normalization import _BatchNorm  # noqa: E402
batch_norms = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d, nn.SyncBatchNorm)
mint_norms = (ms.mint.nn.BatchNorm1d, ms.mint.nn.BatchNorm2d, ms.mint.nn.BatchNorm3d)
out["batch_norms"] = [isinstance(layer, batch_norms + mint_norms) for layer in
                      (nn.BatchNorm1d(3), nn.BatchNorm2d(3), nn.BatchNorm3d(3), ms.mint.nn.BatchNorm2d(3), nn.Dense(2, 2))]
out["batch_norm3d_private_base"] = issubclass(nn.BatchNorm3d, _BatchNorm)
out["instance_norms"] = [isinstance(layer, (nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)) for layer in
                         (nn.InstanceNorm1d(3), nn.InstanceNorm2d(3), nn.InstanceNorm3d(3), nn.BatchNorm2d(3))]
convs = (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Conv1dTranspose, nn.Conv2dTranspose, nn.Conv3dTranspose)
out["convs"] = [isinstance(layer, convs) for layer in (nn.Conv1d(2, 2, 3), nn.Conv2d(2, 2, 3), nn.Conv3d(2, 2, 3),
                                                        nn.Conv2dTranspose(2, 2, 3), nn.Dense(2, 2))]
out["current_device"] = list(ms.get_current_device())
out["export"] = callable(ms.export)
print(json.dumps(out))
