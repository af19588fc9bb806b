"""End to end, the fix kinds added for the gaps the port's second evaluation left (issue 17, third
round): a pooled image encoder written for PyTorch (tests/port/models/pooled_encoder.py) goes
through msport's fix-all (safe and unsafe fixes, backend cpu) with no edit by hand, then runs
beside its PyTorch original with the PyTorch instance's weights converted: every output within
1e-5 in PyNative and graph mode (``msport port-check``), and ``msport convert-weights`` writes a
checkpoint. One child process runs every command.

The fix kinds: `nn.Module.__init__(self)` names the Cell; an activation class handed on as a
default argument (`activation=nn.LeakyReLU`, `nn.GELU`) is bound to PyTorch's default with
functools.partial; `y.extend(<generator reading y>)` in compiled code is written out as a loop
(MS409: compiled, the generator is consumed before the list grows); `.max(dim=...).values`,
`.min(dim=...).values`, `.topk(...).values` and `.indices` index the tuple MindSpore returns;
F.normalize on CPU calls a helper composed of MindSpore operators; torch.log_softmax's dim is
MindSpore's axis; nn.Embedding on CPU is mindspore.nn.Embedding with padding_idx by keyword.

Then, on every test model: fix-all never leaves a PyTorch idiom without a finding (the issue's
"findings lost by a fix"), including what fix-all leaves on MindSpore objects (`.values` on a
MindSpore tensor's max)."""

import json
import re
from pathlib import Path

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.findings import Safety
from msport.analysis.fixes import apply_fix, fix_all

from port.porting import port_model  # tests/ is on the path (conftest.py)
from weights.cli_runner import run_commands

MODELS = Path(__file__).parent / "models"
SETTINGS = Settings().merged({"backend": "cpu"}, "test")
MODEL = "pooled_encoder"

#: (text a fix writes, the API of the finding it fixes, its safety)
FIXES = [
    ("nn.Cell.__init__(self)", "torch.nn.Module", Safety.SAFE),
    ("functools.partial(nn.LeakyReLU, alpha=0.01)", "torch.nn.LeakyReLU", Safety.SAFE),
    ("functools.partial(nn.GELU, approximate=False)", "torch.nn.GELU", Safety.SAFE),
    ("flat.max(dim=2)[0]", "torch.Tensor.max", Safety.SAFE),
    ("flat.min(dim=2)[0]", "torch.Tensor.min", Safety.SAFE),
    ("flat.topk(2, dim=2)[0]", "torch.Tensor.topk", Safety.SAFE),
    ("flat.max(dim=2)[1]", "torch.Tensor.max", Safety.SAFE),
    ("functional_normalize(z, p=2, dim=1)", "torch.nn.functional.normalize", Safety.SAFE),
    # Form renamed-keyword: tools/prove_callforms.py runs torch.log_softmax(x, dim=-1) against
    # ops.log_softmax(x, axis=-1) (rules/proven_callforms.toml), and it runs here end to end.
    ("ops.log_softmax(z, axis=-1)", "torch.log_softmax", Safety.SAFE),
    # Form embedding-lookup: proven by tools/prove_callforms.py on integer indices (positional and
    # keyword shapes, rules/proven_callforms.toml), and run here end to end.
    ("nn.Embedding(20, c, padding_idx=0)", "torch.nn.Embedding", Safety.SAFE),
]

#: PyTorch idioms that fail or differ on MindSpore: after fix-all, a line still holding one must
#: still have a finding. Import lines are left out (an import still used is not an idiom).
IDIOMS = [r"\btorch\.", r"\.size\(", r"\.detach\(\)", r"\.named_(parameters|modules|children)\(", r"\)\.(values|indices)\b",
          r"\.cuda\(", r"\.cpu\(\)", r"\.to\(", r"\.repeat\(", r"\.[a-z]+_\(", r"\bF\.normalize\(", r"\.Module\b",
          r"\.extend\(\(?[\w.]+\(.*\bfor\b", r"super\(\)\.__init__\(.*\belementwise_affine=", r"\.is_cuda\b", r"\.device\.type\b", r"\.add_module\("]


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    folder = tmp_path_factory.mktemp(MODEL)
    text = port_model(folder, MODEL)
    return folder, text


