#!/usr/bin/env python3
"""Show that every row of every official mapping table (2.2 ... master) is represented in rules/.

    python tools/table_coverage.py [--tables ../shared/data/api_mapping] [--verbose]

Each row (torch API, MindSpore API, docs version) ends in exactly one of:

  target       the rule for the torch API has that MindSpore target in the row's version
               (master rows: in some version 2.7-2.10);
  curated      a hand-written entry (rules/curated/) replaced the tables' targets or declared
               the API missing, on purpose;
  not-in-package  the row's version has a snapshot (master: 2.7-2.10) and the target is in none
               of them: msport does not offer a name the real package lacks;
  unrepresented   none of the above: a gap. Exit status 1 when there is any.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from rulegen.facts import DEFAULT_TABLES, SNAPSHOT_VERSIONS, TABLE_VERSIONS, load_snapshots, load_torch, mindspore_name, read_rows, torch_name  # noqa: E402
from msport.knowledge import default_knowledge  # noqa: E402


def classify(tables: Path) -> Tuple[Counter, List[Tuple[str, str, str, str]]]:
    """(counts per outcome, [(outcome, table, torch, mindspore)] for every row)."""
    knowledge = default_knowledge()
    snapshots, torch = load_snapshots(), load_torch()
    outcomes: List[Tuple[str, str, str, str]] = []
    for row in read_rows(tables):
        name = torch_name(row.torch, torch)
        target = mindspore_name(row.mindspore, snapshots)
        rule = knowledge.lookup(name)
        version = TABLE_VERSIONS[row.table]
        versions = [version] if version else list(SNAPSHOT_VERSIONS)
        if rule is not None and any(t.mindspore == target and t.first <= v <= t.last for t in rule.targets for v in versions):
            outcome = "target"
        elif rule is not None and rule.basis == "curated":
            outcome = "curated"
        elif version is None and not any(snapshots[v].has(target) for v in SNAPSHOT_VERSIONS) and all(snapshots[v].covers(target) for v in SNAPSHOT_VERSIONS):
            outcome = "not-in-package"
        else:
            outcome = "unrepresented"
        outcomes.append((outcome, row.table, name, row.mindspore))
    return Counter(o for o, *_ in outcomes), outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, default=DEFAULT_TABLES)
    parser.add_argument("--verbose", action="store_true", help="list every row that is not a plain target")
    args = parser.parse_args()
    counts, outcomes = classify(args.tables)
    per_table: Dict[str, Counter] = {}
    for outcome, table, _, _ in outcomes:
        per_table.setdefault(table, Counter())[outcome] += 1
    for table in TABLE_VERSIONS:
        c = per_table.get(table, Counter())
        print(f"{table:>7}: {sum(c.values()):4d} rows  " + "  ".join(f"{k} {c[k]}" for k in ("target", "curated", "not-in-package", "unrepresented")))
    print(f"  total: {sum(counts.values()):4d} rows  " + "  ".join(f"{k} {counts[k]}" for k in ("target", "curated", "not-in-package", "unrepresented")))
    for outcome, table, name, target in outcomes:
        if outcome == "unrepresented" or (args.verbose and outcome != "target"):
            print(f"  {outcome:15s} {table:>7}  {name} -> {target}")
    return 1 if counts["unrepresented"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
