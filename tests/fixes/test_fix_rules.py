"""Where the replacement, static-rewrite and rename fixes are offered, and with which safety.
(That they compute the same is tests/equivalence/.)"""

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.findings import Safety
from msport.knowledge import default_knowledge
from msport.knowledge.replacements import load_replacements

HEAD = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"


def findings(text, **values):
    settings = Settings().merged({k.replace("_", "-"): v for k, v in values.items()}, "test") if values else Settings()
    return Analyzer().analyze(text, settings).findings


def only(text, prefix, **values):
    return [f for f in findings(text, **values) if f.code.startswith(prefix)]


def test_rule_data_loads_and_names_real_triggers_and_codes():
    replacements = load_replacements()
    assert not replacements.problems
    knowledge = default_knowledge()
    trigger_ids = {t.id for t in knowledge.triggers.triggers}
    rewrites = replacements.static_rewrites
    assert rewrites.selections | rewrites.index_lists <= trigger_ids
    assert {api.code for api in replacements.apis.values()} == {"MS301", "MS302", "MS303", "MS304", "MS305"}
    assert all(code in knowledge.codes for code in ("MS301", "MS302", "MS303", "MS304", "MS305"))


def test_bad_replacement_entries_are_reported_by_file_entry_and_field(tmp_path):
    (tmp_path / "replacements.toml").write_text(
        '[[replacement]]\ncode = "MS302"\nbuilder = "pool-to-reduce"\nreduce = "median"\nwhen = "always"\n'
        'apis = [{ name = "torch.nn.AdaptiveAvgPool2d", params = ["output_size"], axes = 4, colour = 1 }]\n', encoding="utf-8")
    problems = [str(p) for p in load_replacements(tmp_path).problems]
    assert any("replacement #1 (MS302), field 'reduce'" in p for p in problems)
    assert any("field 'apis[0].axes'" in p for p in problems)
    assert any("field 'apis[0].colour': unknown field" in p for p in problems)
    assert not load_replacements(tmp_path).apis


