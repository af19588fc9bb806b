"""Applying edits and fix-all: positions, overlaps, line endings, passes, parse safety."""

import ast

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.checks import CHECKS
from msport.analysis.checks.base import Check
from msport.analysis.findings import Category, Edit, Finding, Fix, Safety, Severity, Span
from msport.analysis.fixes import OverlappingEdits, apply_edits, fix_all


def edit(l1, c1, l2, c2, text):
    return Edit(Span(l1, c1, l2, c2), text)


def test_edits_apply_bottom_up_whatever_their_order():
    text = "a = 1\nb = 2\nc = 3\n"
    out = apply_edits(text, [edit(0, 4, 0, 5, "10"), edit(2, 0, 2, 1, "cc"), edit(1, 0, 2, 0, "")])
    assert out == "a = 10\ncc = 3\n"


def test_overlapping_edits_are_refused():
    with pytest.raises(OverlappingEdits):
        apply_edits("abcdef", [edit(0, 1, 0, 4, "x"), edit(0, 3, 0, 5, "y")])
    with pytest.raises(OverlappingEdits):
        apply_edits("abcdef", [edit(0, 1, 0, 4, "x"), edit(0, 2, 0, 2, "inserted")])


def test_touching_edits_and_identical_insertions():
    assert apply_edits("abcdef", [edit(0, 0, 0, 2, "X"), edit(0, 2, 0, 4, "Y")]) == "XYef"
    # Two fixes asking for the same import: it is inserted once.
    same = edit(0, 0, 0, 0, "import m\n")
    assert apply_edits("x\n", [same, same]) == "import m\nx\n"


def test_crlf_and_non_ascii_positions():
    text = "x = '中文'  # é\r\ny = torch.cat(a)\r\n"
    out = apply_edits(text, [edit(1, 4, 1, 13, "mint.cat"), edit(1, 0, 1, 0, "import m\n")])
    assert out == "x = '中文'  # é\r\nimport m\r\ny = mint.cat(a)\r\n"
    # Columns past the end of a line stop before its terminator.
    assert apply_edits("ab\r\ncd", [edit(0, 99, 0, 99, "!")]) == "ab!\r\ncd"


TORCH_HEAD = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        y = F.adaptive_max_pool2d(x, 1) + self.pool(x)
        return y[y > 0].sum() + torch.abs(y).sum()
'''


def test_fix_all_applies_every_safe_fix_in_passes_and_is_idempotent():
    analyzer = Analyzer()
    outcome = fix_all(TORCH_HEAD, Settings(), analyzer)
    assert outcome.changed and outcome.passes >= 1
    assert "x.amax((-2, -1), True) + x.mean((-2, -1), True)" in outcome.text
    assert "AdaptiveAvgPool2d" not in outcome.text
    assert "y.where(y > 0, 0).sum()" in outcome.text
    assert {a.safety for a in outcome.applied} == {Safety.SAFE}
    ast.parse(outcome.text)
    again = fix_all(outcome.text, Settings(), analyzer)
    assert not again.changed and again.text == outcome.text


def test_unsafe_fixes_only_when_asked():
    source = "import torch\n\n\ndef f(*xs):\n    return torch.cat(*xs)\n"
    assert not fix_all(source, Settings()).changed  # unpacked arguments: no run proves what they hold
    outcome = fix_all(source, Settings(), unsafe=True)
    assert "torch.cat" not in outcome.text and outcome.applied[0].safety == Safety.UNSAFE
    ast.parse(outcome.text)


class _BreakingCheck(Check):
    """Offers a safe fix that breaks the parse, and one that does not, on every bare `pass`."""

    def visit_Pass(self, node):
        span = self.span(node)
        if "#" in self.chunk.lines[span.start_line]:
            return
        for title, text in (("break", "pass)"), ("fine", "pass  # fixed")):
            self.findings.append(Finding("MS003", Category.CONFIG, Severity.INFO, span, title,
                                         fixes=(Fix(title, Safety.SAFE, (Edit(span, text),)),)))


def test_a_fix_that_would_break_the_parse_is_left_out():
    analyzer = Analyzer(checks=(_BreakingCheck,))
    outcome = fix_all("def f():\n    pass\n", Settings(), analyzer)
    assert outcome.text == "def f():\n    pass  # fixed\n"
    assert [r.title for r in outcome.rejected] == ["break"]


def test_fix_all_never_makes_a_file_parse_worse_when_it_already_has_errors():
    analyzer = Analyzer(checks=(*CHECKS, _BreakingCheck))
    source = "import torch\n\n\ndef broken(:\n    pass\n\n\ndef g(x):\n    pass\n    return torch.abs(x)\n"
    outcome = fix_all(source, Settings(), analyzer)
    assert "pass)" not in outcome.text
    assert "mint.abs(x)" in outcome.text  # the other fixes still apply
