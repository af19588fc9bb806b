#!/usr/bin/env python3
"""Generate rules/api/*.toml from the official mapping tables, the API snapshots and rules/curated/.

    python tools/build_rules.py [--tables ../shared/data/api_mapping] [--check]

--check writes nothing and exits 1 when rules/api/ differs from what the generator produces.
The tables are read here only; no table text ends up in the rules (see tools/rulegen/).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rulegen.build import Builder  # noqa: E402
from rulegen.chinese import Translator, curated_translations  # noqa: E402
from rulegen.curated import apply_curated, read_curated  # noqa: E402
from rulegen.measured import sharpen  # noqa: E402
from rulegen.facts import DEFAULT_TABLES, ROOT, load_cpu_kernels, load_snapshots, load_torch, read_diff_details, read_general_params, read_rows  # noqa: E402
from rulegen.writer import render, write  # noqa: E402

RULES_API = ROOT / "rules" / "api"


def build(tables: Path = DEFAULT_TABLES, cpu_kernels: Path = None):
    cpu = json.loads(cpu_kernels.read_text(encoding="utf-8"))["apis"] if cpu_kernels else load_cpu_kernels()
    builder = Builder(read_rows(tables), read_diff_details(tables), read_general_params(tables),
                      load_snapshots(), load_torch(), cpu)
    rules = builder.table_rules()
    curated = read_curated()
    known = set(rules) | {e["torch"] for e in curated} | {a for e in curated for a in e.get("aliases", [])}
    rules.update(builder.inferred_rules(known))
    sharpen(rules, builder.snapshots, builder.torch, general=builder.general)  # vague table categories -> what was measured
    apply_curated(rules, curated)
    return rules


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, default=DEFAULT_TABLES, help="folder of the official mapping CSVs")
    parser.add_argument("--check", action="store_true", help="only report whether rules/api/ is up to date")
    parser.add_argument("--cpu-kernels", type=Path, help="a CPU probe result other than rules/snapshots/cpu-kernels-2.10.0.json (for trying a new probe)")
    args = parser.parse_args()
    rules = build(args.tables, args.cpu_kernels)
    translations, missing = curated_translations(read_curated())
    translator = Translator(translations)
    expected = render(rules, translator)
    untranslated = missing + [f"no template of tools/rulegen/notes_zh-CN.toml matches the clause {c!r}" for c in dict.fromkeys(translator.untranslated)]
    if untranslated:
        # Every note is written in both languages: a missing translation is an error of the data.
        print("notes without their Simplified Chinese:\n  " + "\n  ".join(untranslated), file=sys.stderr)
        return 1
    if args.check:
        actual = {p.name: p.read_text(encoding="utf-8") for p in RULES_API.glob("*.toml")}
        stale = sorted(set(expected) ^ set(actual) | {n for n in expected if actual.get(n) != expected[n]})
        if stale:
            print("rules/api/ is out of date: " + ", ".join(stale) + "; run python tools/build_rules.py", file=sys.stderr)
            return 1
        return 0
    files = write(rules, RULES_API, translator)
    basis = {}
    for rule in rules.values():
        basis[rule.basis] = basis.get(rule.basis, 0) + 1
    print(f"wrote {len(rules)} rules to {len(files)} files in rules/api/ ({', '.join(f'{n} {b}' for b, n in sorted(basis.items()))})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