def test_pooling_held_in_a_layer_is_reported_once_at_its_constructor():
    text = HEAD + ("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                   "        self.pool = nn.AdaptiveAvgPool2d(1)\n\n    def forward(self, x):\n        return self.pool(x)\n")
    (finding,) = only(text, "MS3")
    assert finding.code == "MS302" and text.split("\n")[finding.span.start_line].strip() == "self.pool = nn.AdaptiveAvgPool2d(1)"
    assert "held in `self.pool`" in finding.message
    assert finding.fixes[0].safety == Safety.SAFE and "x.mean((-2, -1), True)" in finding.fixes[0].title


@pytest.mark.parametrize("body", [
    "        return self.pool",  # read, not called: the layer escapes
    "        return [self.pool(x) for _ in range(2)], self.pool.training",
    "        self.pool = None\n        return x",  # reassigned
])
def test_layers_used_other_than_by_calls_are_left_alone(body):
    text = HEAD + ("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                   f"        self.pool = nn.AdaptiveAvgPool2d(1)\n\n    def forward(self, x):\n{body}\n")
    assert not only(text, "MS3")


@pytest.mark.parametrize("call", [
    "F.adaptive_avg_pool2d(x, 2)",  # not size 1
    "F.adaptive_avg_pool2d(x, (1, 2))",
    "F.adaptive_max_pool2d(x, 1, return_indices=True)",  # indices wanted
    "nn.Sequential(nn.AdaptiveAvgPool2d(1))",  # inside a container: nothing to rewrite
    "F.max_pool2d(x, 2, return_indices=True)",  # indices returned
])
def test_no_finding_where_no_equivalent_rewrite_exists(call):
    assert not only(HEAD + f"def f(x: torch.Tensor):\n    return {call}\n", "MS3")


def test_direct_ports_are_not_rewritten():
    text = HEAD + "def f(x: torch.Tensor):\n    return torch.flatten(x, 1), torch.sort(x)[0]\n"
    assert not only(text, "MS3")  # 2.10 on Ascend: both are plain renames
    assert [f.code for f in only(text, "MS3", target_version="2.4", backend="cpu")] == ["MS301", "MS305"]


def test_mint_sort_without_a_cpu_kernel_becomes_topk_on_cpu_only():
    text = "from mindspore import mint\n\n\ndef f(x):\n    return mint.sort(x, dim=0)[0]\n"
    assert not only(text, "MS305")
    (finding,) = only(text, "MS305", backend="cpu")
    assert "no kernel on CPU" in finding.message
    assert finding.fixes[0].title == "Replace with x.topk(x.shape[0], dim=0, largest=False)"


def test_sort_fix_is_unsafe_where_the_indices_are_read():
    text = HEAD + "def f(x: torch.Tensor):\n    values, order = torch.sort(x)\n    return values[order]\n"
    (finding,) = only(text, "MS305", backend="cpu")
    assert finding.fixes[0].safety == Safety.UNSAFE and "int32" in finding.message


@pytest.mark.parametrize("expression,safety", [
    ("x[x > 0].sum()", Safety.SAFE),
    ("x[x > 0].mean()", Safety.SAFE),
    ("x[y > 0].sum()", Safety.UNSAFE),  # the mask may cover only x's leading dimensions
    ("torch.masked_select(x, y > 0).sum()", Safety.SAFE),  # both sides broadcast alike
    ("torch.masked_select(x, y > 0).mean()", Safety.UNSAFE),
    ("x.sum() / len(torch.nonzero(y > 0))", Safety.SAFE),
    ("len(torch.nonzero(y > 0)) + 1", Safety.UNSAFE),  # an int becomes a tensor
])
def test_static_rewrite_safety(expression, safety):
    text = HEAD + f"def f(x: torch.Tensor, y: torch.Tensor):\n    return {expression}\n"
    fixes = [fix for f in only(text, "MS2") for fix in f.fixes]
    assert [fix.safety for fix in fixes] == [safety]


@pytest.mark.parametrize("expression", [
    "x[x > 0]",  # the selection itself is the result
    "x[x > 0].sum(0)",  # not a full reduction
    "torch.nonzero(y > 0)",
    "torch.nonzero(y > 0, as_tuple=True)[0].shape[0]",
    "torch.nonzero(y > 0).shape[1]",  # the rank, not the count
])
def test_no_static_rewrite_where_the_selection_itself_is_used(expression):
    text = HEAD + f"def f(x: torch.Tensor, y: torch.Tensor):\n    return {expression}\n"
    assert not [fix for f in only(text, "MS2") for fix in f.fixes]


@pytest.mark.parametrize("call,safety", [
    ("torch.abs(x)", Safety.SAFE),  # proven with one positional argument
    ("torch.abs(input=x)", Safety.SAFE),  # run by keyword too
    ("torch.sum(x, dim=1, keepdim=True)", Safety.UNSAFE),  # this keyword set was not run
    ("torch.abs(*args)", Safety.UNSAFE),
    ("torch.cat([x, x], 1)", Safety.SAFE),
    ("torch.cat([x, x], dim=1)", Safety.SAFE),
])
def test_rename_safety_follows_the_proven_calls(call, safety):
    text = f"import torch\n\n\ndef f(x, args):\n    return {call}\n"
    (finding,) = [f for f in findings(text, backend="cpu") if f.code == "MS103"]
    assert finding.fixes[0].safety == safety


def test_a_rename_that_is_not_a_call_stays_unsafe():
    text = "import torch\n\nACT = torch.abs\n"
    (finding,) = [f for f in findings(text, backend="cpu") if f.code == "MS103"]
    assert finding.fixes[0].safety == Safety.UNSAFE


def test_a_layer_called_on_its_own_output_is_rewritten_at_each_call_or_not_at_all():
    text = HEAD + ("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                   "        self.pool = nn.AdaptiveAvgPool2d(1)\n\n    def forward(self, x):\n        return self.pool(self.pool(x))\n")
    assert not only(text, "MS3")