@pytest.fixture(scope="module")
def runs(ported):
    folder = str(ported[0])
    save = ("import sys, torch\nsys.path.insert(0, '.')\nimport reference\ntorch.manual_seed(0)\n"
            "torch.save(reference.Encoder().state_dict(), 'encoder.pth')\n")
    lazy = ("from pathlib import Path\n"
            "Path('lazy_ref.py').write_text('import torch.nn as nn\\n\\n\\nclass Head(nn.Module):\\n    def __init__(self):\\n"
            "        super().__init__()\\n        self.fc = nn.LazyLinear(3)\\n\\n    def forward(self, x):\\n        return self.fc(x)\\n')\n"
            "Path('lazy_port.py').write_text('import mindspore as ms\\n\\n\\nclass Head(ms.nn.Cell):\\n    def __init__(self):\\n"
            "        super().__init__()\\n        self.fc = ms.mint.nn.Linear(4, 3)\\n\\n    def construct(self, x):\\n        return self.fc(x)\\n')\n")
    return run_commands([
        {"id": "lazy", "cwd": folder, "prepare": lazy, "argv": ["port-check", "lazy_port.py", "--reference", "lazy_ref.py", "--input", "2,4"]},
        {"id": "check", "cwd": folder, "argv": ["port-check", "port.py", "--reference", "reference.py", "--class", "Encoder",
                                                "--input", "2,3,8,8", "--input", "2,5:int64:20", "--format", "json"]},
        {"id": "convert", "cwd": folder, "prepare": save, "argv": ["convert-weights", "port.py", "encoder.pth", "-o", "encoder.ckpt"]},
        {"id": "normalize", "cwd": folder, "prepare": NORMALIZE},
    ])


#: The F.normalize helper the fix adds (as written into the port) against torch, for every order
#: of norm and axis a call can pass: the fix is safe for any p, so every kind of p is run.
NORMALIZE = """import sys, numpy as np, torch, mindspore as ms
sys.path.insert(0, '.')
from port import functional_normalize
x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
x[0, 0] = 0.0  # a zero vector: eps decides
worst = 0.0
for p in (1, 2, 3, 0.5, float('inf')):
    for dim in (0, 1, -1):
        want = torch.nn.functional.normalize(torch.tensor(x), p=p, dim=dim).numpy()
        got = functional_normalize(ms.Tensor(x), p=p, dim=dim).asnumpy()
        worst = max(worst, float(np.abs(want - got).max()))
print('max difference', worst)
"""


def test_fix_all_leaves_no_finding_and_no_torch(ported):
    text = ported[1]
    findings = Analyzer().analyze(text, SETTINGS).findings
    assert not findings, [f"{f.span.start_line + 1}: {f.message}" for f in findings]
    assert not re.search(r"^\s*(import|from) torch|\btorch\.(?!nn\.functional\.normalize composed)", text, re.M), text
    assert "y.extend" not in text and "y.append(self.pool(y[-1]))" in text  # the pyramid's loop written out


@pytest.mark.parametrize("written,api,safety", FIXES, ids=[w for w, _, _ in FIXES])
def test_each_new_fix_is_offered_with_its_safety(ported, written, api, safety):
    assert written in ported[1]
    source = (MODELS / f"{MODEL}.py").read_text(encoding="utf-8")
    tail = written.split("nn.", 1)[1] if written.startswith(("nn.", "functools")) else written
    offered = [(finding, fix) for finding in Analyzer().analyze(source, SETTINGS).findings for fix in finding.fixes
               if tail.split("(")[0] in apply_fix(source, fix) and finding.torch_api == api]
    assert offered, f"no fix on {api} writes {written}"
    assert any(fix.safety == safety for _, fix in offered), [(f.title, f.safety) for _, f in offered]


def test_the_port_computes_what_the_torch_model_computes(runs):
    result = runs["check"]
    assert result["status"] == 0, result["stdout"] + result["stderr"]
    report = json.loads(result["stdout"])
    assert report["ok"] and {row["mode"] for row in report["rows"]} == {"pynative", "graph"}, report
    assert len(report["rows"]) == 6, report  # three outputs, two modes
    assert max(row["difference"] for row in report["rows"]) <= 1e-5, report


def test_the_checkpoint_converts_without_a_hand_written_map(runs, ported):
    result = runs["convert"]
    assert result["status"] == 0, result
    assert "wrote encoder.ckpt" in result["stdout"]
    # BatchNorm2d(affine=False): MindSpore builds gamma and beta frozen at 1 and 0 (kornia's HardNet).
    assert "stem.norm.gamma: kept at its initial value" in result["stdout"] + result["stderr"], result
    assert (ported[0] / "encoder.ckpt").is_file()


