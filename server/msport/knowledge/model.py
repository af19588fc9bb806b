"""Immutable records of what msport knows: rule codes, API mappings, verdicts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import FrozenSet, Optional, Tuple

Version = Tuple[int, int]

STATUSES = ("equivalent", "divergent", "missing")
ALL_BACKENDS: FrozenSet[str] = frozenset({"ascend", "gpu", "cpu"})


@dataclass(frozen=True)
class CodeInfo:
    """A rule code and its documentation, in the manner of ruff's rule pages."""

    code: str
    name: str
    category: str
    severity: str
    summary: str
    why: str
    example: str = ""
    fix: str = ""
    #: Code that does what the example meant and is not reported (ruff's "Use instead").
    use_instead: str = ""


@dataclass(frozen=True)
class Target:
    """One MindSpore counterpart, valid for a range of versions and a set of backends."""

    mindspore: Optional[str]
    first: Version
    last: Version
    backends: FrozenSet[str] = ALL_BACKENDS
    status: Optional[str] = None
    note: Optional[str] = None
    #: torch keyword -> MindSpore keyword, for the rename fix and the hover card.
    renames: Tuple[Tuple[str, str], ...] = ()
    diff: Optional[str] = None
    consequence: Optional[str] = None
    #: What the official tables said where the real packages showed otherwise (the rule keeps both).
    tables: Optional[str] = None

    def applies(self, version: Version, backend: str) -> bool:
        return self.first <= version <= self.last and backend in self.backends


@dataclass(frozen=True)
class ApiRule:
    torch: str
    status: str
    note: str = ""
    diff: Optional[str] = None
    consequence: Optional[str] = None
    targets: Tuple[Target, ...] = ()
    aliases: Tuple[str, ...] = ()
    origin: str = ""  # "rules/api/torch.toml, entry 12 (torch.cat)"
    #: Where the facts come from: "tables" (official mapping tables, checked against the
    #: snapshots), "curated" (written and checked by hand) or "inferred" (from the snapshots
    #: alone: a same-named MindSpore API whose parameters were compared, or, with status
    #: missing, a real torch API that no table lists and MindSpore lacks).
    basis: str = "curated"
    #: Set when the API no longer exists in the torch release msport reads (with why).
    torch_removed: Optional[str] = None


@dataclass(frozen=True)
class Verdict:
    """What msport says about one torch API for one MindSpore version and backend."""

    torch: str
    status: str
    mindspore: Optional[str]
    note: str
    diff: Optional[str]
    consequence: Optional[str]
    rule: ApiRule = field(compare=False, repr=False)
    renames: Tuple[Tuple[str, str], ...] = ()
    #: Set when no target fits the version/backend: the versions/backends where one does.
    available_elsewhere: Optional[str] = None
