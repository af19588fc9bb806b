"""Build msport's API rules from the facts: official tables + snapshots + curated notes.

Per torch API, every MindSpore target the tables ever named becomes a target with the
versions where it is known to exist:

- 2.2-2.6: the versions whose table lists the pair, plus the versions between two listings
  and, when the target still exists in the 2.7 snapshot, the versions up to 2.6 (an API
  present in 2.4 and in 2.7 did not vanish in between);
- 2.7-2.10: the snapshots decide (a target the tables named at any version is valid where
  the real package has it).

A target with no CPU kernel (the 2.10 probe) is not offered on CPU; the ops/nn target then
serves CPU, or a same-named ops/nn API when the tables name none. Torch APIs in no table
get a rule only when a same-named MindSpore API exists; their status comes from comparing the
real signatures. Curated entries (rules/curated/*.toml) override or complete any of this.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .facts import (
    ALL_VERSIONS, SNAPSHOT_VERSIONS, TABLE_ONLY, TABLE_VERSIONS, DiffDetails, Row, Snapshot, Version,
    diff_url, mindspore_name, torch_name,
)
from .facts import ROOT, read_toml
from .notes import CATEGORY_PHRASES, compare_params, rename_phrase, row_phrases, sentence

BACKENDS = ("ascend", "gpu", "cpu")
NO_CPU = ("ascend", "gpu")
#: What the CPU probe says of an API with no CPU kernel (facts.load_cpu_kernels), and why.
NO_CPU_KERNEL = {"no_kernel": "has no CPU kernel", "no_graph_kernel": "has no CPU kernel in graph mode (it runs in PyNative only)"}


@dataclass(frozen=True)
class Fact:
    """What holds for one (torch, MindSpore) pair in one version."""

    status: str
    note: str = ""
    renames: Tuple[Tuple[str, str], ...] = ()
    diff: Optional[str] = None
    #: What the tables said, where the packages showed otherwise (rulegen/measured.py).
    tables: Optional[str] = None


@dataclass
class GenTarget:
    mindspore: Optional[str]
    versions: Dict[Version, Fact]
    backends: Tuple[str, ...] = BACKENDS
    consequence: Optional[str] = None
    inferred: bool = False

    @property
    def last(self) -> Version:
        return max(self.versions)


@dataclass
class GenRule:
    torch: str
    basis: str
    targets: List[GenTarget] = field(default_factory=list)
    aliases: List[str] = field(default_factory=list)
    torch_removed: Optional[str] = None
    section: str = ""
    #: A rule without targets (missing everywhere) carries its note here.
    missing_note: str = ""


def _is_mint(name: Optional[str]) -> bool:
    return bool(name) and name.startswith("mindspore.mint.")


def _counterparts(mindspore: str) -> List[str]:
    """Same-named ops/nn APIs for a mint API (the CPU fallback when the tables name none)."""
    if mindspore.startswith("mindspore.mint.nn.functional."):
        return ["mindspore.ops." + mindspore.rsplit(".", 1)[1]]
    if mindspore.startswith("mindspore.mint.nn."):
        return ["mindspore.nn." + mindspore.rsplit(".", 1)[1]]
    if mindspore.startswith("mindspore.mint."):
        return ["mindspore.ops." + mindspore.rsplit(".", 1)[1]]
    return []


#: torch module -> where a same-named MindSpore API is looked for, best first (rules/search.toml,
#: which the run-time search of a missing API reads too).
INFER_NAMESPACES: Dict[str, Tuple[str, ...]] = {
    module: tuple(spaces) for module, spaces in read_toml(ROOT / "rules" / "search.toml")["namespaces"].items()
}


class Builder:
    def __init__(self, rows: Sequence[Row], details: Dict[Tuple[str, str], DiffDetails], general: Sequence[str],
                 snapshots: Dict[Version, Snapshot], torch: Snapshot, cpu: Dict[str, str]):
        self.rows, self.details, self.general = rows, details, tuple(general)
        self.snapshots, self.torch, self.cpu = snapshots, torch, cpu
        self.newest = snapshots[max(snapshots)]

    # -- existence -----------------------------------------------------------------------
    def exists(self, mindspore: str, version: Version, listed_in_master: bool) -> bool:
        snap = self.snapshots[version]
        if snap.covers(mindspore):
            return snap.has(mindspore)
        # Outside what the snapshots list (class members such as nn.Cell.recompute): trust
        # the newest table; tests check these names against the installed package.
        return listed_in_master

    def backends(self, mindspore: Optional[str]) -> Tuple[str, ...]:
        # Kernels are added across releases, not removed: a function with no CPU kernel in
        # 2.10 had none before either.
        if mindspore and self.cpu.get(mindspore) in NO_CPU_KERNEL:
            return NO_CPU
        return BACKENDS

    # -- facts from the tables -------------------------------------------------------------
    def fact(self, row: Row) -> Fact:
        details = self.details.get((row.table, row.diff_page)) if row.diff_page else None
        phrases, renames = row_phrases(row, details, self.general)
        status = "divergent" if phrases else "equivalent"
        return Fact(status, sentence(phrases), renames, diff_url(row.table, row.diff_page))

    def snapshot_fact(self, base: Fact, torch: str, mindspore: str, version: Version, disproved: bool = True) -> Fact:
        """Sharpen a table fact with the real signatures of *version*; with *disproved*, drop a
        "names differ" that the signature of *version* itself shows to be untrue."""
        snap = self.snapshots[version]
        diff = compare_params(self.torch.params(torch), snap.params(mindspore), self.general)
        if diff is None:
            return base
        phrases = [p for p in base.note.split("; ") if p] if base.note else []
        renames = base.renames
        ms_params = snap.params(mindspore)
        if renames and ms_params is not None and not {"*args", "**kwargs"} & set(ms_params):
            # A differences page may predate a rename in MindSpore (ops.amax's x became input):
            # keep only the renames this version's real signature confirms.
            names = {p.lstrip("*") for p in ms_params}
            valid = tuple((old, new) for old, new in renames if new in names)
            if valid != renames:
                at = phrases.index(rename_phrase(renames)) if rename_phrase(renames) in phrases else None
                if at is not None:
                    if valid:
                        phrases[at] = rename_phrase(valid)
                    else:
                        del phrases[at]
                renames = valid
                if not phrases:
                    return Fact("equivalent", "", (), None)
        generic = CATEGORY_PHRASES["param_name"]
        if base.status == "divergent" and generic in phrases and diff.renamed:
            phrases[phrases.index(generic)] = rename_phrase(diff.renamed)
            renames = renames or diff.renamed
        elif generic in phrases and disproved and not (diff.renamed or diff.missing or diff.moved or renames):
            # This release's real signature has PyTorch's parameter names (ops.ge(input, other)):
            # the tables' "names differ" was carried over from releases that named them x and y.
            phrases.remove(generic)
            if not phrases:
                return Fact("equivalent", "", (), None)
        # A parameter renamed between MindSpore releases: the table describes the newest
        # naming; older releases of the snapshots may still use the old name.
        newest = self.newest.params(mindspore)
        if version != max(self.snapshots) and newest is not None:
            between = compare_params(newest, snap.params(mindspore), ())
            torch_params = {p.lstrip("*") for p in self.torch.params(torch) or ()}
            olds = [(new, old) for new, old in (between.renamed if between else ()) if new in torch_params]
            if olds:
                phrases.append(f"in MindSpore {version[0]}.{version[1]} " + rename_phrase(olds) + " (renamed in a later release)")
                renames = tuple(dict(renames, **dict(olds)).items())
                return Fact("divergent", sentence(phrases), renames, base.diff)
        if phrases == ([p for p in base.note.split("; ") if p] if base.note else []) and renames == base.renames:
            return base
        return Fact(base.status, sentence(phrases), renames, base.diff)

    def stable_fact(self, base: Fact, torch: str, mindspore: str) -> Fact:
        """Name the parameters behind a table's "names differ" for 2.2-2.6 too, when the target's
        signature is the same in every snapshot (2.7-2.10): stable over four releases, it is the
        best evidence there is for the earlier ones."""
        generic = CATEGORY_PHRASES["param_name"]
        signatures = {self.snapshots[v].params(mindspore) for v in SNAPSHOT_VERSIONS}
        if generic not in base.note.split("; ") or len(signatures) != 1 or None in signatures:
            return base
        # Stable names say which parameters differ then, not that none did: those releases'
        # own tables are the better witness of that.
        return self.snapshot_fact(base, torch, mindspore, min(SNAPSHOT_VERSIONS), disproved=False)

    # -- one rule per torch API ------------------------------------------------------------
    def table_rules(self) -> Dict[str, GenRule]:
        pairs: Dict[str, Dict[str, Dict[str, Row]]] = {}
        sections: Dict[str, str] = {}
        for row in self.rows:
            torch = torch_name(row.torch, self.torch)
            target = mindspore_name(row.mindspore, self.snapshots)
            pairs.setdefault(torch, {}).setdefault(target, {}).setdefault(row.table, row)
            sections.setdefault(torch, row.section)
        rules = {}
        for torch, targets in sorted(pairs.items()):
            rule = GenRule(torch, "tables", section=sections[torch])
            for mindspore, by_table in targets.items():
                target = self.table_target(torch, mindspore, by_table)
                if target is not None:
                    rule.targets.append(target)
            self.cpu_fallback(rule)
            rule.targets.sort(key=_preference)
            if not self.torch.has(torch) and self.torch.covers(torch):
                rule.torch_removed = "not in torch 2.13"
            rules[torch] = rule
        return rules

    def table_target(self, torch: str, mindspore: str, by_table: Dict[str, Row]) -> Optional[GenTarget]:
        listed: Dict[Version, Row] = {TABLE_VERSIONS[label]: row for label, row in by_table.items() if TABLE_VERSIONS[label]}
        master = by_table.get("master")
        newest_row = master or by_table[max(by_table, key=lambda label: list(TABLE_VERSIONS).index(label))]
        versions: Dict[Version, Fact] = {}
        later = {v: self.exists(mindspore, v, master is not None) for v in SNAPSHOT_VERSIONS}
        if listed:
            first, last = min(listed), max(listed)
            current = None
            for v in TABLE_ONLY:
                if v in listed:
                    current = self.stable_fact(self.fact(listed[v]), torch, mindspore)
                    versions[v] = current
                elif first < v < last or (v > last and later[(2, 7)] and current is not None):
                    versions[v] = current
        base = self.fact(newest_row)
        for v, present in later.items():
            if present:
                versions[v] = self.snapshot_fact(base, torch, mindspore, v)
        if not versions:
            return None
        # One link per target: the newest differences page (older ones differ only by branch).
        links = [self.fact(by_table[label]).diff for label in TABLE_VERSIONS if label in by_table]
        link = next((d for d in reversed(links) if d), None)
        versions = {v: replace(f, diff=link if f.status == "divergent" else None) for v, f in versions.items()}
        return GenTarget(mindspore, versions, self.backends(mindspore))

    def cpu_fallback(self, rule: GenRule) -> None:
        """Where a target has no CPU kernel and no other target serves CPU, offer the same-named
        ops/nn API (when it exists and its signature can be judged)."""
        for target in list(rule.targets):
            if "cpu" in target.backends or not target.mindspore:
                continue
            uncovered = [v for v in target.versions if not any(
                v in other.versions and "cpu" in other.backends for other in rule.targets)]
            if not uncovered:
                continue
            for candidate in _counterparts(target.mindspore):
                if self.cpu.get(candidate) in NO_CPU_KERNEL:
                    continue
                inferred = self.inferred_target(rule.torch, candidate, only=uncovered, backends=("cpu",),
                                                why=f"{target.mindspore} {NO_CPU_KERNEL.get(self.cpu.get(target.mindspore), 'has no CPU kernel')}; ")
                if inferred is not None:
                    rule.targets.append(inferred)
                    break

    def inferred_target(self, torch: str, mindspore: str, only: Iterable[Version] = ALL_VERSIONS,
                        backends: Tuple[str, ...] = BACKENDS, why: str = "") -> Optional[GenTarget]:
        versions: Dict[Version, Fact] = {}
        for v in only:
            snap = self.snapshots.get(v)
            if snap is None or not snap.has(mindspore):
                continue
            diff = compare_params(self.torch.params(torch), snap.params(mindspore), self.general)
            origin = why + "not in the official mapping tables: msport matched the name"
            if diff is None:
                versions[v] = Fact("divergent", f"{origin}, but could not compare the parameters; check them against the MindSpore documentation")
            elif diff.same:
                versions[v] = Fact("equivalent", f"{origin} and the parameters")
            else:
                versions[v] = Fact("divergent", sentence([*diff.phrases(), origin]), diff.renamed)
        if not versions:
            return None
        return GenTarget(mindspore, versions, backends if backends != BACKENDS else self.backends(mindspore), inferred=True)

    def inferred_rules(self, known: Iterable[str]) -> Dict[str, GenRule]:
        known = set(known)
        rules = {}
        for torch, (kind, _) in sorted(self.torch.apis.items()):
            if torch in known or kind == "module" or any(part.startswith("_") for part in torch.split(".")):
                continue
            module, _, name = torch.rpartition(".")
            for namespace in INFER_NAMESPACES.get(module, ()):
                candidate = f"{namespace}.{name}"
                if self.newest.kind(candidate) != kind and not (kind == "function" and self.newest.kind(candidate) == "method"):
                    continue
                target = self.inferred_target(torch, candidate)
                if target is None:
                    continue
                rule = GenRule(torch, "inferred", [target], section=module)
                self.cpu_fallback(rule)
                rules[torch] = rule
                break
        return rules


def _preference(target: GenTarget):
    status = next(iter(target.versions.values())).status
    return (0 if _is_mint(target.mindspore) else 1, 1 if target.inferred else 0, 0 if status == "equivalent" else 1, tuple(-x for x in target.last))


def ranges(versions: Dict[Version, Fact]) -> List[Tuple[Version, Version, Fact]]:
    """Consecutive versions with the same fact, as (first, last, fact)."""
    out: List[Tuple[Version, Version, Fact]] = []
    for v in ALL_VERSIONS:
        fact = versions.get(v)
        if fact is None:
            continue
        if out and out[-1][2] == fact and ALL_VERSIONS.index(out[-1][1]) == ALL_VERSIONS.index(v) - 1:
            out[-1] = (out[-1][0], v, fact)
        else:
            out.append((v, v, fact))
    return out
