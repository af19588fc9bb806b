"""End to end, as a user ports a model: msport's fix-all (safe and unsafe fixes, backend cpu), the
edits msport leaves to the user (each on a line it reported, except those listed as untold, with
why), fix-all once more (the torch imports the edits freed go, `nn` is rebound), then the weights
of a PyTorch instance converted and both models run on the same input: every output within 1e-5
in PyNative and graph mode on CPU (``msport port-check``), and ``msport convert-weights`` writing a
checkpoint the MindSpore model loads. Four small real-style models: a ResNet-style classifier,
a GPT, a DCGAN pair and a speech encoder (Conv1d + BiLSTM), in tests/port/models/.

The finishing edits are what msport 's findings asked for once fix-all ran; where msport learns to
fix one of them, the edit's old text is gone and the edit is skipped (the test keeps passing and
counts fewer edits)."""

import json
import re
import shutil
from pathlib import Path

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.fixes import fix_all

from weights.cli_runner import run_commands  # tests/ is on the path (conftest.py)

MODELS = Path(__file__).parent / "models"
SETTINGS = Settings().merged({"backend": "cpu"}, "test")

#: model -> {class: inputs}
CLASSES = {
    "cnn_classifier": {"ResNet": ["2,3,16,16"]},
    "gpt": {"GPT": ["2,16:int64:100"]},
    "dcgan": {"Generator": ["2,16,1,1"], "Discriminator": ["2,3,16,16"]},
    "speech_encoder": {"SpeechEncoder": ["2,30,20"]},
}

#: The edits left to the user after fix-all: (text after fix-all, text the user writes). Layer
#: constructor arguments (MS102: Conv padding and bias, LayerNorm epsilon, GELU's approximation...).
FINISH = {
    "cnn_classifier": [
        ("nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)",
         "ms.nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, pad_mode='pad', padding=1, has_bias=False)"),
        ("self.bn1 = nn.BatchNorm2d(planes)", "self.bn1 = ms.nn.BatchNorm2d(planes)"),
        ("nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)",
         "ms.nn.Conv2d(planes, planes, kernel_size=3, stride=1, pad_mode='pad', padding=1, has_bias=False)"),
        ("self.bn2 = nn.BatchNorm2d(planes)", "self.bn2 = ms.nn.BatchNorm2d(planes)"),
        ("nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False)",
         "ms.nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, has_bias=False)"),
        ("                nn.BatchNorm2d(planes),", "                ms.nn.BatchNorm2d(planes),"),
        ("nn.Conv2d(3, width, kernel_size=3, stride=1, padding=1, bias=False)",
         "ms.nn.Conv2d(3, width, kernel_size=3, stride=1, pad_mode='pad', padding=1, has_bias=False)"),
        ("self.bn1 = nn.BatchNorm2d(width)", "self.bn1 = ms.nn.BatchNorm2d(width)"),
    ],
    "gpt": [
        ("nn.GELU()", "ms.nn.GELU(approximate=False)"),
        ("self.ln_1 = nn.LayerNorm(n_embd)", "self.ln_1 = ms.nn.LayerNorm((n_embd,), epsilon=1e-5)"),
        ("self.ln_2 = nn.LayerNorm(n_embd)", "self.ln_2 = ms.nn.LayerNorm((n_embd,), epsilon=1e-5)"),
        # nn.Embedding is fix-all's now (form embedding-lookup); its text stays, `nn` rebound to MindSpore's.
        ("self.ln_f = nn.LayerNorm(n_embd)", "self.ln_f = ms.nn.LayerNorm((n_embd,), epsilon=1e-5)"),
    ],
    "dcgan": [
        ("nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False)", "ms.nn.Conv2dTranspose(nz, ngf * 4, 4, 1, pad_mode='valid')"),
        ("nn.BatchNorm2d(ngf * 4)", "ms.nn.BatchNorm2d(ngf * 4)"),
        ("nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False)", "ms.nn.Conv2dTranspose(ngf * 4, ngf * 2, 4, 2, pad_mode='pad', padding=1)"),
        ("            nn.BatchNorm2d(ngf * 2),\n            ms.mint.nn.ReLU", "            ms.nn.BatchNorm2d(ngf * 2),\n            ms.mint.nn.ReLU"),
        ("nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False)", "ms.nn.Conv2dTranspose(ngf * 2, nc, 4, 2, pad_mode='pad', padding=1)"),
        ("nn.Conv2d(nc, ndf, 4, 2, 1, bias=False)", "ms.nn.Conv2d(nc, ndf, 4, 2, pad_mode='pad', padding=1)"),
        ("nn.LeakyReLU(0.2, inplace=True),\n            nn.Conv2d", "ms.nn.LeakyReLU(0.2),\n            nn.Conv2d"),
        ("nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False)", "ms.nn.Conv2d(ndf, ndf * 2, 4, 2, pad_mode='pad', padding=1)"),
        ("            nn.BatchNorm2d(ndf * 2),", "            ms.nn.BatchNorm2d(ndf * 2),"),
        ("nn.LeakyReLU(0.2, inplace=True),\n            nn.Conv2d(ndf * 2", "ms.nn.LeakyReLU(0.2),\n            nn.Conv2d(ndf * 2"),
        ("nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False)", "ms.nn.Conv2d(ndf * 2, 1, 4, 1, pad_mode='valid')"),
        ("nn.Sigmoid()", "ms.nn.Sigmoid()"),
        # Untold: the edits below are on lines msport did not report (see UNTOLD).
        ("ms.mint.nn.ReLU(True)", "ms.mint.nn.ReLU()"),
        ("ms.mint.nn.ReLU(True)", "ms.mint.nn.ReLU()"),
        ("    elif classname.find(\"BatchNorm\") != -1:\n        m.weight.set_data(ms_init.initializer(ms_init.Normal(mean=1.0, sigma=0.02), m.weight.shape, m.weight.dtype))\n"
         "        m.bias.set_data(ms_init.initializer(ms_init.Constant(value=0), m.bias.shape, m.bias.dtype))",
         "    elif classname.find(\"BatchNorm\") != -1:\n        m.gamma.set_data(ms_init.initializer(ms_init.Normal(mean=1.0, sigma=0.02), m.gamma.shape, m.gamma.dtype))\n"
         "        m.beta.set_data(ms_init.initializer(ms_init.Constant(value=0), m.beta.shape, m.beta.dtype))"),
    ],
    "speech_encoder": [
        ("nn.Conv1d(n_mels, channels, kernel_size=5, padding=2)", "ms.nn.Conv1d(n_mels, channels, kernel_size=5, pad_mode='pad', padding=2, has_bias=True)"),
        ("nn.BatchNorm1d(channels)", "ms.nn.BatchNorm1d(channels)"),
        ("nn.LayerNorm(2 * hidden)", "ms.nn.LayerNorm((2 * hidden,), epsilon=1e-5)"),
    ],
}

