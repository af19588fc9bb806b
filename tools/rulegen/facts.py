"""The facts the rule generator reads: official tables, API snapshots, CPU kernels.

The official tables (../shared/data/api_mapping/) are read here and nowhere else, at
generation time only: msport keeps the facts they state (API pairs, statuses, versions,
links, the structured categories of the differences pages), never their text.
"""

from __future__ import annotations

import csv
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TABLES = ROOT.parent / "shared" / "data" / "api_mapping"
SNAPSHOTS = ROOT / "rules" / "snapshots"

Version = Tuple[int, int]

#: Docs branch of each table -> the MindSpore version it describes. "master" (2025-07-04)
#: is the newest table, just before 2.7; it is read for statuses, and whether its targets
#: exist in 2.7-2.10 is decided by the snapshots.
TABLE_VERSIONS: Dict[str, Optional[Version]] = {
    "2.2": (2, 2), "2.3.1": (2, 3), "2.4.10": (2, 4), "2.5.0": (2, 5), "2.6.0": (2, 6), "master": None,
}
DOC_BRANCH = {"2.2": "r2.2", "2.3.1": "r2.3.1", "2.4.10": "r2.4.10", "2.5.0": "r2.5.0", "2.6.0": "r2.6.0", "master": "master"}
TABLE_ONLY: Tuple[Version, ...] = ((2, 2), (2, 3), (2, 4), (2, 5), (2, 6))
SNAPSHOT_VERSIONS: Dict[Version, str] = {(2, 7): "2.7.0", (2, 8): "2.8.0", (2, 9): "2.9.0", (2, 10): "2.10.0"}
ALL_VERSIONS: Tuple[Version, ...] = TABLE_ONLY + tuple(SNAPSHOT_VERSIONS)
TORCH_SNAPSHOT = "torch-2.13.0.json"
CPU_KERNELS = "cpu-kernels-2.10.0.json"

#: Names the tables spell differently from the packages (checked against the snapshots or,
#: for modules they do not cover, the installed packages).
TORCH_SPELLING = {
    "torch.Tensor.log_normal": "torch.Tensor.log_normal_",
    "torch.nn.CeLU": "torch.nn.CELU",
    "torch.nn.SeLU": "torch.nn.SELU",
    "torch.nn.LogSoftMax": "torch.nn.LogSoftmax",
    "torch.optim.AdaMax": "torch.optim.Adamax",
    "torch.optim.RMSProp": "torch.optim.RMSprop",
}


@dataclass(frozen=True)
class Row:
    """One (torch API, MindSpore API) pair as one table version lists it."""

    table: str  # docs branch label, e.g. "2.4.10"
    section: str
    framework: str
    torch: str  # as spelled in the table
    mindspore: str
    status: str  # consistent | minor_diff_note | diff_page
    categories: Tuple[str, ...]  # note_category keywords
    diff_page: str


@dataclass(frozen=True)
class DiffDetails:
    """The structured part of one "differences" page (its categories and parameter names)."""

    categories: Tuple[str, ...]
    renamed: Tuple[Tuple[str, str], ...]
    missing: Tuple[str, ...]
    defaults: Tuple[str, ...]
    types: Tuple[str, ...]
    behaviour: Tuple[str, ...]


def _split(text: str) -> Tuple[str, ...]:
    return tuple(p.strip() for p in text.replace(";", ",").split(",") if p.strip())


def read_rows(tables: Path) -> List[Row]:
    rows = []
    for label in TABLE_VERSIONS:
        with open(tables / f"pytorch_api_mapping_{label}.csv", newline="", encoding="utf-8") as handle:
            for raw in csv.DictReader(handle):
                rows.append(Row(
                    table=label, section=raw["section"], framework=raw["framework"], torch=raw["torch_api"].strip(),
                    mindspore=raw["mindspore_api"].strip(), status=raw["status"],
                    categories=_split(raw["note_category"]), diff_page=raw["diff_page"].strip(),
                ))
    return rows


