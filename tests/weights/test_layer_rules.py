"""Every layer of rules/weights.toml, proven: real PyTorch weights of the PyTorch layer, converted
by msport, make the real MindSpore layer compute what the PyTorch layer computes (PyNative and
graph mode, CPU, within 1e-5).

Each case is a pair of one-layer models run through ``msport port-check`` (which converts the
PyTorch model's weights, with BatchNorm running statistics drawn at random, exactly as
``convert-weights`` does); all cases run in one child process. A layer with no CPU kernel in
MindSpore 2.10 (``proof = "load"``) cannot run here: its case converts a saved PyTorch checkpoint
with ``convert-weights`` (which loads the result back into the model, strictly) and checks that
every PyTorch tensor went to the parameter the rule names, with its shape."""

import json
from pathlib import Path

import pytest

from msport.knowledge.weights import default_weight_rules

from .cli_runner import run_commands

#: MindSpore class -> (PyTorch layer, MindSpore layer, input shapes, how the layer is called).
#: Layers whose output is a tuple (recurrent layers) are compared on every element.
CASES = {
    "mindspore.nn.Dense": ("nn.Linear(4, 3)", "nn.Dense(4, 3)", ["2,4"]),
    "mindspore.mint.nn.Linear": ("nn.Linear(4, 3)", "mint.nn.Linear(4, 3)", ["2,4"]),
    "mindspore.nn.BiDense": ("nn.Bilinear(4, 3, 2)", "nn.BiDense(4, 3, 2)", ["2,4", "2,3"], "self.layer(x, y)"),
    "mindspore.nn.Conv1d": ("nn.Conv1d(4, 3, 3, padding=1)", "nn.Conv1d(4, 3, 3, pad_mode='pad', padding=1, has_bias=True)", ["2,4,9"]),
    "mindspore.mint.nn.Conv1d": ("nn.Conv1d(4, 3, 3, padding=1)", "mint.nn.Conv1d(4, 3, 3, padding=1)", ["2,4,9"]),
    "mindspore.nn.Conv2d": ("nn.Conv2d(4, 3, 3, padding=1)", "nn.Conv2d(4, 3, 3, pad_mode='pad', padding=1, has_bias=True)", ["2,4,6,6"]),
    "mindspore.mint.nn.Conv2d": ("nn.Conv2d(4, 3, 3, padding=1)", "mint.nn.Conv2d(4, 3, 3, padding=1)", ["2,4,6,6"]),
    "mindspore.nn.Conv3d": ("nn.Conv3d(2, 3, 3)", "nn.Conv3d(2, 3, 3, pad_mode='valid', has_bias=True)", ["1,2,5,5,5"]),
    "mindspore.mint.nn.Conv3d": ("nn.Conv3d(2, 3, 3)", "mint.nn.Conv3d(2, 3, 3)", ["1,2,5,5,5"]),
    "mindspore.nn.Conv1dTranspose": ("nn.ConvTranspose1d(4, 3, 3, stride=2)", "nn.Conv1dTranspose(4, 3, 3, stride=2, pad_mode='valid', has_bias=True)", ["2,4,7"]),
    "mindspore.nn.Conv2dTranspose": ("nn.ConvTranspose2d(4, 3, 3, stride=2)", "nn.Conv2dTranspose(4, 3, 3, stride=2, pad_mode='valid', has_bias=True)", ["2,4,5,5"]),
    "mindspore.mint.nn.ConvTranspose2d": ("nn.ConvTranspose2d(4, 3, 3, stride=2)", "mint.nn.ConvTranspose2d(4, 3, 3, stride=2)", ["2,4,5,5"]),
    "mindspore.nn.BatchNorm1d": ("nn.BatchNorm1d(4)", "nn.BatchNorm1d(4)", ["3,4"]),
    "mindspore.nn.BatchNorm2d": ("nn.BatchNorm2d(4)", "nn.BatchNorm2d(4)", ["2,4,5,5"]),
    "mindspore.nn.BatchNorm3d": ("nn.BatchNorm3d(4)", "nn.BatchNorm3d(4)", ["2,4,3,3,3"]),
    "mindspore.mint.nn.BatchNorm1d": ("nn.BatchNorm1d(4)", "mint.nn.BatchNorm1d(4)", ["3,4"]),
    "mindspore.mint.nn.BatchNorm2d": ("nn.BatchNorm2d(4)", "mint.nn.BatchNorm2d(4)", ["2,4,5,5"]),
    "mindspore.mint.nn.BatchNorm3d": ("nn.BatchNorm3d(4)", "mint.nn.BatchNorm3d(4)", ["2,4,3,3,3"]),
    "mindspore.nn.LayerNorm": ("nn.LayerNorm(4)", "nn.LayerNorm((4,), epsilon=1e-5)", ["2,3,4"]),
    "mindspore.mint.nn.LayerNorm": ("nn.LayerNorm(4)", "mint.nn.LayerNorm(4)", ["2,3,4"]),
    "mindspore.nn.GroupNorm": ("nn.GroupNorm(2, 4)", "nn.GroupNorm(2, 4)", ["2,4,3,3"]),
    "mindspore.mint.nn.GroupNorm": ("nn.GroupNorm(2, 4)", "mint.nn.GroupNorm(2, 4)", ["2,4,3,3"]),
    "mindspore.nn.InstanceNorm1d": ("nn.InstanceNorm1d(4, affine=True)", "nn.InstanceNorm1d(4)", ["2,4,6"]),
    "mindspore.nn.InstanceNorm2d": ("nn.InstanceNorm2d(4, affine=True)", "nn.InstanceNorm2d(4)", ["2,4,5,5"]),
    "mindspore.nn.Embedding": ("nn.Embedding(10, 4)", "nn.Embedding(10, 4)", ["2,5:int64:10"]),
    "mindspore.mint.nn.Embedding": ("nn.Embedding(10, 4)", "mint.nn.Embedding(10, 4)", ["2,5:int64:10"]),
    "mindspore.nn.PReLU": ("nn.PReLU(4)", "nn.PReLU(4)", ["2,4,3,3"]),
    "mindspore.mint.nn.PReLU": ("nn.PReLU(4)", "mint.nn.PReLU(4)", ["2,4,3,3"]),
    "mindspore.nn.LSTM": ("nn.LSTM(4, 3, num_layers=2, bidirectional=True, batch_first=True)",
                          "nn.LSTM(4, 3, num_layers=2, bidirectional=True, batch_first=True)", ["2,5,4"]),
    "mindspore.nn.GRU": ("nn.GRU(4, 3, batch_first=True)", "nn.GRU(4, 3, batch_first=True)", ["2,5,4"]),
    "mindspore.nn.RNN": ("nn.RNN(4, 3, batch_first=True)", "nn.RNN(4, 3, batch_first=True)", ["2,5,4"]),
    "mindspore.nn.LSTMCell": ("nn.LSTMCell(4, 3)", "nn.LSTMCell(4, 3)", ["2,4", "2,3", "2,3"], "self.layer(x, (y, z))"),
    "mindspore.nn.GRUCell": ("nn.GRUCell(4, 3)", "nn.GRUCell(4, 3)", ["2,4", "2,3"], "self.layer(x, y)"),
    "mindspore.nn.MultiheadAttention": ("nn.MultiheadAttention(8, 2, batch_first=True)", "nn.MultiheadAttention(8, 2, batch_first=True)",
                                        ["2,5,8"], "self.layer(x, x, x)[0]"),
    "mindspore.nn.TransformerEncoderLayer": ("nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)",
                                             "nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)", ["2,5,8"]),
    "mindspore.nn.TransformerDecoderLayer": ("nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)",
                                             "nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)", ["2,5,8", "2,4,8"],
                                             "self.layer(x, y)"),
}

