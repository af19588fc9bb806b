"""docs/rules/ is generated from the rule data and must be up to date."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_docs_rules_are_up_to_date():
    """After changing rules/ (or adding a code), run: python tools/gen_rule_docs.py"""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_rule_docs.py"), "--check"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_a_page_per_code_and_an_index_of_every_api(knowledge):
    pages = {p.name for p in (ROOT / "docs" / "rules").glob("*.md")}
    assert {f"{code}.md" for code in knowledge.codes} <= pages
    text = (ROOT / "docs" / "rules" / "apis" / "torch_nn.md").read_text(encoding="utf-8")
    assert "| `torch.nn.GELU` | tables | div | div | div | eq |" in text
    page = (ROOT / "docs" / "rules" / "MS102.md").read_text(encoding="utf-8")
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Fix", "## Versions and backends"):
        assert heading in page
