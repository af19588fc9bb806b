"""What sits at a position (analysis/lookup.py) and the inventory of API uses (api_uses.py)."""

from pathlib import Path

from msport.analysis import Settings, analyze
from msport.analysis.api_uses import api_uses
from msport.analysis.lookup import api_at, findings_at, name_at, public_name
from msport.analysis.outline import FunctionIndex, function_ranges

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

TEXT = '''import os
import torch
import numpy as np
from torch import masked_select as msel
from .utils import cat, helper
from mypkg.layers import Conv
from .common import *

def f(x: torch.Tensor, n):
    y = msel(x, x > 0)
    z = cat([y], 0)
    w = Conv(3)
    q = np.zeros(3)
    r = x.view(-1)
    s = len(y) + n
    t = thing(1)
    return os.path.join("a")
'''


def at(knowledge, word, line, occurrence=0):
    text_line = TEXT.split("\n")[line]
    col = -1
    for _ in range(occurrence + 1):
        col = text_line.index(word, col + 1)
    return name_at(analyze(TEXT), knowledge, line, col + 1)


def test_names_msport_resolves(knowledge):
    assert at(knowledge, "msel", 9).qualified == "torch.masked_select"
    assert at(knowledge, "msel", 9).spelled == "msel"
    assert at(knowledge, "masked_select", 3).qualified == "torch.masked_select"
    assert at(knowledge, "view", 13).qualified == "torch.Tensor.view"
    assert at(knowledge, "Tensor", 8).qualified == "torch.Tensor"
    assert at(knowledge, "join", 16).qualified == "os.path.join" and at(knowledge, "join", 16).foreign is None


def test_names_from_imports_msport_cannot_follow_are_marked_for_jedi(knowledge):
    assert at(knowledge, "cat", 10).foreign == ".utils" and at(knowledge, "cat", 10).qualified is None
    assert at(knowledge, "helper", 4).foreign == ".utils"
    assert at(knowledge, "Conv", 11).foreign == "mypkg.layers"
    assert at(knowledge, "zeros", 12).foreign == "numpy"
    assert at(knowledge, "thing", 15).foreign == "*"  # only the star import can explain it


def test_locals_builtins_and_targets_are_nothing(knowledge):
    assert at(knowledge, "x", 13) is None  # a parameter
    assert at(knowledge, "len", 14) is None  # a builtin
    assert at(knowledge, "n", 14, 1) is None
    assert at(knowledge, "y", 9) is None  # an assignment target, even with a star import around
    assert at(knowledge, "os", 16).foreign is None  # the standard library: no jedi


def test_api_at_and_findings_at(knowledge):
    result = analyze(TEXT)
    found = api_at(result, knowledge, 9, TEXT.split("\n")[9].index("msel") + 2)
    assert found.qualified == "torch.masked_select" and found.span.start_line == 9
    assert api_at(result, knowledge, 14, 4) is None
    text = (EXAMPLES / "ms_static_graph.py").read_text()
    result = analyze(text)
    for finding in result.findings:
        assert finding in findings_at(result, finding.span.start_line, finding.span.start_col)
    assert findings_at(result, 0, 0) == []


def test_public_name_of_a_definition_inside_a_package():
    known = {"torch.nn.Conv2d", "torch.cat", "mindspore.ops.cat"}.__contains__
    assert public_name("torch.nn.modules.conv.Conv2d", "torch.nn.modules.conv", known) == "torch.nn.Conv2d"
    assert public_name("torch._C._VariableFunctions.cat", "torch._C._VariableFunctions", known) == "torch.cat"
    assert public_name("mindspore.ops.function.array_func.cat", "mindspore.ops.function.array_func", known) == "mindspore.ops.cat"
    assert public_name("pkg.utils.helper", "pkg.utils", known) is None


