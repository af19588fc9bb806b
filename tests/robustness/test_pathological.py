"""Pathological inputs: no crash, bounded work, and what was skipped is said."""

import subprocess
import sys

import pytest

from msport.analysis import Analyzer, Settings

BLOCK = "def f{n}(x):\n    y = torch.cat([x, x])\n    return y\n\n"


@pytest.fixture(scope="module")
def analyzer():
    return Analyzer()


def codes(findings):
    return [f.code for f in findings]


def test_100k_line_file_is_checked(analyzer):
    text = "import torch\n" + "".join(BLOCK.format(n=i) for i in range(25_000))
    assert text.count("\n") >= 100_000
    findings = analyzer.analyze(text, Settings().merged({"max-lines": 200_000, "time-budget": 600}, "test")).findings
    assert codes(findings).count("MS103") == 25_000


def test_oversized_file_gets_one_informational_finding(analyzer):
    text = "x = 1\n" * 100_001
    (finding,) = analyzer.analyze(text, Settings()).findings
    assert finding.code == "MS002" and "100002 lines" in finding.message and "max-lines" in finding.message


def test_time_budget_reports_what_was_not_checked(analyzer):
    text = "import torch\n" + "".join(BLOCK.format(n=i) for i in range(3000))
    findings = Analyzer().analyze(text, Settings().merged({"time-budget": 0.01}, "test")).findings
    budget = [f for f in findings if f.code == "MS002"]
    assert len(budget) == 1 and "were not checked" in budget[0].message and "time-budget" in budget[0].message


def test_deep_nesting_is_a_syntax_finding_not_a_crash(analyzer):
    text = "import torch\ny = torch.cat(a)\nz = " + "[" * 1000 + "]" * 1000 + "\n"
    findings = analyzer.analyze(text, Settings()).findings
    assert codes(findings) == ["MS103", "MS001"]
    assert "nesting too deep" in findings[1].message or "too many nested" in findings[1].message


def test_very_long_line(analyzer):
    text = "import torch\ny = torch.cat([" + "a, " * 200_000 + "a])\n"
    assert codes(analyzer.analyze(text, Settings()).findings) == ["MS103"]


def test_nul_bytes(analyzer):
    text = "import torch\ny = torch.cat(a)\n\nz = 'a\x00b'\n"
    assert codes(analyzer.analyze(text, Settings()).findings) == ["MS103", "MS001"]


@pytest.mark.parametrize("newline", ["\r\n", "\r", "\n"])
def test_line_endings(analyzer, newline):
    text = newline.join(["import torch", "", "def f(x):", "\treturn torch.cat(x)", ""])
    (finding,) = analyzer.analyze(text, Settings()).findings
    assert (finding.span.start_line, finding.span.start_col) == (3, 8)


def test_bom_and_non_utf8_through_the_cli(tmp_path):
    bom = tmp_path / "bom.py"
    bom.write_bytes("\ufeffimport torch\ny = torch.cat(a)\n".encode("utf-8"))
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\ns = '\xe9t\xe9'; y = torch.cat(a)\n")
    broken = tmp_path / "broken.py"
    broken.write_bytes(b"import torch\ns = '\xff\xfe'; y = torch.cat(a)\n")
    run = subprocess.run([sys.executable, "-m", "msport", "check", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert f"{bom}:2:5: MS103" in run.stdout
    column = len("s = 'été'; y = ") + 1  # code points, 1-based: two replacement characters for \xff\xfe too
    assert f"{latin}:3:{column}: MS103" in run.stdout
    assert f"{broken}:2:{column - 1}: MS103" in run.stdout
    assert "broken.py: not valid utf-8" in run.stderr


def test_nesting_too_deep_for_a_visitor_costs_one_statement(analyzer):
    # Python parses this, but a recursive visitor cannot walk 1,500 nested BinOps (one frame a
    # node against a recursion limit of 1,000; 900 are walked, 3,000 the parser refuses).
    text = "import torch\ny = torch.cat(a)\nz = " + " + ".join(["x"] * 1500) + "\nw = torch.cat(b)\n"
    findings = analyzer.analyze(text, Settings()).findings
    cats = [f for f in findings if f.torch_api == "torch.cat"]
    assert len(cats) == 2
    skipped = [f for f in findings if f.code == "MS002"]
    assert skipped and all(f.span.start_line == 2 and "nested too deeply" in f.message for f in skipped)


def test_python_312_syntax_is_not_called_a_syntax_error(analyzer):
    """PEP 695 statements and PEP 701 f-strings: valid from Python 3.12. On an older Python msport
    says it cannot read them (MS002, and a note on the f-string's parse error); from 3.12 on they
    are checked like any code."""
    text = (
        "import torch\ntype Point = tuple[float, float]\n\ndef first[T](xs: list[T]) -> T:\n    return torch.cat(xs)\n\n"
        "class Box[T]:\n    pass\n\nname = 'a'\ns = f\"{name!r:{\"x\"}}\"\ny = torch.cat(a)\n"
    )
    findings = analyzer.analyze(text, Settings()).findings
    if sys.version_info >= (3, 12):
        assert codes(findings) == ["MS103", "MS103"]
        return
    assert codes(findings) == ["MS002", "MS002", "MS002", "MS001", "MS103"]
    assert all("syntax newer than Python 3." in f.message and "Python 3.12 or newer" in f.message for f in findings[:3])
    assert "valid from Python 3.12" in findings[3].message
