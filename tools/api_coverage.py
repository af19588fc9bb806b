#!/usr/bin/env python3
"""How many PyTorch call sites in real code get a verdict from msport's knowledge.

    python tools/api_coverage.py PATH... [--target-version 2.10] [--backend ascend] [--json] [--top 20]

A call site is counted when msport resolves what is called to a torch API: a call of a
name or attribute chain bound by an import (``torch.cat(...)``, ``F.relu(...)``,
``nn.Conv2d(...)``), a method called on a value msport knows to be a torch tensor
(``x.view(...)``), or a torch.nn.Module method on a torch layer (``self.parameters()``,
``model.eval()``). It has a verdict when the knowledge base says equivalent, divergent or
missing for it (missing includes real torch APIs that no table lists and MindSpore lacks).

Not counted (msport cannot say what is called, so neither can this tool): calls of layer
instances (``self.conv(x)``), of user functions, of methods on values msport does not
resolve (unannotated parameters outside forward, items of containers, results of user
functions), dynamic lookups (``getattr(torch, name)``), and references that are not calls
(type hints, base classes, ``torch.float32``), which the check judges too.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from msport.analysis.checks.api_mapping import ApiMappingCheck  # noqa: E402
from msport.analysis.checks.base import ChunkInput  # noqa: E402
from msport.analysis.names import build_module_context, chunk_facts  # noqa: E402
from msport.analysis.settings import Settings  # noqa: E402
from msport.knowledge import default_knowledge  # noqa: E402


@dataclass
class Tally:
    files: int = 0
    unparsable: int = 0
    sites: int = 0
    statuses: Counter = field(default_factory=Counter)  # equivalent / divergent / missing / none
    basis: Counter = field(default_factory=Counter)  # tables / curated / inferred
    unknown: Counter = field(default_factory=Counter)  # torch names with no verdict
    methods: int = 0  # of the sites, calls of methods (tensor or Module)
    #: Where "missing" verdicts come from: a rule, a whole-namespace rule, the torch snapshot
    #: (a real API no table lists and MindSpore lacks), or a private torch name.
    missing_from: Counter = field(default_factory=Counter)

    @property
    def with_verdict(self) -> int:
        return self.sites - self.statuses["none"]

    @property
    def share(self) -> float:
        return self.with_verdict / self.sites if self.sites else 1.0

    def as_dict(self) -> Dict:
        return {
            "files": self.files, "unparsable": self.unparsable, "call_sites": self.sites,
            "with_verdict": self.with_verdict, "share": round(self.share, 4), "method_calls": self.methods,
            "statuses": dict(self.statuses), "basis": dict(self.basis), "missing_from": dict(self.missing_from), "unknown": dict(self.unknown.most_common()),
        }


class _Counter(ApiMappingCheck):
    """The check's own name resolution, counting calls instead of reporting references."""

    def __init__(self, chunk: ChunkInput, tally: Tally):
        super().__init__(chunk)
        self.tally = tally

    def visit_Call(self, node: ast.Call) -> None:
        qualified = self.qualified(node.func) or self._module_method(node.func)
        if qualified and self.facts.framework_of(qualified) == "torch" and self._is_api(qualified):
            self.tally.sites += 1
            if isinstance(node.func, ast.Attribute) and qualified.startswith(self.facts.method_owners):
                self.tally.methods += 1
            verdict = self.knowledge.verdict(qualified, self.settings.version, self.settings.backend)
            if verdict is None:
                self.tally.statuses["none"] += 1
                self.tally.unknown[qualified] += 1
            else:
                self.tally.statuses[verdict.status] += 1
                self.tally.basis[verdict.rule.basis] += 1
                if verdict.status == "missing":
                    self.tally.missing_from[_missing_source(verdict.rule)] += 1
        self.generic_visit(node)

    def _is_api(self, qualified: str) -> bool:
        """Torch modules are not APIs: `torch.nn(...)` is not a call site of anything."""
        return self.knowledge.torch_apis.get(qualified) != "module"


def _missing_source(rule) -> str:
    if rule.torch.endswith(".*"):
        return "namespace rule"
    if rule.origin.startswith("inferred: a private"):
        return "private torch name"
    if rule.origin.startswith("inferred"):
        return "torch snapshot, no counterpart"
    return "rule"


def python_files(paths: Iterable[Path]) -> List[Path]:
    files: List[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def measure(paths: Iterable[Path], settings: Optional[Settings] = None) -> Tally:
    knowledge = default_knowledge()
    settings = settings or Settings()
    tally = Tally()
    for path in python_files(paths):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tally.unparsable += 1
            continue
        tally.files += 1
        context = build_module_context([chunk_facts(tree, text)], knowledge)
        chunk = ChunkInput(tree, text.split("\n"), context, settings, knowledge)
        _Counter(chunk, tally).run()
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--target-version", default="2.10")
    parser.add_argument("--backend", default="ascend")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--top", type=int, default=20, help="how many unknown names to list")
    args = parser.parse_args()
    settings = Settings().merged({"target-version": args.target_version, "backend": args.backend}, "command line")
    tally = measure(args.paths, settings)
    if args.json:
        print(json.dumps(tally.as_dict(), indent=2))
        return 0
    print(f"{tally.files} files ({tally.unparsable} unparsable), {tally.sites} torch call sites ({tally.methods} method calls)")
    print(f"with a verdict: {tally.with_verdict} ({tally.share:.1%})  " + ", ".join(f"{k} {v}" for k, v in sorted(tally.statuses.items())))
    print("by basis: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.basis.items())))
    print("missing from: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.missing_from.items())))
    for name, count in tally.unknown.most_common(args.top):
        print(f"  no verdict: {count:5d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