def test_api_uses_cover_every_api_finding_and_the_silent_methods(knowledge):
    """Every MS101/MS102 finding on a torch reference is an API use of the same status; and
    same-name Tensor methods, which have no finding, are uses too (equivalent)."""
    silent = 0
    for path in sorted(EXAMPLES.glob("*.py")):
        result = analyze(path.read_text())
        uses = api_uses(result, knowledge, Settings())
        by_place = {(u.span, u.torch_api): u for u in uses}
        for finding in result.findings:
            status = {"MS101": "missing", "MS102": "divergent", "MS103": "equivalent"}.get(finding.code)
            if status is None or (finding.span, finding.torch_api) not in by_place:
                continue
            assert by_place[(finding.span, finding.torch_api)].status == status
        finding_places = {(f.span, f.torch_api) for f in result.findings}
        for use in uses:
            if use.status in ("missing", "divergent"):
                assert (use.span, use.torch_api) in finding_places, use
            if use.torch_api.startswith("torch.Tensor.") and (use.span, use.torch_api) not in finding_places:
                assert use.status == "equivalent"
                silent += 1
    assert silent >= 3


def test_api_uses_know_calls_and_functions(knowledge):
    result = analyze((EXAMPLES / "yolox_head.py").read_text())
    uses = api_uses(result, knowledge, Settings())
    base = next(u for u in uses if u.torch_api == "torch.nn.Module")
    assert not base.call and base.function == "<module>"
    stack = next(u for u in uses if u.torch_api == "torch.stack")
    assert stack.call and stack.function == "YOLOXHead.get_grid" and stack.namespace == "torch"


def test_function_index_finds_the_innermost_function():
    text = "def a():\n    def b():\n        x = 1\n    y = 2\nclass C:\n    def m(self):\n        pass\nz = 3\n"
    index = FunctionIndex(function_ranges(analyze(text)))
    assert [index.name_at(line) for line in range(8)] == ["a", "a.b", "a.b", "a", "<module>", "C.m", "C.m", "<module>"]


NESTED = '''import torch
import torch.nn as nn


def deco(f):
    return f


class Outer(nn.Module):
    scale = torch.ones(1)

    def __init__(self):
        super().__init__()
        self.w = torch.zeros(3)
        self.act = nn.GELU()
        self.s = scale  # a class-level name: not visible in a method when it runs

        class Inner:
            def m(self):
                self.k = torch.ones(2)
                return self.k.view(-1)

        self.inner = Inner()

    @deco
    def forward(self, x, f=lambda t: t.view(-1)):
        y = self.w.view(-1) + x.flatten()
        g = lambda z: torch.cat([z, self.w])

        def helper(v):
            return v.view(1) if (n := torch.numel(v)) else self.act(v)

        return helper(y), g(y), f(x), self.scale.view(1), self.s.view(1)


def top(x):
    return torch.cat([x]).view(-1)
'''


def test_name_at_walks_less_but_answers_as_a_full_walk(knowledge, monkeypatch):
    """name_at skips definitions the cursor is not in, collects self attributes only when asked
    and stops at the first name; at every position it must name what a walk of the whole chunk
    with the checks' scope rules names."""
    from msport.analysis import lookup
    from msport.analysis.names import ScopeVisitor

    class FullWalk(lookup._Finder):
        visit_FunctionDef = visit_AsyncFunctionDef = ScopeVisitor.visit_FunctionDef
        visit_ClassDef = ScopeVisitor.visit_ClassDef
        visit_Lambda = ScopeVisitor.visit_Lambda
        _collect_self_attributes = ScopeVisitor._collect_self_attributes

    texts = [NESTED, TEXT] + [(EXAMPLES / name).read_text(encoding="utf-8") for name in ("yolox_head.py", "resnet_block.py")]
    resolved = 0
    for text in texts:
        result = analyze(text)
        positions = [(line, col) for line, content in enumerate(result.source.lines) for col in range(len(content) + 1)]
        fast = [name_at(result, knowledge, line, col) for line, col in positions]
        with monkeypatch.context() as patch:
            patch.setattr(lookup, "_Finder", FullWalk)
            full = [name_at(result, knowledge, line, col) for line, col in positions]
        assert fast == full
        resolved += sum(1 for found in fast if found is not None and found.qualified)
    assert resolved > 500  # the comparison covers many resolved names, not only empty answers
    # Names that need the class's self attributes, from inside nested definitions.
    result = analyze(NESTED)
    lines = NESTED.split("\n")
    for word in ("self.w.view", "self.k.view"):
        line = next(i for i, text in enumerate(lines) if word in text)
        col = lines[line].index(word) + len(word) - 1
        assert name_at(result, knowledge, line, col).qualified == "torch.Tensor.view", word