def test_the_normalize_helper_equals_torch_for_every_p(runs):
    result = runs["normalize"]
    assert result["status"] == 0, result
    worst = float(result["stdout"].split("max difference")[1])
    assert worst <= 1e-5, result["stdout"]


CELL = """import mindspore as ms


class Pool(ms.nn.Cell):
    def construct(self, t):
        a = t.max(dim=1).values
        b = t.min(1).values
        return a, b, t.max(dim=1)[0]
"""


@pytest.mark.parametrize("language,words", [("en", "`.max(...).values` is PyTorch's spelling, left from the port"),
                                            ("zh-CN", "`.max(...).values` 是 PyTorch 的写法")])
def test_a_field_read_off_a_mindspore_result_keeps_its_finding(language, words):
    """What fix-all leaves once the class is a Cell: the method exists in MindSpore, its result has
    no .values. Fixed only with dim= by keyword (compiled, x.min(1) gives the values alone)."""
    settings = Settings().merged({"backend": "cpu", "language": language}, "test")
    findings = sorted(Analyzer().analyze(CELL, settings).findings, key=lambda f: f.span.start_line)
    assert [(f.span.start_line + 1, f.code, f.torch_api) for f in findings] == [
        (6, "MS102", "torch.Tensor.max"), (7, "MS102", "torch.Tensor.min")]
    assert words in findings[0].message
    assert [f.safety for f in findings[0].fixes] == [Safety.SAFE]
    assert apply_fix(CELL, findings[0].fixes[0]).splitlines()[5].strip() == "a = t.max(dim=1)[0]"
    assert not findings[1].fixes


@pytest.mark.parametrize("model", sorted(p.stem for p in MODELS.glob("*.py")))
def test_fix_all_loses_no_finding_while_its_cause_remains(model):
    text = fix_all((MODELS / f"{model}.py").read_text(encoding="utf-8"), SETTINGS, unsafe=True).text
    flagged = {f.span.start_line for f in Analyzer().analyze(text, SETTINGS).findings}
    lost = []
    for number, line in enumerate(text.splitlines()):
        code = line.split("#", 1)[0]
        if code.lstrip().startswith(("import ", "from ", '"', "'")):
            continue
        lost += [f"{number + 1}: {line.strip()} ({idiom})" for idiom in IDIOMS if re.search(idiom, code) and number not in flagged]
    assert not lost, lost


def test_a_lazy_reference_is_a_clear_error_not_a_crash(runs):
    result = runs["lazy"]
    assert result["status"] == 2, result
    assert "fc.weight: the PyTorch layer is lazy" in result["stderr"], result
    assert "Traceback" not in result["stderr"], result


def test_one_pass_never_binds_one_name_to_two_modules():
    """mindspore.nn.Cell and mindspore.mint.nn.Linear in a file that binds no `nn`: both renames
    would import an `nn` (torch_geometric writes torch.nn.Module and torch.nn.Linear in full)."""
    source = ("import torch\n\n\nclass Lin(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
              "        self.lin = torch.nn.Linear(4, 3)\n\n    def forward(self, x):\n        return self.lin(x)\n")
    text = fix_all(source, SETTINGS, unsafe=True).text
    imports = [line for line in text.splitlines() if re.match(r"(from \S+ )?import .*\bnn\b", line)]
    assert len(imports) <= 1, text
    assert not Analyzer().analyze(text, SETTINGS).findings, text


def test_a_parenthesised_argument_is_rewritten_whole():
    """`torch.arange((maxlen), ..., device=X.device)` over two lines (d2l's sequence_mask): the
    rewrite spans the call's own parentheses, so the result parses and the fix is applied."""
    source = ("import torch\n\n\ndef f(X, valid_len):\n    maxlen = X.shape[1]\n"
              "    mask = torch.arange((maxlen), dtype=torch.float32,\n                        device=X.device)[None, :] < valid_len[:, None]\n"
              "    return mask\n")
    result = fix_all(source, SETTINGS, unsafe=True)
    assert not result.rejected, result.rejected
    assert "arange(maxlen, dtype=ms.float32)[None, :]" in result.text, result.text
