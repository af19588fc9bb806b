"""What the tools that generate a committed file from the real packages share
(prove_callforms.py, prove_renames.py, measure_divergences.py): the --check flag CI runs them
with, and writing the file or saying that it is out of date."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def parser(doc: str) -> argparse.ArgumentParser:
    """The tool's argument parser, described by its docstring's first paragraph, with --check."""
    made = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    made.add_argument("--check", action="store_true", help="write nothing; exit 1 if the file is out of date")
    return made


def write_or_check(out: Path, text: str, tool: str, check: bool, summary: str) -> int:
    """With *check*, 0 when *out* holds *text*, else 1 and what to run; otherwise write *text*
    to *out* and print *summary* of it."""
    shown = out.relative_to(ROOT)
    if check:
        current = out.read_text(encoding="utf-8") if out.exists() else ""
        if current != text:
            print(f"{shown} is out of date: run python tools/{tool}", file=sys.stderr)
            return 1
        return 0
    out.write_text(text, encoding="utf-8")
    print(f"wrote {shown}: {summary}")
    return 0