TORCH = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = {layer}

    def forward(self, {params}):
        return {call}
'''

MINDSPORE = '''import mindspore
from mindspore import mint, nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layer = {layer}

    def construct(self, {params}):
        return {call}
'''


SAVE = """
import importlib.util, torch
spec = importlib.util.spec_from_file_location("reference", "reference.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
torch.save(module.Net().state_dict(), "reference.pth")
"""

RULES = default_weight_rules().layers
BY_OUTPUTS = sorted(name for name, layer in RULES.items() if layer.proof == "outputs")
BY_LOADING = sorted(name for name, layer in RULES.items() if layer.proof == "load")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    runs = []
    for name, case in CASES.items():
        torch_layer, ms_layer, inputs = case[:3]
        call = case[3] if len(case) > 3 else "self.layer(x)"
        params = ", ".join("xyz"[: len(inputs)])
        folder = tmp_path_factory.mktemp(name.replace(".", "_"))
        Path(folder, "reference.py").write_text(TORCH.format(layer=torch_layer, params=params, call=call), encoding="utf-8")
        Path(folder, "port.py").write_text(MINDSPORE.format(layer=ms_layer, params=params, call=call), encoding="utf-8")
        if name in BY_LOADING:
            argv = ["convert-weights", "port.py", "reference.pth", "-o", "port.ckpt", "--format", "json"]
            runs.append({"id": name, "cwd": str(folder), "prepare": SAVE, "argv": argv})
            continue
        argv = ["port-check", str(folder / "port.py"), "--reference", str(folder / "reference.py"), "--format", "json"]
        for spec in inputs:
            argv += ["--input", spec]
        runs.append({"id": name, "argv": argv})
    return run_commands(runs)


def test_every_layer_rule_has_a_proof():
    assert set(RULES) == set(CASES)
    assert not default_weight_rules().problems


@pytest.mark.parametrize("name", BY_OUTPUTS)
def test_converted_weights_make_the_mindspore_layer_compute_the_same(results, name):
    result = results[name]
    assert result["status"] == 0, result["stdout"] + result["stderr"]
    report = json.loads(result["stdout"])
    assert report["ok"] and {row["mode"] for row in report["rows"]} == {"pynative", "graph"}, report
    assert all(row["difference"] <= 1e-5 for row in report["rows"]), report


@pytest.mark.parametrize("name", BY_LOADING)
def test_layers_without_a_cpu_kernel_load_every_tensor_where_the_rule_says(results, name):
    result = results[name]
    assert result["status"] == 0, result["stdout"] + result["stderr"]
    report = json.loads(result["stdout"])
    layer = RULES[name]
    assert report["ok"] and not report["problems"], report
    converted = {row["torch"]: row for row in report["map"] if row["torch"]}
    for row in converted.values():
        torch_key = row["torch"].split(".", 1)[1]  # below `layer.`
        attribute = row["mindspore"].split(".", 1)[1]
        assert layer.torch_key(attribute) == torch_key, row
        assert row["torch_shape"] == row["shape"] or layer.reshape_of(attribute), row
    kept = [row["mindspore"].split(".", 1)[1] for row in report["map"] if row["kept"]]
    assert set(kept) <= set(layer.unused), kept
    assert converted, report
