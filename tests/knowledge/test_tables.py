"""Every row of the official tables (2.2 ... master) is represented in rules/, in msport's words.

The tables live beside the repository (../shared/data/api_mapping, as in CI); they are read
here and by tools/, never copied into the project.
"""

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLES = Path(os.environ.get("MSPORT_API_TABLES") or ROOT.parent / "shared" / "data" / "api_mapping")
sys.path.insert(0, str(ROOT / "tools"))

from table_coverage import classify  # noqa: E402

# Outside the repository: run by `tools/test.sh --upstream-tables`, not by the plain test command.
pytestmark = pytest.mark.upstream_tables


def test_every_row_of_every_table_is_represented():
    counts, outcomes = classify(TABLES)
    assert sum(counts.values()) == 851 + 875 + 887 + 514 * 3  # the row counts in the tables' README
    assert [o for o in outcomes if o[0] == "unrepresented"] == []
    assert counts["target"] > 4000


def test_the_tool_exits_zero_and_prints_the_totals():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "table_coverage.py"), "--tables", str(TABLES)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "total: 4155 rows" in done.stdout and "unrepresented 0" in done.stdout


def test_no_table_prose_is_copied_into_the_rules():
    rules_text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "rules").rglob("*.toml"))
    prose = set()
    for path in TABLES.glob("pytorch_api_mapping_*.csv"):
        with open(path, newline="", encoding="utf-8") as handle:
            prose.update(row["notes_short"].strip() for row in csv.DictReader(handle) if len(row["notes_short"].strip()) >= 30)
    assert prose, "the tables have notes to compare with"
    copied = [text for text in prose if text[:60] in rules_text]
    assert copied == []
