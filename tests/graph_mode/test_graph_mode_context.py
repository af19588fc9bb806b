"""Where graph-mode rules apply and how severe they are: compiled code only, one step lower in
model code msport sees no caller of, nothing in PyNative mode but jit code, the capture mode of
a function's jit decorator, PyTorch code judged as the construct it becomes; the settings notice
for jit-level O2; the quick fixes' safety."""

import pytest

from msport.analysis import Settings
from msport.analysis.fixes import apply_fix
from msport.analysis.setting_notices import setting_notices
from msport.knowledge import default_knowledge
from msport.knowledge.cards import finding_card

MS = "import mindspore as ms\nfrom mindspore import nn, ops\n\n"
TRY = "    try:\n        y = x * 2\n    except ValueError:\n        y = x\n    return y\n"


def graph_findings(analyze, text, **settings):
    return [f for f in analyze(text, **settings) if f.code.startswith("MS4")]


def only(findings):
    assert len(findings) == 1, [f"{f.code} {f.message}" for f in findings]
    return findings[0]


def test_construct_is_compiled_and_an_unseen_helper_is_one_step_lower(analyze):
    text = MS + f"class Net(nn.Cell):\n    def construct(self, x):\n{TRY.replace('    ', '        ')}\n\ndef helper(x):\n    x = ops.relu(x)\n{TRY}"
    findings = graph_findings(analyze, text)
    by_line = {f.span.start_line: f for f in findings}
    construct = by_line[text.split("\n").index("        try:")]
    helper = by_line[text.split("\n").index("    try:")]
    assert construct.severity.value == "error" and "which is compiled as a graph" in construct.message
    assert helper.severity.value == "warning" and "no caller msport can see" in helper.message
    assert "Unsupported statement 'Try'" in construct.message and "Instead:" in construct.message


def test_pynative_mode_compiles_only_jit_code(analyze):
    text = MS + f"class Net(nn.Cell):\n    def construct(self, x):\n{TRY.replace('    ', '        ')}\n\n@ms.jit\ndef step(x):\n{TRY}"
    findings = graph_findings(analyze, text, mode="pynative")
    assert [f.span.start_line for f in findings] == [text.split("\n").index("    try:")]
    assert len(graph_findings(analyze, text)) == 2


def test_code_run_in_python_is_exempt(analyze):
    text = MS + (
        "class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n"
        "        try:\n            import scipy\n        except ImportError:\n            scipy = None\n\n"
        "    def construct(self, x):\n        return x\n\n"
        "    def reset(self):\n        import math\n        return math.pi\n\n"
        "try:\n    net = Net()\nexcept RuntimeError:\n    net = None\n"
    )
    assert graph_findings(analyze, text) == []


@pytest.mark.parametrize("decorator, severity, words", [
    ("@ms.jit", "error", "Unsupported statement 'Try'"),
    ("@ms.jit(capture_mode=\"bytecode\")", "info", "graph break"),
    ("@ms.jit(capture_mode=\"bytecode\", fullgraph=True)", None, None),  # try is captured whole
])
def test_the_capture_mode_of_the_jit_decorator_sets_the_severity(analyze, decorator, severity, words):
    text = MS + f"{decorator}\ndef step(x):\n{TRY}"
    findings = graph_findings(analyze, text)
    if severity is None:
        assert findings == []
        return
    finding = only(findings)
    assert finding.severity.value == severity and words in finding.message


def test_fullgraph_refuses_what_bytecode_splits_out(analyze):
    text = MS + "@ms.jit(capture_mode=\"bytecode\", fullgraph=True)\ndef step(x):\n    import math\n    return x * math.pi\n"
    finding = only(graph_findings(analyze, text))
    assert finding.severity.value == "error" and "fullgraph=True" in finding.message


def test_pytorch_forward_is_judged_as_the_construct_it_becomes(analyze):
    text = "import torch\nfrom torch import nn\n\nclass Net(nn.Module):\n    def forward(self, x):\n        with torch.no_grad():\n            y = x * 2\n        return y\n"
    finding = only(graph_findings(analyze, text))
    assert finding.code == "MS404" and "becomes part of construct after the port" in finding.message


