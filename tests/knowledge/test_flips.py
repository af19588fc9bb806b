"""The verdict follows the facts across versions and backends: one test per kind of change."""

import subprocess
import sys

import pytest

from msport.knowledge import default_knowledge
from msport.knowledge.cards import api_card

from . import snapshots


def verdict(name, version, backend="ascend"):
    return default_knowledge().verdict(name, version, backend)


def test_mint_target_from_2_5_on():
    """The tables switch torch.nn.GELU to mint.nn.GELU in 2.5; before, nn.GELU with its tanh default."""
    before, after = verdict("torch.nn.GELU", (2, 4)), verdict("torch.nn.GELU", (2, 5))
    assert (before.status, before.mindspore) == ("divergent", "mindspore.nn.GELU")
    assert "approximate=False" in before.note
    assert (after.status, after.mindspore) == ("equivalent", "mindspore.mint.nn.GELU")


def test_pre_2_5_targets_stay_valid_where_they_still_exist():
    """Dropped from the tables in 2.5, but mindspore.ops.bucketize exists in every snapshot."""
    for version in [(2, 2), (2, 6), (2, 10)]:
        assert verdict("torch.bucketize", version).mindspore == "mindspore.ops.bucketize"


def test_api_added_in_a_later_release():
    """mindspore.mint.vdot first appears in the 2.10 snapshot."""
    assert "mindspore.mint.vdot" not in snapshots.mindspore((2, 9)) and "mindspore.mint.vdot" in snapshots.mindspore((2, 10))
    old, new = verdict("torch.vdot", (2, 9)), verdict("torch.vdot", (2, 10))
    assert new.mindspore == "mindspore.mint.vdot" and new.status != "missing"
    assert old.mindspore != "mindspore.mint.vdot"


def test_parameter_renamed_between_releases():
    """Tensor.permute's varargs are *axis in 2.7 and *dims (PyTorch's name) from 2.8 on."""
    old, new = verdict("torch.Tensor.permute", (2, 7)), verdict("torch.Tensor.permute", (2, 8))
    assert old.status == "divergent" and ("dims", "axis") in old.renames and "2.7" in old.note
    assert new.status == "equivalent"


def test_missing_everywhere_is_inferred_from_the_torch_snapshot():
    v = verdict("torch.take_along_dim", (2, 10))
    assert v.status == "missing" and v.rule.basis == "inferred"
    assert "searched mindspore.mint" in v.note and "ops.Custom" in v.note and "compose" in v.note


def test_missing_in_old_versions_points_to_where_it_exists():
    v = verdict("torch.vdot", (2, 4))
    assert v.status == "missing" and "2.10" in (v.available_elsewhere or "")


def test_no_cpu_kernel_falls_back_to_the_ops_or_nn_target():
    """mint.nn.GELU has no CPU kernel (probe): on CPU the nn.GELU target, with its divergence."""
    assert snapshots.cpu_kernels()["mindspore.mint.nn.functional.gelu"] == "no_kernel"
    ascend, cpu = verdict("torch.nn.GELU", (2, 10), "ascend"), verdict("torch.nn.GELU", (2, 10), "cpu")
    assert ascend.mindspore == "mindspore.mint.nn.GELU"
    assert (cpu.status, cpu.mindspore) == ("divergent", "mindspore.nn.GELU")
    std = verdict("torch.std", (2, 10), "cpu")
    assert std.mindspore == "mindspore.ops.std" and "ddof=1" in std.note


GRAPH_PROBE = """
import mindspore as ms, numpy as np
from mindspore import mint, ops
ms.set_device("CPU")
x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
for name, fn in [("mint.diff", mint.diff), ("ops.diff", ops.diff)]:
    print(name, "pynative", fn(x).shape)
    try:
        print(name, "jit", ms.jit(fn)(x).shape)
    except RuntimeError as exc:
        print(name, "jit", "Unsupported op [Narrow] on CPU" in str(exc))
"""


def test_no_cpu_kernel_in_graph_mode_falls_back_too():
    """mint.diff runs in PyNative on CPU, but compiled (msport's default mode) its Narrow op has
    no CPU kernel: the probe records it, and on CPU the verdict is ops.diff."""
    assert snapshots.cpu_kernels()["mindspore.mint.diff"] == "no_kernel"
    assert verdict("torch.diff", (2, 10), "ascend").mindspore == "mindspore.mint.diff"
    assert verdict("torch.diff", (2, 10), "cpu").mindspore == "mindspore.ops.diff"
    card = api_card(default_knowledge(), "torch.diff", (2, 10), "cpu")
    assert "| `mindspore.mint.diff` | 2.5-2.10 | equivalent | yes    | yes | no  |" in card
    assert "no kernel, in PyNative or compiled (graph mode" in card  # what the "no" stands on
    done = subprocess.run([sys.executable, "-c", GRAPH_PROBE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:4] == ["mint.diff pynative (3, 3)", "mint.diff jit True", "ops.diff pynative (3, 3)", "ops.diff jit (3, 3)"]


def test_targets_without_cpu_kernel_are_never_offered_on_cpu():
    kernels = snapshots.cpu_kernels()
    offered = [
        (rule.torch, t.mindspore) for rule in set(default_knowledge().apis.values()) for t in rule.targets
        if t.mindspore and "cpu" in t.backends and kernels.get(t.mindspore) == "no_kernel"
    ]
    assert offered == []


@pytest.mark.parametrize("backend", ["ascend", "gpu", "cpu"])
def test_every_rule_has_a_verdict_for_every_version_and_backend(backend):
    kb = default_knowledge()
    for rule in set(kb.apis.values()):
        for minor in range(2, 11):
            v = kb.verdict(rule.torch, (2, minor), backend)
            assert v.status in ("equivalent", "divergent", "missing")
            assert v.status == "equivalent" or v.note or v.available_elsewhere, (rule.torch, minor, backend)
