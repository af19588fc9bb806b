"""Facts and verdicts found by the round-7 dev audit (seed 2612, /work/labels/dev/verdicts7-audit.jsonl),
re-measured: MindSpore 2.10 in one child process (ms_audit7.py), torch 2.13 here, on the same
seeded inputs (audit7_inputs.py). Each claim a rule or call form makes is an assertion below; then
msport says it for the call as written."""

import inspect

import numpy as np
import pytest
import torch

from msport.analysis.engine import Analyzer
from msport.analysis.settings import Settings

from .audit7_inputs import BATCH, CUBE, GRID, GRID_FORMS, IMAGE, MATRIX, NORM_CALLS, ROWS, SCALE, TYPE_CLASSES
from .child import measured


@pytest.fixture(scope="module")
def ms_facts():
    return measured("ms_audit7.py")


def findings(text, backend="ascend"):
    settings = Settings().merged({"backend": backend}, "test")
    return Analyzer().analyze(text, settings).findings


def finding_for(text, api, backend="ascend"):
    (found,) = [f for f in findings(text, backend) if f.torch_api == api and f.code.startswith("MS1")]
    return found


def close(a, b, tol=1e-5):
    return np.asarray(a).shape == np.asarray(b).shape and np.allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), atol=tol)


# -- DataLoader's batching keywords ------------------------------------------------------------

def test_dataset_batch_is_dataloaders_batches(ms_facts):
    rows = torch.utils.data.TensorDataset(torch.tensor(ROWS))
    for drop, key in ((False, "batches"), (True, "batches_dropped")):
        expected = [b[0].tolist() for b in torch.utils.data.DataLoader(rows, batch_size=BATCH, drop_last=drop)]
        assert len(ms_facts[key]) == len(expected) and all(close(m, e) for m, e in zip(ms_facts[key], expected)), key


def test_dataloader_keywords_say_what_to_write():
    text = "from torch.utils.data import DataLoader\n\ndef f(ds, bs):\n    return DataLoader(ds, batch_size=bs, drop_last=True, num_workers=4)\n"
    message = finding_for(text, "torch.utils.data.DataLoader").message
    assert ".batch(bs)" in message and "drop_remainder=True" in message and "num_parallel_workers" in message
    assert "reproduce its effect" not in message


# -- Tensor.norm along one dim ---------------------------------------------------------------------

def test_norm_along_one_dim_is_pytorchs(ms_facts):
    for a in (MATRIX, CUBE):
        for call in NORM_CALLS:
            expected = eval(f"torch.tensor(a).norm({call})")  # noqa: S307 - our own literal calls
            assert close(ms_facts["norm"][f"{a.ndim} {call}"], expected, 1e-4), (a.ndim, call)
    assert ms_facts["norm_fro_one_dim"] == "raised TypeError"
    assert close(torch.tensor(MATRIX).norm("fro", dim=1), torch.tensor(MATRIX).norm(2, dim=1))  # hence "write 2"


def test_norm_verdict_follows_the_call():
    head = "import torch\n\ndef f(x):\n    return "
    assert finding_for(head + "x.norm(2, dim=-1)\n", "torch.Tensor.norm").code == "MS103"
    fro = finding_for(head + "x.norm('fro', dim=1)\n", "torch.Tensor.norm")
    assert fro.code == "MS102" and "write 2" in fro.message
    assert finding_for(head + "x.norm()\n", "torch.Tensor.norm").code == "MS102"  # the matrix reading stays


# -- a table's default claim disproved by both packages ----------------------------------------------

def test_grid_sample_and_topk_take_pytorchs_parameters(ms_facts):
    for mode, corners in GRID_FORMS:
        expected = torch.nn.functional.grid_sample(torch.tensor(IMAGE), torch.tensor(GRID), mode=mode, align_corners=corners)
        assert close(ms_facts["grid_sample"][f"{mode} {corners}"], expected), (mode, corners)
    # mint.topk: no CPU kernel, so its verdict stands on its signature: torch's names and defaults
    assert ms_facts["mint_topk_cpu"] == "raised RuntimeError"
    names = [p for p in ms_facts["mint_topk_signature"]]
    assert [n for n, _ in names] == ["input", "k", "dim", "largest", "sorted"]
    assert [d for _, d in names][2:] == ["-1", "True", "True"]
    # torch's default dim (documented None: the last one) is MindSpore's -1
    x = torch.tensor(MATRIX)
    assert all(torch.equal(a, b) for a, b in zip(torch.topk(x, 2), torch.topk(x, 2, dim=-1, largest=True, sorted=True)))


def test_grid_sample_and_topk_are_equivalent_on_ascend():
    head = "import torch\nimport torch.nn.functional as F\n\ndef f(x, g):\n    return "
    topk = finding_for(head + "torch.topk(x, k=4)\n", "torch.topk")
    assert (topk.code, topk.mindspore_api) == ("MS103", "mindspore.mint.topk")
    assert all(fix.safety == "unsafe" for fix in topk.fixes)  # no CPU run backs a safe rename
    grid = finding_for(head + "F.grid_sample(x, g, align_corners=False)\n", "torch.nn.functional.grid_sample")
    assert (grid.code, grid.mindspore_api) == ("MS103", "mindspore.mint.nn.functional.grid_sample")
    # on CPU, mint.topk has no kernel: ops.topk, whose int32 indices are the divergence
    cpu = finding_for(head + "torch.topk(x, k=4)\n", "torch.topk", backend="cpu")
    assert cpu.code == "MS102" and "int32" in cpu.message


