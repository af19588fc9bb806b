"""Hand-written facts (rules/curated/*.toml) laid over the generated rules.

An entry names a torch API and, optionally, one of its MindSpore targets:

- with ``targets``: the entry replaces every generated target of the API;
- with ``mindspore``: its fields (status, note, consequence, diff, renames, backends) replace
  those of the generated target of that name in every version; a target the tables do not
  name is added, first (``versions`` defaults to every version msport knows);
- with neither and ``status = "missing"``: the API has no counterpart anywhere.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, List

from .build import BACKENDS, Fact, GenRule, GenTarget
from .facts import ALL_VERSIONS, ROOT

sys.path.insert(0, str(ROOT / "server"))
from msport.knowledge.loader import parse_versions, read_toml  # noqa: E402

CURATED = ROOT / "rules" / "curated"
FIELDS = {"torch", "mindspore", "status", "note", "note_zh-CN", "consequence", "consequence_zh-CN", "diff", "renames",
          "versions", "backends", "aliases", "targets", "torch_removed"}


def read_curated(directory: Path = CURATED) -> List[Dict[str, Any]]:
    entries = []
    for path in sorted(directory.glob("*.toml")):
        for index, entry in enumerate(read_toml(path).get("api", [])):
            unknown = set(entry) - FIELDS
            if unknown or "torch" not in entry:
                raise SystemExit(f"{path.name}, entry #{index + 1}: unknown fields {sorted(unknown)} or no torch name")
            entries.append(dict(entry, _origin=f"{path.name} #{index + 1}"))
    return entries


def _versions(text: str = "2.2-"):
    first, last = parse_versions(text)
    return [v for v in ALL_VERSIONS if first <= v <= last]


def _target(entry: Dict[str, Any], defaults: Dict[str, Any]) -> GenTarget:
    merged = dict(defaults, **entry)
    status = merged.get("status", "equivalent")
    fact = Fact(status, merged.get("note", "") if status != "equivalent" or "note" in entry else "",
                tuple(sorted(merged.get("renames", {}).items())), merged.get("diff"))
    return GenTarget(merged.get("mindspore"), {v: fact for v in _versions(merged.get("versions", "2.2-"))},
                     tuple(b for b in BACKENDS if b in merged.get("backends", BACKENDS)), merged.get("consequence"))


def apply_curated(rules: Dict[str, GenRule], entries: List[Dict[str, Any]]) -> None:
    for entry in entries:
        torch = entry["torch"]
        rule = rules.get(torch)
        if rule is None:
            rule = rules[torch] = GenRule(torch, "curated", section=torch.rpartition(".")[0])
        if "targets" in entry:
            defaults = {k: entry[k] for k in ("status", "note", "diff", "consequence", "renames") if k in entry}
            rule.targets = [_target(sub, defaults) for sub in entry["targets"]]
            rule.basis = "curated"
            if entry.get("status") == "missing" and "note" in entry:
                rule.missing_note = entry["note"]  # where no target applies (another backend)
        elif "mindspore" in entry:
            matching = [t for t in rule.targets if t.mindspore == entry["mindspore"]]
            if not matching:
                rule.targets.insert(0, _target(entry, {}))
                if rule.basis == "inferred":
                    rule.basis = "curated"
            for target in matching:
                _overlay(target, entry)
        elif entry.get("status") == "missing":
            rule.targets = []
            rule.missing_note = entry["note"]
            rule.basis = "curated"
        else:
            raise SystemExit(f"{entry['_origin']}: give 'mindspore', 'targets', or status = \"missing\" with a note")
        for alias in entry.get("aliases", []):
            rules.pop(alias, None)  # the curated entry judges the alias: one rule per name
            if alias not in rule.aliases:
                rule.aliases.append(alias)
        if "torch_removed" in entry:
            rule.torch_removed = entry["torch_removed"]


def _overlay(target: GenTarget, entry: Dict[str, Any]) -> None:
    for version, fact in list(target.versions.items()):
        status = entry.get("status", fact.status)
        note = entry.get("note", fact.note if status == fact.status else "")
        if status == "equivalent" and "note" not in entry:
            note = ""
        renames = tuple(sorted(entry["renames"].items())) if "renames" in entry else fact.renames
        target.versions[version] = Fact(status, note, renames, entry.get("diff", fact.diff))
    if "consequence" in entry:
        target.consequence = entry["consequence"]
    if "backends" in entry:
        target.backends = tuple(b for b in BACKENDS if b in entry["backends"])
