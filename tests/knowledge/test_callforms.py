"""Verdicts per call: the finding, its message and its fix follow the call as written.

Each case is a call pattern seen in the dev projects (activation layers built with inplace=True,
creation functions given device= or sizes one by one, legacy loss keywords, int scale factors,
layers placed in nn.Sequential...). What the rewritten calls compute is run on the real
packages in tests/equivalence/test_callforms.py; here: which form msport sees, what it says and
what its fix writes."""

from pathlib import Path

import pytest

from msport.analysis.fixes import apply_fix
from msport.knowledge.callforms import load_callforms
from msport.knowledge.loader import rules_dir

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def judged(analyze, body, api, backend="cpu"):
    """(finding for *api* in the snippet, the snippet after its first fix or None)."""
    from msport.analysis import Analyzer, Settings

    text = HEADER + body
    settings = Settings().merged({"backend": backend}, "test")
    result = Analyzer().analyze(text, settings)
    (finding,) = [f for f in result.findings if f.torch_api == api]
    fixed = apply_fix(text, result.complete(finding.fixes[0]))[len(HEADER):] if finding.fixes else None
    return finding, fixed


def test_the_bundled_call_forms_load_without_a_problem():
    forms = load_callforms()
    assert forms.problems == ()
    assert len(forms.forms) >= 30 and forms.proven


def test_a_plain_call_has_no_call_form(analyze):
    finding, fixed = judged(analyze, "act = nn.ReLU()\n", "torch.nn.ReLU")
    assert finding.code == "MS103" and "As written" not in finding.message
    assert fixed.strip().endswith("nn.ReLU()") and "mint" in fixed


def test_relu_inplace_is_dropped_and_proven(analyze):
    finding, fixed = judged(analyze, "act = nn.ReLU(inplace=True)\n", "torch.nn.ReLU")
    assert finding.code == "MS103" and "inplace=True" in finding.message
    assert finding.fixes[0].safety == "safe", finding.fixes[0].title
    assert "ReLU()" in fixed and "inplace" not in fixed


def test_sizes_one_by_one_become_a_tuple_and_device_is_dropped(analyze):
    finding, fixed = judged(analyze, "def f(x):\n    return torch.zeros(2, 3, device=x.device)\n", "torch.zeros")
    assert finding.code == "MS103" and "device=x.device" in finding.message and "one tuple" in finding.message
    assert "zeros((2, 3))" in fixed


def test_requires_grad_true_has_no_counterpart_in_a_creation_function(analyze):
    finding, _ = judged(analyze, "w = torch.ones(3, requires_grad=True)\n", "torch.ones")
    assert finding.code == "MS102" and "Parameter" in finding.message and not finding.fixes


def test_out_is_reported_with_what_to_write(analyze):
    finding, _ = judged(analyze, "def f(a, b, c):\n    torch.add(a, b, out=c)\n", "torch.add")
    assert finding.code == "MS102" and "c = ..." in finding.message


def test_a_position_is_not_read_through_a_partial_signature(analyze):
    # torch.max's recorded signature is (input, out): `1` is a dim, not out=.
    finding, _ = judged(analyze, "def f(x):\n    return torch.max(x, 1)\n", "torch.max")
    assert "out" not in finding.message


def test_int_scale_factor_becomes_float(analyze):
    finding, fixed = judged(analyze, "up = nn.Upsample(scale_factor=2, mode='nearest')\n", "torch.nn.Upsample")
    assert "int 2" in finding.message and "scale_factor=2.0" in fixed


def test_permute_list_becomes_a_tuple(analyze):
    _, fixed = judged(analyze, "def f(x):\n    return torch.permute(x, [0, 2, 1])\n", "torch.permute")
    assert "(x, (0, 2, 1))" in fixed


def test_xlogy_with_a_number_first_goes_to_ops(analyze):
    finding, fixed = judged(analyze, "def f(x):\n    return torch.xlogy(2.0, x)\n", "torch.xlogy")
    assert finding.mindspore_api == "mindspore.ops.xlogy" and "ops.xlogy(2.0, x)" in fixed


def test_log_of_an_integer_tensor_casts_first(analyze):
    finding, fixed = judged(analyze, "def f():\n    i = torch.arange(10)\n    return torch.log(i)\n", "torch.log")
    assert "integer tensor" in finding.message and "log(i.float())" in fixed


def test_abs_of_a_complex_tensor_is_divergent(analyze):
    finding, _ = judged(analyze, "def f(x):\n    return torch.abs(torch.fft.rfft(x))\n", "torch.abs")
    assert finding.code == "MS102" and "complex" in finding.message and not finding.fixes


def test_legacy_loss_keywords_become_reduction(analyze):
    _, summed = judged(analyze, "loss = nn.MSELoss(size_average=False)\n", "torch.nn.MSELoss")
    _, none = judged(analyze, "loss = nn.MSELoss(reduce=False)\n", "torch.nn.MSELoss")
    assert "reduction='sum'" in summed and "size_average" not in summed
    assert "reduction='none'" in none


def test_a_layer_inside_a_torch_container_gets_no_safe_fix(analyze):
    finding, _ = judged(analyze, "net = nn.Sequential(nn.Linear(2, 2), nn.ReLU())\n", "torch.nn.ReLU")
    assert "torch container" in finding.message
    assert all(fix.safety == "unsafe" and "container" in fix.reason for fix in finding.fixes)


