"""rules/sparse.toml: loads without a problem, names real APIs, and fills its templates."""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_loads_without_problems():
    from msport.knowledge.sparse import load_sparse

    rules = load_sparse()
    assert rules.problems == ()
    assert rules.operation("torch.sparse.mm").id == "matmul"
    assert rules.operation_of_counterpart("mindspore.CSRTensor.mm").id == "matmul"
    assert rules.result("csr().mm(D)", (2, 10)).status("pynative") == "fails"


def test_api_names_resolve_in_the_real_packages():
    """Every torch and MindSpore name the rules use is an attribute of the installed packages
    (private ones such as Tensor._indices included, which the snapshots leave out)."""
    from msport.knowledge.sparse import load_sparse

    rules = load_sparse()
    names = [a for c in rules.constructors for a in c.apis] + [a for o in rules.operations for a in o.apis]
    names += [c.mindspore for o in rules.operations for _, c in o.counterparts if c.mindspore] + [a for a, _ in rules.deprecated]
    names += [value for value, _ in rules.layouts]
    names += [a for _, apis, values, _ in rules.unsupported_layouts for a in (*apis, *values)]
    code = (
        "import importlib, json, sys\n"
        "missing = []\n"
        "for name in json.loads(sys.argv[1]):\n"
        "    parts = name.split('.')\n"
        "    value = importlib.import_module(parts[0])\n"
        "    try:\n"
        "        for part in parts[1:]:\n"
        "            value = getattr(value, part)\n"
        "    except AttributeError:\n"
        "        missing.append(name)\n"
        "print(json.dumps(missing))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, json.dumps(sorted(set(names)))], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_message_placeholders():
    from msport.knowledge.sparse import load_sparse

    rules = load_sparse()
    filled = {
        "missing": {"op", "layout", "value", "layout_class", "fallback", "memory"},
        "fails": {"op", "layout", "value", "target", "failure", "fallback", "memory"},
        "differs": {"op", "layout", "value", "difference"},
        "rank": {"op", "dims", "shape", "memory"},
        "int32": {"op", "users", "measured"},
        "deprecated": {"op", "version", "instead"},
        "memory_known": {"shape", "entries", "size"},
        "failure_measured": {"error", "measured", "modes"},
        "failure_documented": {"platforms", "backend"},
    }
    for key, names in filled.items():
        used = set(re.findall(r"(?<!\{)\{(\w+)\}(?!\})", rules.message(key)))
        assert used <= names, (key, used - names)
