"""The divergences msport's rules state, measured: real torch 2.13 and mindspore 2.10 on CPU.

MindSpore runs once, in a child process (ms_divergences.py), so that its import and its
global state stay out of this process; torch runs here. Each test shows the divergence under
PyTorch's and MindSpore's defaults and, where the rule's note gives one, that the fix it
names makes the two agree.
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from msport.knowledge import default_knowledge

from .inputs import INPUTS

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def ms():
    done = subprocess.run([sys.executable, str(HERE / "ms_divergences.py")], cwd=HERE, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return {k: v if "shape" in k else np.asarray(v) if isinstance(v, list) else v for k, v in json.loads(done.stdout).items()}


def t(name):
    return torch.from_numpy(INPUTS[name].copy())


def note(name, target):
    """The note msport gives for *name* -> *target* (some version and backend that uses it)."""
    rule = default_knowledge().lookup(name)
    notes = [tg.note for tg in rule.targets if tg.mindspore == target and tg.status == "divergent"]
    assert notes, f"{name}: no divergent target {target}"
    return notes[0]


def test_gelu_tanh_approximation(ms):
    expected = torch.nn.GELU()(t("wide")).numpy()
    gap = np.abs(ms["gelu_default"] - expected).max()
    assert 1e-4 < gap < 1e-3  # measured 2.3e-4
    assert np.abs(ms["gelu_exact"] - expected).max() < 1e-6
    assert "approximate=False" in note("torch.nn.GELU", "mindspore.nn.GELU")


@pytest.mark.parametrize("fn", ["std", "var"])
def test_std_var_population_estimate(ms, fn):
    expected = float(getattr(torch, fn)(t("sample")))
    assert abs(float(ms[f"{fn}_default"]) - expected) > 2e-3  # 0.0044 / 0.0077 here; 0.0073 / 0.0137 in REFERENCE.md
    # Exactly the population estimate: divided by n instead of n - 1 (n = 100).
    ratio = (99 / 100) ** (0.5 if fn == "std" else 1)
    assert float(ms[f"{fn}_default"]) == pytest.approx(expected * ratio, rel=1e-5)
    assert abs(float(ms[f"{fn}_ddof1"]) - expected) < 1e-5
    assert "ddof=1" in note(f"torch.{fn}", f"mindspore.ops.{fn}")


def test_leaky_relu_slope(ms):
    x = t("wide")
    assert ms["leaky_default"][0] == pytest.approx(-4 * 0.2)
    assert float(torch.nn.LeakyReLU()(x)[0]) == pytest.approx(-4 * 0.01)
    assert np.allclose(ms["leaky_alpha"], torch.nn.LeakyReLU()(x).numpy())
    assert "alpha=0.01" in note("torch.nn.LeakyReLU", "mindspore.nn.LeakyReLU")


def test_layer_norm_epsilon(ms):
    expected = torch.nn.LayerNorm(8)(t("flat_rows")).detach().numpy()
    assert np.abs(ms["layernorm_default"] - expected).max() > 0.5  # measured up to 1.21
    assert np.abs(ms["layernorm_eps"] - expected).max() < 1e-4
    assert "epsilon=1e-5" in note("torch.nn.LayerNorm", "mindspore.nn.LayerNorm")


def test_flatten_start_dim(ms):
    assert list(torch.flatten(t("cube")).shape) == [24]
    assert ms["flatten_shape"] == [2, 12]
    assert ms["flatten_start0_shape"] == [24]
    assert "start_dim" in note("torch.flatten", "mindspore.ops.flatten")


def test_unique_is_not_sorted(ms):
    assert torch.unique(t("repeats")).tolist() == [1, 2, 3]
    assert ms["unique"].tolist() == [3, 1, 2]
    assert "not sorted" in note("torch.unique", "mindspore.ops.unique")


def test_max_skips_nan(ms):
    values = torch.max(t("with_nan"), dim=1).values
    assert torch.isnan(values[0]) and float(values[1]) == 6.0
    assert ms["max_nan"].tolist() == [3.0, 6.0]
    assert "NaN" in note("torch.max", "mindspore.ops.max")


def test_dropout_first_parameter_is_keep_prob(ms):
    layer = torch.nn.Dropout(0.2).train()
    torch.manual_seed(0)
    dropped = layer(t("ones"))
    assert 0.15 < float((dropped == 0).float().mean()) < 0.25
    assert 0.75 < ms["dropout_zero_fraction"] < 0.85 and ms["dropout_kept_value"] == pytest.approx(5.0)
    assert "keep_prob" in note("torch.nn.Dropout", "mindspore.nn.Dropout")


def test_conv2d_same_padding_and_no_bias(ms):
    conv = torch.nn.Conv2d(3, 4, 3)
    assert list(conv(t("image")).shape) == [1, 4, 6, 6] and conv.bias is not None
    assert ms["conv_shape"] == [1, 4, 8, 8] and ms["conv_has_bias"] is False
    assert ms["conv_pad_shape"] == [1, 4, 6, 6]
    text = note("torch.nn.Conv2d", "mindspore.nn.Conv2d")
    assert "pad_mode='pad'" in text and "has_bias=True" in text


def test_maxpool2d_stride_defaults_to_one(ms):
    assert list(torch.nn.MaxPool2d(2)(t("image")).shape) == [1, 3, 4, 4]
    assert ms["maxpool_shape"] == [1, 3, 7, 7]
    assert ms["maxpool_stride_shape"] == [1, 3, 4, 4]
    assert "stride=kernel_size" in note("torch.nn.MaxPool2d", "mindspore.nn.MaxPool2d")


def test_meshgrid_indexing(ms):
    grid = torch.meshgrid(t("axis3"), t("axis5"), indexing="ij")[0]
    assert list(grid.shape) == [3, 5]
    assert ms["meshgrid_shape"] == [5, 3] and ms["meshgrid_ij_shape"] == [3, 5]
    assert "indexing='ij'" in note("torch.meshgrid", "mindspore.ops.meshgrid")


def test_svd_returns_s_first(ms):
    u, s, v = torch.svd(t("matrix"))
    assert [list(u.shape), list(s.shape), list(v.shape)] == [[4, 3], [3], [3, 3]]
    assert ms["svd_shapes"] == [[3], [4, 3], [3, 3]]
    assert np.allclose(ms["svd_first"], s.numpy(), atol=1e-5)
    assert "(S, U, V)" in note("torch.svd", "mindspore.ops.svd")
