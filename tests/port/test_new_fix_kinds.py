"""End to end, the fix kinds added after the dev-model evaluation (/work/port-eval/dev): three
small real-style models (a SqueezeNet-style classifier, a compact super-resolution generator,
a fused-projection attention block, in tests/port/models/) go through msport's fix-all (safe and
unsafe fixes, backend cpu) with no edit by hand, then run beside their PyTorch originals with
the PyTorch instance's weights converted: every output within 1e-5 in PyNative and graph mode
(``msport port-check``), batch norms trained two steps with equal outputs and moving statistics,
and ``msport convert-weights`` writing a checkpoint. One child process runs every command.

The fix kinds: max pools with ceil_mode or padding get pad_mode='pad'; BatchNorm's momentum in
MindSpore's convention (0.9 for the default, 1 - m for a number); LayerNorm sized by a variable,
interpolate scaled by a variable and Conv padded by a variable, fixed unsafely with the assumption
named; Tensor.chunk's dim= as axis= on CPU (no compiled kernel with dim=); Tensor.std without
unbiased=/correction= gets ddof=1 (PyTorch's unbiased estimate); nn.ModuleList(<generator>)
becomes CellList([...]) (CellList raises TypeError on a generator)."""

import json
import shutil
from pathlib import Path

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.findings import Safety
from msport.analysis.fixes import apply_fix, fix_all

from weights.cli_runner import run_commands  # tests/ is on the path (conftest.py)

MODELS = Path(__file__).parent / "models"
SETTINGS = Settings().merged({"backend": "cpu"}, "test")

#: model -> (class, port-check inputs)
CLASSES = {
    "squeeze_net": ("SqueezeNet", ["2,3,37,37"]),  # 37 -> 18 -> ceil_mode rounds 7.5 up
    "compact_sr": ("CompactSR", ["1,3,6,6"]),
    "fused_attention": ("Block", ["2,5,16"]),
}

#: (model, text the fix writes, its safety, words of its unsafe reason)
FIXES = [
    # In an nn.Sequential: unsafe until the container is ported (fix-all ports it in the same pass).
    ("squeeze_net", "nn.MaxPool2d(kernel_size=3, stride=2, ceil_mode=True, pad_mode='pad')", Safety.UNSAFE, "torch container"),
    ("squeeze_net", "nn.MaxPool2d(3, 2, padding=1, pad_mode='pad')", Safety.SAFE, ""),
    ("squeeze_net", "nn.BatchNorm2d(16, momentum=0.9)", Safety.UNSAFE, "torch container"),
    ("squeeze_net", "nn.BatchNorm2d(squeeze, momentum=0.97)", Safety.SAFE, ""),
    ("squeeze_net", "kernel_size=3, padding=pad, pad_mode='pad'", Safety.UNSAFE, "assumes pad is an int or a tuple"),
    ("compact_sr", "scale_factor=float(self.scale)", Safety.UNSAFE, "assumes self.scale is one number"),
    ("compact_sr", "x.std(axis=1, keepdims=True, ddof=1)", Safety.UNSAFE, ""),
    ("fused_attention", "nn.LayerNorm((dim,), epsilon=1e-5)", Safety.UNSAFE, "assumes dim is an int"),
    ("fused_attention", ".chunk(3, axis=-1)", Safety.UNSAFE, ""),
    ("fused_attention", "CellList([", Safety.UNSAFE, ""),
]

