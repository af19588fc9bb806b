"""``msport convert-weights`` on real checkpoints (torch.save of real torch models) and a real
MindSpore port: the map it builds, and every kind of bad input, each with a clear error naming the
file and nothing written. All runs share one child process (tests/weights/cli_runner.py)."""

import json
from pathlib import Path

import pytest

from .cli_runner import run_commands

REFERENCE = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.seq = nn.Conv1d(8, 8, 3, padding=1)
        self.norm = nn.LayerNorm(8)
        self.embed = nn.Embedding(num_classes, 8)
        self.head = nn.Linear(8, num_classes, bias=False)
        self.head.weight = self.embed.weight  # tied, as language models do
        self.register_buffer("scale", torch.full((8,), 0.5))

    def forward(self, x):
        x = torch.relu(self.bn(self.conv(x)))
        b, c, h, w = x.shape
        x = self.seq(x.reshape(b, c, h * w)).mean(-1)
        return self.head(self.norm(x) * self.scale)
'''

PORT = '''import mindspore
from mindspore import nn, ops


class Net(nn.Cell):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(8)
        self.seq = nn.Conv1d(8, 8, 3, pad_mode="pad", padding=1, has_bias=True)
        self.norm = nn.LayerNorm((8,), epsilon=1e-5)
        self.embed = nn.Embedding(num_classes, 8)
        self.head = nn.Dense(8, num_classes, has_bias=False)
        self.head.weight = self.embed.embedding_table
        self.scale = ops.full((8,), 0.5, dtype=mindspore.float32)

    def construct(self, x):
        x = ops.relu(self.bn(self.conv(x)))
        b, c, h, w = x.shape
        x = self.seq(x.reshape(b, c, h * w)).mean(-1)
        return self.head(self.norm(x) * self.scale)
'''

#: Checkpoints written by the child before the runs (cwd: the test's folder).
PREPARE = '''
import argparse, sys, torch
sys.path.insert(0, ".")
import reference
net = reference.Net()
state = net.state_dict()
torch.save(state, "good.pth")
torch.save({"epoch": 3, "model_state_dict": state, "optimizer": {"lr": 0.1}}, "training.pth")
torch.save({"module." + k: v for k, v in state.items()}, "parallel.pth")
import appended_reference
torch.save(appended_reference.Net().state_dict(), "appended.pth")
torch.save(reference.Net(num_classes=12).state_dict(), "other_classes.pth")
torch.save({"encoder.weight": torch.zeros(3, 3), "decoder.bias": torch.zeros(3)}, "other_model.pth")
torch.save([torch.zeros(2), torch.ones(2)], "list.pth")
torch.save({"epoch": 3, "lr": 0.1}, "no_tensors.pth")
torch.save(net, "whole_model.pth")
torch.save({"model": state, "args": argparse.Namespace(lr=0.1)}, "with_namespace.pth")
open("text.pth", "w").write("not a checkpoint")
open("empty.pth", "w").close()
'''

AMBIGUOUS = PORT + '''

class Other(nn.Cell):
    def construct(self, x):
        return x
'''

#: Cells appended to CellLists after assignment: MindSpore names their parameters "0.weight" in both.
APPENDED = '''from mindspore import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.encode = nn.CellList()
        self.decode = nn.CellList()
        self.encode.append(nn.Dense(4, 4))
        self.decode.append(nn.Dense(4, 4))

    def construct(self, x):
        return self.decode[0](self.encode[0](x))
'''

APPENDED_REFERENCE = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = nn.ModuleList()
        self.decode = nn.ModuleList()
        self.encode.append(nn.Linear(4, 4))
        self.decode.append(nn.Linear(4, 4))

    def forward(self, x):
        return self.decode[0](self.encode[0](x))
'''

NEEDS_ARGS = PORT.replace("def __init__(self, num_classes=10)", "def __init__(self, num_classes, width)")
BROKEN = PORT.replace("def construct(self, x):", "def construct(self, x)")


def convert(*extra, output="out.ckpt", checkpoint="good.pth", model="port.py"):
    return ["convert-weights", model, checkpoint, "-o", output, *extra]


