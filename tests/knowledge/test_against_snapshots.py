"""No rule names an API that does not exist: every MindSpore target in every version it
claims (2.7-2.10, from the committed snapshots), every torch name in torch 2.13."""

import importlib
import json
import subprocess
import sys

from msport.knowledge import default_knowledge

from . import snapshots


def _rules():
    return list(dict.fromkeys(default_knowledge().apis.values()))


def _claims():
    """(rule, target, version) for every snapshot version a target claims."""
    for rule in _rules():
        for target in rule.targets:
            if not target.mindspore:
                continue
            for version in snapshots.MS_VERSIONS:
                if target.first <= version <= target.last:
                    yield rule, target, version


def test_every_mindspore_target_exists_in_each_claimed_version():
    wrong, checked = [], 0
    for rule, target, version in _claims():
        snap = snapshots.mindspore(version)
        if snap.covers(target.mindspore):
            checked += 1
            if target.mindspore not in snap:
                wrong.append(f"{rule.origin}: {target.mindspore} is not in mindspore {snapshots.MS_VERSIONS[version]}")
    assert checked > 2000
    assert wrong == []


def test_targets_outside_the_snapshots_exist_in_the_installed_mindspore():
    """Targets the snapshots do not cover (members of classes other than Tensor, Parameter and
    Cell) are looked up in mindspore 2.10 itself."""
    names = sorted({t.mindspore for _, t, v in _claims() if v == (2, 10) and not snapshots.mindspore(v).covers(t.mindspore)})
    # Cell's members are in the 2.10 snapshot (tools/snapshot_api.py), as the ported-idiom check needs.
    assert snapshots.mindspore((2, 10)).covers("mindspore.nn.Cell.construct")
    assert snapshots.mindspore((2, 10)).covers("mindspore.nn.Cell.parameters_and_names")
    script = (
        "import importlib, json, sys\n"
        "missing = []\n"
        "def reached(parts, i):\n"
        "    try:\n"
        "        obj = importlib.import_module('.'.join(parts[:i]))\n"
        "        for part in parts[i:]: obj = getattr(obj, part)\n"
        "        return True\n"
        "    except (ImportError, AttributeError):\n"
        "        return False\n"
        "for name in json.load(sys.stdin):\n"
        "    parts = name.split('.')\n"
        "    # by attribute from any importable prefix: mindspore.profiler.mstx is a class that\n"
        "    # shadows the module of the same name\n"
        "    if not any(reached(parts, i) for i in range(len(parts), 0, -1)):\n"
        "        missing.append(name)\n"
        "print(json.dumps(missing))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=json.dumps(names), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def _torch_exists(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
            return True
        except AttributeError:
            return False
    return False


def test_every_torch_name_exists_in_torch_2_13_or_is_marked_removed():
    snap = snapshots.torch()
    wrong = []
    for rule in _rules():
        if rule.torch.startswith(("torchvision.", "torchaudio.", "torchtext.")):
            continue  # not installed here; these rules come from the official tables only
        for name in (rule.torch, *rule.aliases):
            if name.endswith(".*"):  # a namespace rule: the namespace must exist
                if not rule.torch_removed and not _torch_exists(name[:-2]):
                    wrong.append(f"{rule.origin}: {name}")
                continue
            if name in snap or rule.torch_removed:
                continue
            if snap.covers(name) or not _torch_exists(name):
                wrong.append(f"{rule.origin}: {name}")
    assert wrong == []


def test_removed_torch_apis_are_really_gone():
    snap = snapshots.torch()
    removed = [r for r in _rules() if r.torch_removed]
    for rule in removed:
        assert rule.torch not in snap and not _torch_exists(rule.torch), rule.torch


def _params(snapshot, name):
    entry = snapshot.apis.get(name)
    if not entry or entry[1] is None or {"*args", "**kwargs"} & set(entry[1]):
        return None
    return {p.lstrip("*") for p in entry[1]}


def test_renamed_parameters_exist_in_mindspore():
    """A rename names a real MindSpore parameter of each version it claims (the torch side is not
    checked: the torch snapshot shows one overload of builtins such as torch.max)."""
    wrong = []
    for rule, target, version in _claims():
        if not target.renames:
            continue
        ms_params = _params(snapshots.mindspore(version), target.mindspore)
        for old, new in target.renames:
            if ms_params is not None and new not in ms_params:
                wrong.append(f"{rule.torch} -> {target.mindspore} ({version}): no parameter {new}")
    assert sorted(set(wrong)) == []