TRAIN = """
import importlib.util, json, sys
from pathlib import Path
import numpy as np, torch, mindspore as ms
from msport.weights.convert import map_model, parameters_for

def load(name):
    spec = importlib.util.spec_from_file_location(f"squeeze_{name}", Path(name + ".py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # graph mode reads the cell's module by name
    spec.loader.exec_module(module)
    return module

reference, port = load("reference"), load("port")
x = np.random.default_rng(0).standard_normal((4, 3, 37, 37)).astype(np.float32) * 2 + 1
report = {}
for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
    ms.set_context(mode=mode)
    torch.manual_seed(0)
    t = reference.SqueezeNet()
    m = port.SqueezeNet()
    ms.load_param_into_net(m, parameters_for(map_model(m, "SqueezeNet", t.state_dict(), Path("t.pth"), Path("port.py"), partial=False)))
    t.train()
    m.set_train(True)
    outputs = 0.0
    for step in range(2):
        outputs = max(outputs, float(np.abs(t(torch.tensor(x)).detach().numpy() - m(ms.Tensor(x)).asnumpy()).max()))
    stats = max(float(np.abs(t.stem[1].running_mean.numpy() - m.stem[1].moving_mean.asnumpy()).max()),
                float(np.abs(t.stem[1].running_var.numpy() - m.stem[1].moving_variance.asnumpy()).max()),
                float(np.abs(t.block1.norm.running_var.numpy() - m.block1.norm.moving_variance.asnumpy()).max()))
    moved = float(np.abs(t.block1.norm.running_mean.numpy()).max())
    report["graph" if mode == ms.GRAPH_MODE else "pynative"] = {"outputs": outputs, "statistics": stats, "moved": moved}
ms.set_context(mode=ms.PYNATIVE_MODE)
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    """model -> (folder, the text after fix-all)."""
    out = {}
    for model in CLASSES:
        folder = tmp_path_factory.mktemp(model)
        shutil.copy(MODELS / f"{model}.py", folder / "reference.py")
        text = fix_all((MODELS / f"{model}.py").read_text(encoding="utf-8"), SETTINGS, unsafe=True).text
        (folder / "port.py").write_text(text, encoding="utf-8")
        out[model] = (folder, text)
    return out


@pytest.fixture(scope="module")
def runs(ported):
    commands = []
    for model, (name, inputs) in CLASSES.items():
        argv = ["port-check", "port.py", "--reference", "reference.py", "--class", name, "--format", "json"]
        for spec in inputs:
            argv += ["--input", spec]
        commands.append({"id": model, "cwd": str(ported[model][0]), "argv": argv})
    folder = str(ported["squeeze_net"][0])
    commands.append({"id": "train", "cwd": folder, "prepare": TRAIN})
    save = ("import sys, torch\nsys.path.insert(0, '.')\nimport reference\ntorch.manual_seed(0)\n"
            "torch.save(reference.SqueezeNet().state_dict(), 'squeeze.pth')\n")
    commands.append({"id": "convert", "cwd": folder, "prepare": save, "argv": ["convert-weights", "port.py", "squeeze.pth", "-o", "squeeze.ckpt"]})
    return run_commands(commands)


@pytest.mark.parametrize("model", sorted(CLASSES))
def test_fix_all_leaves_no_finding_and_no_torch(ported, model):
    text = ported[model][1]
    findings = Analyzer().analyze(text, SETTINGS).findings
    assert not findings, [f"{f.span.start_line + 1}: {f.message}" for f in findings]
    assert "torch" not in text, text


@pytest.mark.parametrize("model,written,safety,reason", FIXES, ids=[f"{m}:{w}" for m, w, _, _ in FIXES])
def test_each_new_fix_is_offered_with_its_safety(ported, model, written, safety, reason):
    assert written in ported[model][1]
    source = (MODELS / f"{model}.py").read_text(encoding="utf-8")
    # The layer's arguments as written (the module's spelling, ms.nn or nn, comes from the rebind).
    tail = written.split("(", 1)[1] if written.startswith("nn.") else written
    offered = [fix for finding in Analyzer().analyze(source, SETTINGS).findings for fix in finding.fixes
               if tail in apply_fix(source, fix) and tail not in source]
    assert offered, f"no fix of {model} writes {written}"
    fix = offered[0]
    assert fix.safety == safety, (fix.title, fix.reason)
    assert reason in fix.reason
    if safety == Safety.UNSAFE:
        assert fix.reason, fix.title


@pytest.mark.parametrize("model", sorted(CLASSES))
def test_the_port_computes_what_the_torch_model_computes(runs, model):
    result = runs[model]
    assert result["status"] == 0, result["stdout"] + result["stderr"]
    report = json.loads(result["stdout"])
    assert report["ok"] and {row["mode"] for row in report["rows"]} == {"pynative", "graph"}, report
    assert max(row["difference"] for row in report["rows"]) <= 1e-5, report


def test_batch_norms_train_alike_in_both_modes(runs):
    result = runs["train"]
    assert result["status"] == 0, result["stderr"]
    report = json.loads(result["stdout"].strip().splitlines()[-1])
    assert set(report) == {"pynative", "graph"}
    for mode, row in report.items():
        assert row["outputs"] <= 1e-4 and row["statistics"] <= 1e-5, (mode, row)
        assert row["moved"] > 1e-3, (mode, row)  # the statistics did move: momentum was exercised


def test_the_checkpoint_converts_without_a_hand_written_map(runs, ported):
    result = runs["convert"]
    assert result["status"] == 0, result
    assert "wrote squeeze.ckpt" in result["stdout"]
    assert (ported["squeeze_net"][0] / "squeeze.ckpt").is_file()
