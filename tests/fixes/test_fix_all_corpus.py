"""Fix-all over every example and every test input: the result parses, a second run changes
nothing, and the examples are migrated as far as safe fixes go."""

import ast
from pathlib import Path

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.fixes import fix_all

from equivalence import test_replacements, test_static_rewrites

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "tests").glob("*/corpus/*.py"))
SNIPPETS = {f"replacements/{s[0]}": s[1] for s in test_replacements.SPECS}
SNIPPETS.update({f"static/{s[0]}": s[1] for s in test_static_rewrites.SPECS})
SETTINGS = {
    "default": Settings(),
    "cpu-2.4": Settings().merged({"backend": "cpu", "target-version": "2.4"}, "test"),
}
ANALYZER = Analyzer()


def inputs():
    for path in FILES:
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
    yield from SNIPPETS.items()


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("settings_name", sorted(SETTINGS))
@pytest.mark.parametrize("name,text", list(inputs()), ids=[n for n, _ in inputs()])
def test_fix_all_parses_and_is_idempotent(name, text, settings_name, unsafe):
    settings = SETTINGS[settings_name]
    first = fix_all(text, settings, ANALYZER, name, unsafe=unsafe)
    ast.parse(first.text)
    assert not first.rejected, first.rejected
    second = fix_all(first.text, settings, ANALYZER, name, unsafe=unsafe)
    assert not second.changed, second.applied
    # Nothing eligible is left behind.
    left = ANALYZER.analyze(first.text, settings, name).findings
    eligible = [f.code for f in left if any(x.safety.value == "safe" or unsafe for x in f.fixes)]
    assert not eligible, eligible


def test_safe_fixes_migrate_the_examples():
    resnet = fix_all((ROOT / "examples" / "resnet_block.py").read_text(encoding="utf-8"), Settings(), ANALYZER)
    assert "nn.AdaptiveAvgPool2d" not in resnet.text and "x = x.mean((-2, -1), True)" in resnet.text
    yolox = fix_all((ROOT / "examples" / "yolox_head.py").read_text(encoding="utf-8"), Settings(), ANALYZER)
    assert "torch.nonzero" not in yolox.text
    assert {a.code for a in resnet.applied} >= {"MS302", "MS103"}