#: Edits msport gave no finding for: (model, the old text) -> why msport cannot see it yet.
UNTOLD = {
    ("dcgan", "ms.mint.nn.ReLU(True)"): "the rename of nn.ReLU(True) keeps the positional inplace flag mint.nn.ReLU rejects (issue 14's call-form verdicts)",
    ("dcgan", "    elif classname.find(\"BatchNorm\") != -1:"): "the layer is chosen by its class name as a string, which no analysis can follow",
}


def _findings(text):
    return Analyzer().analyze(text, SETTINGS).findings


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    """model -> (folder, the file after the whole port, edits made, edits told, fix-all's second pass)."""
    out = {}
    for model in CLASSES:
        folder = tmp_path_factory.mktemp(model)
        shutil.copy(MODELS / f"{model}.py", folder / "reference.py")
        text = fix_all((MODELS / f"{model}.py").read_text(encoding="utf-8"), SETTINGS, unsafe=True).text
        reported = {f.span.start_line for f in _findings(text)}
        made, told = [], []
        for old, new in FINISH[model]:
            # The old text as written (`nn.BatchNorm2d(...)`, not inside `ms.mint.nn.BatchNorm2d(...)`).
            found = re.search(r"(?<![\w.])" + re.escape(old), text)
            if found is None:
                continue  # msport fixes it now
            start = found.start()
            line = text.count("\n", 0, start)
            made.append(old)
            if line in reported:
                told.append(old)
            text = text[:start] + new + text[start + len(old):]
        second = fix_all(text, SETTINGS, unsafe=True)
        (folder / "port.py").write_text(second.text, encoding="utf-8")
        out[model] = (folder, second.text, made, told, second)
    return out


@pytest.fixture(scope="module")
def checks(ported):
    runs = []
    for model, classes in CLASSES.items():
        folder = ported[model][0]
        for name, inputs in classes.items():
            argv = ["port-check", "port.py", "--reference", "reference.py", "--class", name, "--format", "json"]
            for spec in inputs:
                argv += ["--input", spec]
            runs.append({"id": f"{model}.{name}", "cwd": str(folder), "argv": argv})
    folder = ported["speech_encoder"][0]
    save = ("import sys, torch\nsys.path.insert(0, '.')\nimport reference\ntorch.manual_seed(0)\n"
            "torch.save(reference.SpeechEncoder().state_dict(), 'speech.pth')\n")
    runs.append({"id": "convert", "cwd": str(folder), "prepare": save, "argv": ["convert-weights", "port.py", "speech.pth", "-o", "speech.ckpt"]})
    return run_commands(runs)


@pytest.mark.parametrize("model", sorted(CLASSES))
def test_the_port_leaves_no_finding_and_no_torch(ported, model):
    text = ported[model][1]
    assert not _findings(text), [f"{f.span.start_line + 1}: {f.message}" for f in _findings(text)]
    assert "torch" not in text.replace("torch.nn.functional.scaled_dot_product_attention composed", ""), text
    assert "from mindspore import nn" in text  # the freed `nn` names MindSpore's module


@pytest.mark.parametrize("model", sorted(CLASSES))
def test_every_edit_left_to_the_user_was_reported(ported, model):
    made, told = ported[model][2], ported[model][3]
    untold = [old for old in made if old not in told]
    unexplained = [old for old in untold if not any(key[0] == model and old.startswith(key[1]) for key in UNTOLD)]
    assert not unexplained, f"{model}: msport said nothing about: {unexplained}"


@pytest.mark.parametrize("run", sorted(f"{m}.{c}" for m, classes in CLASSES.items() for c in classes))
def test_the_ported_model_computes_what_the_torch_model_computes(checks, run):
    result = checks[run]
    assert result["status"] == 0, result["stdout"] + result["stderr"]
    report = json.loads(result["stdout"])
    assert report["ok"] and {row["mode"] for row in report["rows"]} == {"pynative", "graph"}, report
    assert max(row["difference"] for row in report["rows"]) <= 1e-5, report


def test_weights_of_a_torch_checkpoint_convert_without_a_hand_written_map(checks, ported):
    result = checks["convert"]
    assert result["status"] == 0, result
    assert "wrote speech.ckpt" in result["stdout"] and "front.norm.num_batches_tracked: left out" in result["stdout"]
    assert (ported["speech_encoder"][0] / "speech.ckpt").is_file()
