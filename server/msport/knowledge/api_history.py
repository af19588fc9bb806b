"""Which versions of the real packages have an API, and its parameters in each.

Read from the snapshots in ``rules/snapshots/`` (generated from the installed packages by
``tools/snapshot_api.py``), so the hover card can say "in MindSpore 2.7-2.10, parameters
renamed in 2.8" as a lookup. Loaded on first use only: the typing path never needs it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .shared import load_once
from .loader import rules_dir
from .model import Version

Entry = Tuple[str, Optional[Tuple[str, ...]]]  # (kind, parameter names or None when unknown)


@dataclass(frozen=True)
class Snapshot:
    package: str
    version: Version
    label: str  # "2.10.0"
    apis: Dict[str, Entry]
    modules: frozenset


@dataclass(frozen=True)
class Change:
    """How an API differs between two consecutive snapshots."""

    version: Version
    what: str  # "added", "removed", "parameters"
    before: Optional[Tuple[str, ...]] = None
    after: Optional[Tuple[str, ...]] = None


class ApiHistory:
    def __init__(self, snapshots: Sequence[Snapshot], overloads: Optional[Dict[Tuple[str, Version], Dict[str, Tuple[str, ...]]]] = None):
        self._by_package: Dict[str, List[Snapshot]] = {}
        for snap in sorted(snapshots, key=lambda s: s.version):
            self._by_package.setdefault(snap.package, []).append(snap)
        #: (package, version) -> API -> its signatures as its docstring states them, for the
        #: APIs with several (tools/snapshot_overloads.py).
        self._overloads = overloads or {}
        self._short_names: Dict[Tuple[str, Version], Dict[str, List[str]]] = {}

    def same_short_name(self, package: str, short: str, version: Version) -> List[str]:
        """The APIs (not modules or constants) of *package*'s snapshot of *version* whose last
        name is *short*, sorted."""
        snap = next((s for s in self.snapshots(package) if s.version == version), None)
        if snap is None:
            return []
        index = self._short_names.get((package, version))
        if index is None:
            index = {}
            for name, (kind, _) in snap.apis.items():
                if kind not in ("module", "constant"):
                    index.setdefault(name.rsplit(".", 1)[-1], []).append(name)
            self._short_names[(package, version)] = index
        return sorted(index.get(short, ()))

    def overloads(self, name: str, version: Optional[Version] = None) -> Optional[Tuple[Version, Tuple[str, ...]]]:
        """(release, signatures) of an API with several signatures: those of *version* when
        msport read that release's docstrings, else of the newest release it read."""
        package = _package(name)
        read = sorted((v for p, v in self._overloads if p == package), reverse=True)
        if version in read:
            read = [version]
        for release in read:
            found = self._overloads[(package, release)].get(name)
            if found:
                return release, found
        return None

    def snapshots(self, package: str) -> Sequence[Snapshot]:
        return self._by_package.get(package, ())

    def snapshot(self, package: str, version: Version) -> Optional[Snapshot]:
        for snap in self.snapshots(package):
            if snap.version == version:
                return snap
        return None

    def entry(self, name: str, version: Optional[Version] = None) -> Optional[Entry]:
        """The API's entry in the snapshot of *version* (default: the newest that has it)."""
        snaps = self.snapshots(_package(name))
        if version is not None:
            snaps = [s for s in snaps if s.version == version]
        for snap in reversed(list(snaps)):
            if name in snap.apis:
                return snap.apis[name]
        return None

    def present_in(self, name: str) -> List[Version]:
        return [s.version for s in self.snapshots(_package(name)) if name in s.apis]

    def changes(self, name: str) -> List[Change]:
        """Additions, removals and parameter changes between consecutive snapshots."""
        found: List[Change] = []
        previous: Optional[Snapshot] = None
        for snap in self.snapshots(_package(name)):
            if previous is not None:
                before, after = previous.apis.get(name), snap.apis.get(name)
                if before is None and after is not None:
                    found.append(Change(snap.version, "added"))
                elif before is not None and after is None:
                    found.append(Change(snap.version, "removed"))
                elif before and after and before[1] is not None and after[1] is not None and before[1] != after[1]:
                    found.append(Change(snap.version, "parameters", before[1], after[1]))
            previous = snap
        return found

    def is_module(self, name: str) -> bool:
        return any(name in s.modules for s in self.snapshots(_package(name)))


def _package(name: str) -> str:
    return name.split(".", 1)[0]


def _version(label: str) -> Version:
    major, minor = label.split(".")[:2]
    return int(major), int(minor)


def load_history(directory: Optional[Path] = None) -> ApiHistory:
    directory = (directory or rules_dir()) / "snapshots"
    snapshots = []
    overloads: Dict[Tuple[str, Version], Dict[str, Tuple[str, ...]]] = {}
    for path in sorted(directory.glob("overloads-*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            overloads[(data["package"], _version(data["version"]))] = {name: tuple(sigs) for name, sigs in data["overloads"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue  # the cards then show the snapshot's one signature
    for path in sorted(directory.glob("*.json")):
        if path.name.startswith("overloads-"):
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            apis = {name: (value[0], tuple(value[1]) if value[1] is not None else None) for name, value in data["apis"].items()}
            snapshots.append(Snapshot(data["package"], _version(data["version"]), data["version"], apis, frozenset(data.get("modules", {}))))
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            continue  # a damaged snapshot only costs the cards their version lines
    return ApiHistory(snapshots, overloads)


default_history = load_once(load_history)
