"""Counterparts under other names and same-role mechanisms (rules/curated/other_names.toml),
re-measured: MindSpore 2.10 in one child process (ms_other_names.py), torch 2.13 here, on the
same seeded inputs. Each claim a note makes is an assertion below; then msport reports the
torch API with that counterpart instead of 'missing'."""

from pathlib import Path

import numpy as np
import pytest
import torch

from msport.knowledge.index import default_knowledge

from .child import measured
from .other_names_inputs import (BAGS, DENSE, DTYPES, FLAT, PAIR, REAL, SPARSE_INDICES, SPARSE_SHAPE, SPARSE_VALUES,
                                 SYMMETRIC, TABLE)

HERE = Path(__file__).parent


@pytest.fixture(scope="module")
def ms_facts():
    return measured("ms_other_names.py")


def close(a, b, tol=1e-5):
    return np.allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), atol=tol, rtol=tol)


def test_itemsize_is_element_size(ms_facts):
    for name in DTYPES:
        assert ms_facts["itemsize"][name] == torch.zeros(2, dtype=getattr(torch, name)).element_size(), name


def test_complex_primitive_builds_torch_complex(ms_facts):
    expected = torch.complex(torch.tensor(REAL[0]), torch.tensor(REAL[1]))
    for key in ("complex", "complex_jit"):
        dtype, real, imag = ms_facts[key]
        assert dtype == "Complex64" and expected.dtype == torch.complex64
        assert close(real, expected.real) and close(imag, expected.imag)


def test_view_as_complex_from_the_last_axis(ms_facts):
    expected = torch.view_as_complex(torch.tensor(PAIR))
    dtype, real, imag = ms_facts["view_as_complex"]
    assert dtype == "Complex64" and close(real, expected.real) and close(imag, expected.imag)


def test_unflatten_cell_is_tensor_unflatten(ms_facts):
    flat = torch.tensor(FLAT)
    for key, value in ms_facts["unflatten"].items():
        dim, sizes = key.split(" ", 1)
        expected = flat.unflatten(int(dim), eval(sizes))  # noqa: S307 - our own literal tuples
        assert np.asarray(value).shape == tuple(expected.shape) and close(value, expected), key


def test_scipy_eigh_is_linalg_eigh_on_cpu(ms_facts):
    values, vectors, upper = ms_facts["eigh"]
    expected = torch.linalg.eigh(torch.tensor(SYMMETRIC))
    assert close(values, expected.eigenvalues, 1e-4) and list(values) == sorted(values)
    assert close(vectors, expected.eigenvectors.abs(), 1e-4)  # up to the sign of each vector
    assert close(upper, torch.linalg.eigh(torch.tensor(SYMMETRIC), UPLO="U").eigenvalues, 1e-4)
    assert not close(upper, values, 1e-4)  # the input's triangles differ: lower=False matters


def test_new_forms(ms_facts):
    like = torch.tensor(REAL[0])
    shape, dtype, empty = ms_facts["new_empty"]
    assert shape == list(like.new(2, 3).shape) and dtype == "Float32" and like.new(2, 3).dtype == torch.float32
    assert empty == list(like.new().shape) == [0]
    assert ms_facts["new_data"] == like.new([1, 2]).tolist()


def test_mechanisms_hold(ms_facts):
    assert ms_facts["is_sparse"] == [torch.tensor(REAL[0]).is_sparse, torch.zeros(3, 4).to_sparse().is_sparse] == [False, True]
    assert ms_facts["lazy_bits"] == [False, False, False, False]
    assert ms_facts["no_grad_on_tensors"] == [False, False, False]
    assert ms_facts["hooks"] == [True, True]
    assert ms_facts["threads"] == "ran" and ms_facts["threads_getter"] == []
    assert ms_facts["missing_on_tensor"] == [False, False, False, False]  # hence the notes, not renames


def test_same_role_mechanisms(ms_facts):
    assert ms_facts["mstx"] == "ran"
    assert ms_facts["all_finite"] == [False, False, True]
    assert ms_facts["stream_on_cpu"].startswith("raised") and ms_facts["stream_ctx"] is True
    assert ms_facts["device_name"] == "CPU"


def test_embedding_bag_is_gather_and_reduce(ms_facts):
    for mode, value in ms_facts["bags"].items():
        bag = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(TABLE), mode=mode)
        assert close(value, bag(torch.tensor(BAGS)).detach()), mode