def read_diff_details(tables: Path) -> Dict[Tuple[str, str], DiffDetails]:
    """(table label, diff page path) -> the page's structured categories."""
    details = {}
    for label in TABLE_VERSIONS:
        with open(tables / f"pytorch_diff_summary_{label}.csv", newline="", encoding="utf-8") as handle:
            for raw in csv.DictReader(handle):
                renamed = []
                for pair in _split(raw["renamed_params"]):
                    old, _, new = pair.partition("->")
                    # Keyword names only: `*sizes->shape` renames the keyword sizes.
                    old, new = old.strip().lstrip("*"), new.strip().lstrip("*")
                    if old and new:
                        renamed.append((old, new))
                details[(label, raw["diff_page"])] = DiffDetails(
                    categories=_split(raw["diff_categories"]), renamed=tuple(renamed),
                    missing=_split(raw["params_missing_in_mindspore"]), defaults=_split(raw["default_differs"]),
                    types=_split(raw["type_or_shape_differs"]), behaviour=_split(raw["behaviour_differs"]),
                )
    return details


def read_general_params(tables: Path) -> Tuple[str, ...]:
    with open(tables / "general_difference_params.csv", newline="", encoding="utf-8") as handle:
        return tuple(raw["torch_param"].strip() for raw in csv.DictReader(handle))


@dataclass
class Snapshot:
    """One package's public API: qualified name -> (kind, parameters or None)."""

    version: str
    apis: Dict[str, Tuple[str, Optional[Tuple[str, ...]]]]
    modules: Tuple[str, ...]
    _classes_with_members: frozenset = field(default=frozenset())

    @classmethod
    def load(cls, path: Path) -> "Snapshot":
        data = json.loads(path.read_text(encoding="utf-8"))
        apis = {name: (kind, tuple(params) if params is not None else None) for name, (kind, params) in data["apis"].items()}
        parents = {name.rpartition(".")[0] for name in apis}
        with_members = frozenset(n for n, (kind, _) in apis.items() if kind == "class" and n in parents)
        return cls(data["version"], apis, tuple(data["modules"]), with_members)

    def covers(self, name: str) -> bool:
        """Whether the snapshot can say if *name* exists (its module or class was listed)."""
        parent = name.rpartition(".")[0]
        return parent in self.modules or parent in self._classes_with_members

    def has(self, name: str) -> bool:
        return name in self.apis

    def kind(self, name: str) -> Optional[str]:
        entry = self.apis.get(name)
        return entry[0] if entry else None

    def params(self, name: str) -> Optional[Tuple[str, ...]]:
        entry = self.apis.get(name)
        return entry[1] if entry else None

    def spelled(self, name: str) -> str:
        """*name* as the package spells it when the table got the case wrong (nn.Hsigmoid)."""
        if name in self.apis or not self.covers(name):
            return name
        lowered = name.lower()
        matches = [n for n in self.apis if n.lower() == lowered]
        return matches[0] if len(matches) == 1 else name


def load_snapshots(directory: Path = SNAPSHOTS) -> Dict[Version, Snapshot]:
    return {v: Snapshot.load(directory / f"mindspore-{label}.json") for v, label in SNAPSHOT_VERSIONS.items()}


def load_torch(directory: Path = SNAPSHOTS) -> Snapshot:
    return Snapshot.load(directory / TORCH_SNAPSHOT)


def load_cpu_kernels(directory: Path = SNAPSHOTS) -> Dict[str, str]:
    """mindspore API -> ok | no_kernel | no_graph_kernel | unknown on CPU (2.10); empty until the
    probe ran. no_graph_kernel: it runs in PyNative, but compiled by mindspore.jit it finds no
    CPU kernel; msport's default mode is graph, so it counts as missing on CPU."""
    path = directory / CPU_KERNELS
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    apis = dict(data["apis"])
    apis.update((name, "no_graph_kernel") for name, status in data.get("graph", {}).items() if status == "no_kernel")
    return apis


def read_toml(path: Path) -> Dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def torch_name(name: str, torch: Snapshot) -> str:
    """The torch API a table row means, with the tables' misspellings corrected."""
    return TORCH_SPELLING.get(name, name)


def mindspore_name(name: str, snapshots: Dict[Version, Snapshot]) -> str:
    newest = snapshots[max(snapshots)]
    return newest.spelled(name)


def diff_url(table: str, page: str) -> Optional[str]:
    if not page:
        return None
    stem = page.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return f"https://www.mindspore.cn/docs/en/{DOC_BRANCH[table]}/note/api_mapping/pytorch_diff/{stem}.html"


def table_rows_in_range(rows: Iterable[Row]) -> List[Row]:
    return [r for r in rows if r.table in TABLE_VERSIONS]