def test_a_torch_container_does_not_make_a_divergent_layer_equivalent(analyze):
    # speechbrain: nn.ModuleList([nn.AvgPool1d(4, 2, padding=2), ...]); MaxPool2d(2) in nn.Sequential
    # keeps MindSpore's stride default of 1: the container's note adds to the divergence.
    finding, _ = judged(analyze, "net = nn.Sequential(nn.MaxPool2d(2), nn.ReLU())\n", "torch.nn.MaxPool2d", backend="ascend")
    assert finding.code == "MS102" and "stride defaults to 1" in finding.message and "torch container" in finding.message
    assert all(fix.safety == "unsafe" for fix in finding.fixes)


def test_a_layer_collected_in_a_plain_list_gets_no_safe_fix(analyze):
    # stable_baselines3's create_mlp: modules.append(nn.Tanh()), later nn.Sequential(*modules).
    body = "modules = []\nmodules.append(nn.Tanh())\nnet = nn.Sequential(*modules)\n"
    finding, _ = judged(analyze, body, "torch.nn.Tanh", backend="ascend")
    assert finding.fixes and all(fix.safety == "unsafe" and "container" in fix.reason for fix in finding.fixes)
    # A function's value in a list is no layer: its safe fix stays.
    finding, _ = judged(analyze, "x = torch.ones(2)\nvalues = []\nvalues.append(torch.cos(x))\n", "torch.cos", backend="ascend")
    assert any(fix.safety == "safe" for fix in finding.fixes)


def test_a_keyword_the_target_lacks_is_judged_against_pytorchs_default(analyze):
    # sentence_transformers: F.kl_div(..., log_target=True); PyTorch's default is False
    # (rules/snapshots/torch-defaults-2.13.0.json, read from torch's own signature).
    call = "a = F.kl_div(torch.ones(2), torch.ones(2), log_target={})\n"
    finding, _ = judged(analyze, call.format("True"), "torch.nn.functional.kl_div")
    assert "changes it from PyTorch's default False to True" in finding.message
    finding, _ = judged(analyze, call.format("False"), "torch.nn.functional.kl_div")
    assert "log_target=False is PyTorch's own default" in finding.message and "drop log_target=False" in finding.message
    finding, _ = judged(analyze, "flag = True\n" + call.format("flag"), "torch.nn.functional.kl_div")
    assert "whose default in PyTorch is False: where flag is False" in finding.message
    assert "only if" not in finding.message


def test_a_keyword_the_port_fix_maps_is_not_lacking(analyze):
    # kornia: trunc_normal_(module.weight, std=0.02); the port fix writes std as TruncatedNormal's sigma.
    finding, fixed = judged(analyze, "w = torch.empty(3, 4)\nnn.init.trunc_normal_(w, std=0.02)\n", "torch.nn.init.trunc_normal_", backend="ascend")
    assert "has no parameter std" not in finding.message
    assert "sigma=0.02" in fixed


def test_conv_on_cpu_is_rewritten_for_nn_conv2d(analyze):
    finding, fixed = judged(analyze, "conv = nn.Conv2d(3, 8, 3, 1, 1, bias=False)\n", "torch.nn.Conv2d")
    assert finding.mindspore_api == "mindspore.nn.Conv2d"
    assert "Conv2d(3, 8, 3, 1, has_bias=False, padding=1, pad_mode='pad')" in fixed


def test_layernorm_on_cpu_is_rewritten_for_nn_layernorm(analyze):
    finding, fixed = judged(analyze, "norm = nn.LayerNorm(8)\n", "torch.nn.LayerNorm")
    assert "LayerNorm((8,), epsilon=1e-5)" in fixed


def test_gelu_on_cpu_passes_approximate_false(analyze):
    finding, fixed = judged(analyze, "act = nn.GELU(approximate='tanh')\n", "torch.nn.GELU")
    assert "GELU(approximate=True)" in fixed


def test_dropout_probability_goes_by_keyword_on_cpu(analyze):
    finding, fixed = judged(analyze, "drop = nn.Dropout(0.2)\n", "torch.nn.Dropout")
    assert finding.mindspore_api == "mindspore.nn.Dropout" and "Dropout(p=0.2)" in fixed


def test_sequential_add_module_says_append(analyze):
    finding, _ = judged(analyze, "def build():\n    net = nn.Sequential()\n    net.add_module('relu', nn.ReLU())\n    return net\n", "torch.nn.Sequential.add_module")
    assert finding.code == "MS102" and "append" in finding.message


def test_a_bad_form_is_reported_with_file_entry_and_field(tmp_path):
    (tmp_path / "callforms.toml").write_text(
        '[messages]\nequivalent = "x"\n[[form]]\nid = "bad"\ntorch = ["torch.zeros"]\nwhen = { colour = "red" }\n'
        'verdict = "rewrite"\nmessage = "m"\n', encoding="utf-8")
    problems = [str(p) for p in load_callforms(tmp_path).problems]
    assert any("form #1 (bad), field 'when.colour'" in p for p in problems)
    assert any("field 'rewrite'" in p and "needs the rewrite" in p for p in problems)
    assert any("[messages], field 'divergent'" in p for p in problems)


def test_the_rules_directory_has_the_call_forms():
    assert (Path(rules_dir()) / "callforms.toml").is_file()