RUNS = {
    "good": convert("--show-map", output="good.ckpt"),
    "json": convert("--format", "json", output="json.ckpt"),
    "training": convert(checkpoint="training.pth", output="training.ckpt"),
    "parallel": convert(checkpoint="parallel.pth", output="parallel.ckpt"),
    "missing_checkpoint": convert(checkpoint="nowhere.pth"),
    "missing_model": convert(model="nowhere.py"),
    "checkpoint_is_directory": convert(checkpoint="."),
    "broken_model": convert(model="broken.py"),
    "other_classes": convert(checkpoint="other_classes.pth"),
    "other_classes_partial": convert("--partial", checkpoint="other_classes.pth", output="partial.ckpt"),
    "other_model": convert(checkpoint="other_model.pth"),
    "list": convert(checkpoint="list.pth"),
    "no_tensors": convert(checkpoint="no_tensors.pth"),
    "whole_model": convert(checkpoint="whole_model.pth"),
    "namespace_refused": convert(checkpoint="with_namespace.pth"),
    "namespace_trusted": convert("--trust-checkpoint", checkpoint="with_namespace.pth", output="trusted.ckpt"),
    "text": convert(checkpoint="text.pth"),
    "empty": convert(checkpoint="empty.pth"),
    "ambiguous": convert(model="ambiguous.py"),
    "ambiguous_named": convert("--class", "Net", model="ambiguous.py", output="named.ckpt"),
    "unknown_class": convert("--class", "Missing"),
    "needs_args": convert(model="needs_args.py"),
    "bad_args": convert("--args", "{num_classes: 10}"),
    "args": convert("--args", '{"num_classes": 12}', checkpoint="other_classes.pth", output="args.ckpt"),
    "no_output_dir": convert(output="nowhere/out.ckpt"),
    "output_is_input": convert(output="good.pth"),
    "shared_names": convert(model="appended.py", checkpoint="appended.pth"),
    "shared_names_checked": ["port-check", "appended.py", "--reference", "appended_reference.py", "--input", "2,4"],
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("convert")
    for name, text in {"reference.py": REFERENCE, "port.py": PORT, "ambiguous.py": AMBIGUOUS, "needs_args.py": NEEDS_ARGS,
                       "broken.py": BROKEN, "appended.py": APPENDED, "appended_reference.py": APPENDED_REFERENCE}.items():
        Path(folder, name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def results(folder):
    runs = [{"id": "prepare", "cwd": str(folder), "prepare": PREPARE}]
    runs += [{"id": key, "cwd": str(folder), "argv": argv} for key, argv in RUNS.items()]
    results = run_commands(runs)
    assert results["prepare"]["status"] == 0, results["prepare"]
    return results


def error(results, key):
    result = results[key]
    assert result["status"] == 2, result
    assert result["stderr"].startswith("msport: error: "), result
    return result["stderr"]


def test_a_checkpoint_converts_with_the_map_the_port_needs(results, folder):
    result = results["good"]
    assert result["status"] == 0, result
    lines = result["stdout"].splitlines()
    for expected in ("bn.weight (8,) -> bn.gamma (8,)", "bn.running_mean (8,) -> bn.moving_mean (8,)",
                     "bn.running_var (8,) -> bn.moving_variance (8,)", "norm.bias (8,) -> norm.beta (8,)",
                     "embed.weight (10, 8) -> embed.embedding_table (10, 8)", "seq.weight (8, 8, 3) -> seq.weight (8, 8, 1, 3)",
                     "conv.weight (8, 3, 3, 3) -> conv.weight (8, 3, 3, 3)"):
        assert expected in lines, result["stdout"]
    out = result["stdout"]
    assert "loaded with torch.load(weights_only=True)" in out
    assert "bn.num_batches_tracked: left out" in out
    assert "head.weight: the same tensor as embed.weight (tied weights)" in out
    assert "scale: the MindSpore model holds it as a plain tensor (not a Parameter), built with the same value" in out
    assert "wrote good.ckpt: 11 parameters" in out  # head.weight is embed.embedding_table
    assert (folder / "good.ckpt").stat().st_size > 0


def test_json_output_lists_the_map(results):
    report = json.loads(results["json"]["stdout"])
    assert report["ok"] and report["output"] == "json.ckpt"
    rows = {row["torch"]: row for row in report["map"]}
    assert rows["seq.weight"]["torch_shape"] == [8, 8, 3] and rows["seq.weight"]["shape"] == [8, 8, 1, 3]
    assert rows["bn.weight"]["mindspore"] == "bn.gamma"


def test_training_checkpoints_and_wrapped_models_are_read(results, folder):
    assert results["training"]["status"] == 0, results["training"]
    assert "key 'model_state_dict'" in results["training"]["stdout"]
    assert results["parallel"]["status"] == 0, results["parallel"]
    assert "every key starts with 'module.'" in results["parallel"]["stdout"]
    assert (folder / "training.ckpt").is_file() and (folder / "parallel.ckpt").is_file()


@pytest.mark.parametrize("key, expected", [
    ("missing_checkpoint", "nowhere.pth: no such file"),
    ("missing_model", "nowhere.py: no such file"),
    ("checkpoint_is_directory", ".: not a file"),
    ("broken_model", "broken.py:17:27: the model file does not parse"),
    ("list", "list.pth: holds a list of 2 items, not a state dict"),
    ("no_tensors", "no_tensors.pth: holds a mapping with keys 'epoch', 'lr', not a state dict"),
    ("whole_model", "whole_model.pth: not loaded: the file holds Python objects besides tensors"),
    ("namespace_refused", "with_namespace.pth: not loaded: the file holds Python objects besides tensors"),
    ("text", "text.pth: not a PyTorch checkpoint torch.load can read"),
    ("empty", "empty.pth: not a PyTorch checkpoint torch.load can read"),
    ("ambiguous", "ambiguous.py: several MindSpore model classes could be the model (Net, Other); name one with --class"),
    ("unknown_class", "port.py: no class Missing in this file (model classes here: Net)"),
    ("needs_args", "needs_args.py: Net() needs the arguments num_classes, width; give them with --args"),
    ("bad_args", "--args: expected a JSON object"),
    ("no_output_dir", "nowhere/out.ckpt: the output's directory does not exist"),
    ("output_is_input", "good.pth: the output would overwrite the checkpoint it is read from"),
])
def test_bad_input_gets_a_clear_error_naming_the_file(results, key, expected):
    assert expected in error(results, key)


def test_pickled_objects_are_refused_unless_trusted(results, folder):
    message = error(results, "namespace_refused")
    assert "weights_only=True" in message and "--trust-checkpoint" in message and "argparse.Namespace" in message
    trusted = results["namespace_trusted"]
    assert trusted["status"] == 0, trusted
    assert "full unpickling (--trust-checkpoint)" in trusted["stdout"] and (folder / "trusted.ckpt").is_file()


def test_a_checkpoint_of_another_model_is_named_and_nothing_is_written(results, folder):
    message = error(results, "other_model")
    assert "other_model.pth does not match the model port.py (Net): none of its 2 tensors has a place in" in message
    mismatch = error(results, "other_classes")
    assert "embed.weight (12, 8) does not fit the MindSpore parameter embed.embedding_table (10, 8)" in mismatch
    assert "other_classes.pth does not match the model port.py (Net): " in mismatch and "nothing was written" in mismatch
    assert not (folder / "out.ckpt").exists()
    assert not list(folder.glob(".*msport-tmp*")), list(folder.iterdir())


def test_partial_writes_and_lists_what_is_left(results, folder):
    result = results["other_classes_partial"]
    assert result["status"] == 0, result
    assert "msport: warning: embed.weight (12, 8) does not fit" in result["stderr"]
    assert "--partial: written although" in result["stdout"] and (folder / "partial.ckpt").is_file()


def test_constructor_arguments_and_class_choice(results, folder):
    assert results["args"]["status"] == 0, results["args"]
    assert results["ambiguous_named"]["status"] == 0, results["ambiguous_named"]
    assert (folder / "args.ckpt").is_file() and (folder / "named.ckpt").is_file()


def test_parameters_sharing_a_name_are_named_and_the_port_still_checked(results):
    message = error(results, "shared_names")
    assert "0.weight: 2 parameters of the MindSpore model share this name (encode.0.weight, decode.0.weight)" in message
    assert "nn.CellList(layers)" in message
    checked = results["shared_names_checked"]
    assert checked["status"] == 0, checked
    assert "2 parameter names of the MindSpore model are shared" in checked["stdout"] and "the port matches" in checked["stdout"]