def test_legacy_sparse_constructor_and_sparse_mm(ms_facts):
    a = torch.sparse.FloatTensor(torch.tensor(SPARSE_INDICES), torch.tensor(SPARSE_VALUES), torch.Size(SPARSE_SHAPE))
    assert close(ms_facts["coo_dense"], a.to_dense())  # COOTensor(indices.T, values, shape)
    assert close(ms_facts["sparse_dense_matmul"], torch.sparse.mm(a, torch.tensor(DENSE)))


def test_private_bases_are_tuples_of_public_layers(ms_facts):
    from torch.nn.modules.batchnorm import _BatchNorm
    from torch.nn.modules.conv import _ConvNd
    from torch.nn.modules.instancenorm import _InstanceNorm
    assert ms_facts["batch_norms"] == [True, True, True, True, False]
    assert ms_facts["batch_norm3d_private_base"] is False  # hence no MindSpore base to test against
    assert ms_facts["instance_norms"] == [True, True, True, False]
    assert ms_facts["convs"] == [True, True, True, True, False]
    # the torch layers each private base covers are the ones the tuples name (lazy variants aside)
    torch_nn = [c for c in vars(torch.nn).values() if isinstance(c, type) and not c.__name__.startswith("Lazy")]
    assert sorted(c.__name__ for c in torch_nn if issubclass(c, _BatchNorm)) == ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]
    assert sorted(c.__name__ for c in torch_nn if issubclass(c, _InstanceNorm)) == ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]
    assert len([c for c in torch_nn if issubclass(c, _ConvNd)]) == 6


def test_process_settings(ms_facts):
    assert ms_facts["set_device"] == "ran" and ms_facts["current_device"] == ["CPU", 0]
    assert ms_facts["export"] is True and torch.onnx.is_in_onnx_export() is False


@pytest.mark.parametrize("torch_api, status, target", [
    ("torch.set_default_device", "divergent", "mindspore.set_device"),
    ("torch.get_default_device", "divergent", "mindspore.get_current_device"),
    ("torch.onnx.is_in_onnx_export", "missing", None),
    ("torch.sparse.FloatTensor", "divergent", "mindspore.COOTensor"),
    ("torch.sparse.mm", "divergent", "mindspore.ops.SparseTensorDenseMatmul"),
    ("torch.nn.modules.batchnorm._BatchNorm", "missing", None),
    ("torch.nn.modules.instancenorm._InstanceNorm", "missing", None),
    ("torch.nn.modules.conv._ConvNd", "missing", None),
    ("torch.profiler.record_function", "divergent", "mindspore.profiler.mstx.range_start"),
    ("torch.cuda.nvtx.range", "divergent", "mindspore.profiler.mstx.range_start"),
    ("torch.autograd.detect_anomaly", "missing", None),
    ("torch.cuda.stream", "divergent", "mindspore.runtime.StreamCtx"),
    ("torch.cuda.get_device_name", "divergent", "mindspore.hal.get_device_name"),
    ("torch.nn.EmbeddingBag", "missing", None),
    ("torch.Tensor.element_size", "divergent", "mindspore.Tensor.itemsize"),
    ("torch.complex", "divergent", "mindspore.ops.Complex"),
    ("torch.view_as_complex", "divergent", "mindspore.ops.Complex"),
    ("torch.Tensor.unflatten", "divergent", "mindspore.nn.Unflatten"),
    ("torch.Tensor.new", "divergent", "mindspore.Tensor.new_empty"),
    ("torch.set_num_threads", "divergent", "mindspore.device_context.cpu.op_tuning.threads_num"),
    ("torch.Tensor.is_sparse", "missing", None),
    ("torch.Tensor.grad", "missing", None),
])
def test_msport_names_the_counterpart(torch_api, status, target):
    verdict = default_knowledge().verdict(torch_api, (2, 10), "ascend")
    assert (verdict.status, verdict.mindspore) == (status, target)
    assert "msport searched" not in verdict.note and verdict.note


def test_eigh_per_backend():
    knowledge = default_knowledge()
    cpu = knowledge.verdict("torch.linalg.eigh", (2, 10), "cpu")
    assert (cpu.status, cpu.mindspore) == ("divergent", "mindspore.scipy.linalg.eigh")
    ascend = knowledge.verdict("torch.linalg.eigh", (2, 10), "ascend")
    assert ascend.status == "missing" and "numpy.linalg.eigh" in ascend.note


def test_every_note_has_its_chinese():
    from msport.knowledge.loader import read_toml
    entries = read_toml(HERE.parents[1] / "rules" / "curated" / "other_names.toml")["api"]
    for entry in entries:
        for item in [entry, *entry.get("targets", [])]:
            if "note" in item:
                assert item.get("note_zh-CN"), entry["torch"]
