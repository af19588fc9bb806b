"""Read the committed API snapshots (rules/snapshots/) for the tests."""

import json
from functools import lru_cache
from pathlib import Path

SNAPSHOTS = Path(__file__).resolve().parents[2] / "rules" / "snapshots"
MS_VERSIONS = {(2, 7): "2.7.0", (2, 8): "2.8.0", (2, 9): "2.9.0", (2, 10): "2.10.0"}


class Snapshot:
    def __init__(self, path: Path):
        data = json.loads(path.read_text(encoding="utf-8"))
        self.apis = data["apis"]
        self.modules = set(data["modules"])
        parents = {name.rpartition(".")[0] for name in self.apis}
        self.classes_with_members = {n for n, (kind, _) in self.apis.items() if kind == "class" and n in parents}

    def covers(self, name: str) -> bool:
        """Whether the snapshot lists the namespace *name* lives in (so absence means absent)."""
        parent = name.rpartition(".")[0]
        return parent in self.modules or parent in self.classes_with_members

    def __contains__(self, name: str) -> bool:
        return name in self.apis


@lru_cache(maxsize=None)
def mindspore(version) -> Snapshot:
    return Snapshot(SNAPSHOTS / f"mindspore-{MS_VERSIONS[version]}.json")


@lru_cache(maxsize=None)
def torch() -> Snapshot:
    return Snapshot(SNAPSHOTS / "torch-2.13.0.json")


def cpu_kernels() -> dict:
    """API -> ok | no_kernel | unknown on CPU; no_kernel also where only graph mode lacks one."""
    data = json.loads((SNAPSHOTS / "cpu-kernels-2.10.0.json").read_text(encoding="utf-8"))
    return {**data["apis"], **{name: status for name, status in data["graph"].items() if status == "no_kernel"}}