def test_forward_inputs_only_tested_are_flags_not_tensors(analyze):
    text = "import torch\nfrom torch import nn\n\nclass Loss(nn.Module):\n    def forward(self, pred, target, stage, epoch=None):\n" \
           "        loss = 0\n        if epoch > 10 and stage == 'train':\n            pred = pred * 2\n" \
           "        if pred.sum() > 0:\n            loss = loss + pred.mean()\n        return loss\n"
    finding = only(graph_findings(analyze, text))
    assert finding.code == "MS412" and "`loss` is a tensor on one side and a Python number" in finding.message


@pytest.mark.parametrize("version, expected", [("2.8", ["MS420"]), ("2.10", ["MS420", "MS420"])])
def test_deprecated_jit_settings_follow_the_target_version(analyze, version, expected):
    text = MS + "config = ms.JitConfig(jit_level=\"O2\")\n\n@ms.jit(jit_level=\"O2\")\ndef step(x):\n    return x\n"
    findings = graph_findings(analyze, text, target_version=version)
    assert sorted(f.code for f in findings) == expected
    assert any(f.severity.value == "error" and "accepts only O0 and O1" in f.message for f in findings)


@pytest.mark.parametrize("version, words", [("2.2", "does not select whole-graph sinking"), ("2.5", None), ("2.10", "deprecated from MindSpore 2.9")])
def test_jit_level_o2_setting_is_read_against_the_target_version(version, words):
    settings = Settings().merged({"jit-level": "O2", "target-version": version}, "pyproject.toml")
    notices = setting_notices(settings)
    if words is None:
        assert notices == []
    else:
        (notice,) = notices
        assert notice.origin == "pyproject.toml" and notice.key == "jit-level" and words in notice.message
    assert setting_notices(Settings()) == []


@pytest.mark.parametrize("version, severity, words", [
    ("2.2", "warning", None), ("2.8", "error", "(jit_level O2)"), ("2.10", "error", "deprecated from MindSpore 2.9"),
])
def test_dynamic_shape_messages_name_o2_sinking_where_it_exists(analyze, version, severity, words):
    text = MS + "@ms.jit\ndef f(x):\n    return ops.masked_select(x, x > 0)\n"
    (finding,) = [f for f in analyze(text, target_version=version, jit_level="O2") if f.code == "MS201"]
    assert finding.severity.value == severity
    if words is None:
        assert "O2" not in finding.message
    else:
        assert words in finding.message


def test_moving_an_import_of_a_project_module_is_unsafe_and_a_lone_import_leaves_pass(analyze):
    from msport.analysis import Analyzer

    text = MS + "@ms.jit\ndef f(x):\n    from .helpers import scale\n    return scale(x)\n\n@ms.jit\ndef g(x):\n    import math\n\n"
    result = Analyzer().analyze(text, Settings())
    fixes = {f.span.start_line: f.fixes[0] for f in result.findings if f.code == "MS401"}
    project, stdlib = fixes[text.split("\n").index("    from .helpers import scale")], fixes[text.split("\n").index("    import math")]
    assert project.safety.value == "unsafe" and "circular import" in project.title
    assert stdlib.safety.value == "safe"
    fixed = apply_fix(text, result.complete(stdlib))
    assert fixed.startswith("import mindspore as ms\nfrom mindspore import nn, ops\nimport math\n")
    assert "def g(x):\n    pass\n" in fixed


def test_hover_card_says_why_and_shows_code_that_compiles(analyze):
    knowledge = default_knowledge()
    text = MS + f"@ms.jit\ndef step(x):\n{TRY}"
    card = finding_card(knowledge, only(graph_findings(analyze, text)))
    info = knowledge.codes["MS401"]
    assert card.startswith("**MS401 unsupported-statement** (error)")
    assert info.why.split(".")[0] in card and "**Example that compiles:**" in card and info.use_instead.split("\n")[0] in card
    assert "docs/rules/MS401.md" in card
