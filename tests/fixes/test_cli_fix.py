"""`msport check --fix` and `--unsafe-fixes`: files rewritten in place, encodings and line endings
kept, a second run finds nothing more to fix, what is left is reported."""

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import EXAMPLES

SOURCE = (
    "import torch\n"
    "import torch.nn.functional as F\n"
    "\n"
    "\n"
    "def head(x: torch.Tensor):\n"
    "    # 全局池化\n"
    "    pooled = F.adaptive_avg_pool2d(x, 1)\n"
    "    return torch.sum(pooled, dim=1, keepdim=True)\n"
)


def msport(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "msport", *args], capture_output=True, text=True, cwd=cwd)


def test_fix_applies_safe_fixes_and_reports_what_is_left(tmp_path):
    path = tmp_path / "head.py"
    path.write_text(SOURCE, encoding="utf-8")
    run = msport("check", "--fix", str(path))
    assert run.returncode == 1, run.stderr  # torch.sum with dim= and keepdim= was never run: left (unsafe)
    text = path.read_text(encoding="utf-8")
    assert "pooled = x.mean((-2, -1), True)" in text and "torch.sum" in text
    assert "import torch.nn.functional" not in text  # MS104: nothing uses F once the pooling is rewritten
    assert "Applied 2 fixes." in run.stdout and "MS103" in run.stdout and "MS302" not in run.stdout
    again = msport("check", "--fix", str(path))
    assert "Applied 0 fixes." in again.stdout and path.read_text(encoding="utf-8") == text


def test_unsafe_fixes_apply_the_rest(tmp_path):
    path = tmp_path / "head.py"
    path.write_text(SOURCE, encoding="utf-8")
    run = msport("check", "--fix", "--unsafe-fixes", str(path))
    text = path.read_text(encoding="utf-8")
    assert "torch.sum" not in text and "mint.sum(pooled, dim=1, keepdim=True)" in text
    ast.parse(text)
    assert "import torch" not in text  # MS104: both torch imports are unused once everything is ported
    assert run.returncode == 0 and run.stdout.startswith("No findings in 1 file. Applied 5 fixes.")


def test_unsafe_fixes_without_fix_is_a_usage_error(tmp_path):
    path = tmp_path / "head.py"
    path.write_text(SOURCE, encoding="utf-8")
    run = msport("check", "--unsafe-fixes", str(path))
    assert run.returncode == 2 and "--fix" in run.stderr
    assert path.read_text(encoding="utf-8") == SOURCE


def test_fix_keeps_crlf_line_endings_and_the_declared_encoding(tmp_path):
    path = tmp_path / "legacy.py"
    text = "# -*- coding: latin-1 -*-\r\nimport torch\r\n\r\n\r\ndef f(x: torch.Tensor):\r\n    s = 'café'\r\n    return torch.abs(x)\r\n"
    path.write_bytes(text.encode("latin-1"))
    run = msport("check", "--fix", str(path))
    assert "Applied 1 fix." in run.stdout, run.stdout + run.stderr
    data = path.read_bytes()
    assert b"\r\nfrom mindspore import mint\r\n" in data and b"mint.abs(x)\r\n" in data
    assert b"caf\xe9" in data and b"\n" not in data.replace(b"\r\n", b"")


def test_fix_over_the_examples_parses_and_settles(tmp_path):
    copy = tmp_path / "examples"
    shutil.copytree(EXAMPLES, copy)
    first = msport("check", "--fix", str(copy))
    assert "Applied 0 fixes." not in first.stdout
    for path in copy.glob("*.py"):
        ast.parse(path.read_text(encoding="utf-8"))
    second = msport("check", "--fix", str(copy))
    assert "Applied 0 fixes." in second.stdout
    assert Path(EXAMPLES / "resnet_block.py").read_text(encoding="utf-8") != (copy / "resnet_block.py").read_text(encoding="utf-8")