# -- the legacy tensor-type classes used as a type ---------------------------------------------------

def test_type_class_as_a_type_is_astype(ms_facts):
    for name, dtype in TYPE_CLASSES.items():
        expected = torch.tensor(ROWS).type(getattr(torch, name))
        got_dtype, got = ms_facts["astype"][name]
        assert got_dtype.lower().rstrip("_") == str(expected.dtype).replace("torch.", "").rstrip("_"), name
        assert close(got, expected.float() if name == "BoolTensor" else expected, 1e-2), name
        message = finding_for(f"import torch\n\ndef f(x):\n    return x.type(torch.{name})\n", f"torch.{name}").message
        assert f"x.type(torch.{name}) is x.astype(mindspore.{dtype})" in message


# -- calls that are not the torch API their name suggests -------------------------------------------

def test_a_class_shadowing_its_import_is_the_modules_own():
    # denoising_diffusion_pytorch: `from torch.utils.data import Dataset` then `class Dataset(Dataset)`
    text = ("from torch.utils.data import Dataset\n\nclass Dataset(Dataset):\n    def __init__(self, folder, flip=False):\n"
            "        super().__init__()\n\nclass Trainer:\n    def __init__(self, folder):\n        self.ds = Dataset(folder, flip=True)\n")
    found = [f for f in findings(text) if f.torch_api == "torch.utils.data.Dataset"]
    assert [f.span.start_line for f in found] == [2]  # the base class, not the call of the subclass


def test_a_layers_own_attribute_is_no_module_method():
    # cogdl: `self.cpu = cpu` in __init__, then `if self.cpu` in a method of the model
    text = ("import torch\nfrom torch import nn\n\nclass M(nn.Module):\n    def __init__(self, cpu=False):\n"
            "        super().__init__()\n        self.cpu = cpu\n\n    def run(self):\n        return 'cpu' if self.cpu else 'cuda'\n")
    assert not [f for f in findings(text) if f.torch_api == "torch.nn.Module.cpu"]
    without = text.replace("        self.cpu = cpu\n", "        self.on_cpu = cpu\n").replace("if self.cpu", "if self.cpu()")
    assert [f for f in findings(without) if f.torch_api == "torch.nn.Module.cpu"]


# -- init functions: the tensor they fill and a symmetric range --------------------------------------

def test_symmetric_uniform_is_uniform_scale(ms_facts):
    low, high = ms_facts["uniform_range"]
    assert -SCALE <= low < -0.9 * SCALE and 0.9 * SCALE < high <= SCALE  # [-scale, scale]: uniform_(a=-s, b=s)
    head = "import torch\nfrom torch import nn\n\ndef f(w, r):\n    "
    symmetric = finding_for(head + "nn.init.uniform_(tensor=w, a=-r, b=r)\n", "torch.nn.init.uniform_")
    assert "has no parameter" not in symmetric.message
    one_sided = finding_for(head + "nn.init.uniform_(w, a=0.5, b=r)\n", "torch.nn.init.uniform_")
    assert "has no parameter a" in one_sided.message  # [0.5, r] is no Uniform(scale)


def test_to_a_tensor_the_scope_knows_is_equivalent():
    # mmpose rtmo_head: `center, scale = bbox_cs.split(2, dim=-1)` then `dim_t.to(scale)`; the run of
    # x.to(y) on both packages is tests/equivalence/test_measured_forms.py's "other tensor"
    text = ("import torch\n\ndef f(bbox_cs: torch.Tensor, dim_t: torch.Tensor, d):\n"
            "    center, scale = bbox_cs.split(2, dim=-1)\n    a = dim_t.to(scale)\n    b = dim_t.to(d)\n    return a, b\n")
    found = {f.span.start_line: f for f in findings(text) if f.torch_api == "torch.Tensor.to"}
    assert found[4].code == "MS103" and "takes another tensor" in found[4].message
    assert found[5].code == "MS102" and "where d holds a device" in found[5].message  # d may be a device


def test_input_and_gradient_keywords_say_what_to_write():
    # cogdl: torch.sparse_coo_tensor(..., size=...), DataLoader(dataset=...); higher: autograd.grad(outputs=, inputs=, create_graph=)
    text = ("import torch\nfrom torch.utils.data import DataLoader\n\ndef f(i, v, s, ds, loss, x):\n"
            "    a = torch.sparse_coo_tensor(indices=i, values=v, size=s)\n    b = DataLoader(dataset=ds)\n"
            "    g = torch.autograd.grad(outputs=loss, inputs=x, create_graph=True)\n    return a, b, g\n")
    coo = finding_for(text, "torch.sparse_coo_tensor").message
    loader = finding_for(text, "torch.utils.data.DataLoader").message
    grad = finding_for(text, "torch.autograd.grad").message
    assert "pass shape=s" in coo and "pass source=ds" in loader
    assert "fn of the tensors to differentiate" in grad and "grad_position" in grad and "drop create_graph=True" in grad
    assert "reproduce" not in coo + loader + grad


def test_numpys_axis_alias_is_dim(ms_facts):
    m, c = torch.tensor(MATRIX), torch.tensor(CUBE)
    expected = {"cat": torch.cat([m, m], axis=1), "sum": torch.sum(m, axis=0), "mean": torch.mean(c, axis=2)}
    for name, value in expected.items():
        assert close(ms_facts["dim_for_axis"][name], value), name
    found = finding_for("import torch\n\ndef f(x, y):\n    return torch.cat([x, y], axis=1)\n", "torch.cat")
    assert "pass dim=1" in found.message and "reproduce" not in found.message
