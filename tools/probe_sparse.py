#!/usr/bin/env python3
"""Measure what MindSpore's sparse tensors do on CPU, and write it into rules/sparse.toml.

    python tools/probe_sparse.py             # every case of rules/sparse.toml, writes the table
    python tools/probe_sparse.py --out -     # print the records as JSON instead
    python tools/probe_sparse.py --recheck   # re-run the table's cases, report differences

Run it with a Python that has mindspore (numpy<2). Every `case` of rules/sparse.toml (the
counterparts of operations, proven replacements, the [[fact]] cases) runs in PyNative and as the
body of a mindspore.jit function; `ok` or `fails` with the first line of the error. For each
MindSpore API named there (and each [[deprecated]] one), the platforms its docstring lists.

A failed sparse kernel can leave the process unable to run the next one ("Send request before
Open() error."), so a child stops after a failure and the next case starts in a fresh process.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tools"))

from second_order_harness import message_lines  # noqa: E402

TABLE = ROOT / "rules" / "sparse.toml"
MARKER = "# ---- MEASURED: written by tools/probe_sparse.py below this line; do not edit ----"
MODES = ("pynative", "jit")

PRELUDE = '''\
import numpy as np
import mindspore
import mindspore as ms
from mindspore import COOTensor, CSRTensor, Tensor, nn, ops


def coo():
    return COOTensor(Tensor(np.array([[0, 1], [1, 2], [2, 0]]), ms.int64), Tensor(np.array([1.0, 2.0, 3.0], np.float32)), (3, 4))


def coo32():
    return COOTensor(Tensor(np.array([[0, 1], [1, 2], [2, 0]]), ms.int32), Tensor(np.array([1.0, 2.0, 3.0], np.float32)), (3, 4))


def csr():
    return CSRTensor(Tensor(np.array([0, 1, 2, 3]), ms.int32), Tensor(np.array([1, 2, 0]), ms.int32),
                     Tensor(np.array([1.0, 2.0, 3.0], np.float32)), (3, 4))


D = Tensor(np.ones((4, 2), np.float32))
V = Tensor(np.ones((4, 1), np.float32))
DD = Tensor(np.ones((3, 4), np.float32))
'''


def cases_and_apis(table_text):
    """The cases of the hand-written part of rules/sparse.toml, and the MindSpore APIs it names."""
    from msport.knowledge import toml

    data = toml.loads(table_text.partition(MARKER)[0])
    cases, apis = [], []
    for operation in data.get("operation", []):
        for layout in ("coo", "csr"):
            entry = operation.get(layout) or {}
            for key in ("case", "instead"):
                if key in entry:
                    cases.append(entry[key])
            if "mindspore" in entry:
                apis.append(entry["mindspore"])
    for fact in data.get("fact", []):
        cases += fact.get("fails", []) + fact.get("runs", [])
    for item in data.get("deprecated", []):
        apis += item["apis"]
    return list(dict.fromkeys(cases)), list(dict.fromkeys(apis))


def _first_line(exc):
    """The error's first line that says something (not mindspore's rules, headings or the
    compiler's "# In file ..." trace of the probe's own scratch module)."""
    lines = [ln for ln in message_lines(exc) if not ln.startswith(("#", "In file", "^"))]
    text = type(exc).__name__ + ": " + (lines[0] if lines else "")
    return re.sub(r"0x[0-9a-fA-F]+", "0x?", text)[:200]


#: Failures after which the sparse runtime of the process is unusable (the next case fails
#: with "Send request before Open() error."): the next case starts in a fresh process.
POISONING = ("RuntimeError",)


def _force(value):
    if hasattr(value, "to_dense"):
        value = value.to_dense()
    if hasattr(value, "asnumpy"):
        value.asnumpy()
    return value


def child(items_path, log_path):
    """Run the cases listed in items_path (one mode each); stop after the first failure."""
    import warnings

    warnings.filterwarnings("ignore")
    import mindspore as ms

    ms.set_device("CPU")
    ms.set_context(pynative_synchronize=True)
    with tempfile.TemporaryDirectory(prefix="sparse-probe-") as workdir:
        _run_cases(items_path, log_path, workdir, ms)


def _run_cases(items_path, log_path, workdir, ms):
    items = json.loads(Path(items_path).read_text())
    with open(log_path, "a", encoding="utf-8", buffering=1) as log:
        for number, (case, mode) in enumerate(items):
            log.write(json.dumps({"start": [case, mode]}) + "\n")
            source = PRELUDE + ("\n\n@ms.jit\n" if mode == "jit" else "\n\n") + f"def run():\n    return {case}\n"
            name = f"sparse_case_{os.getpid()}_{number}"
            path = os.path.join(workdir, name + ".py")
            Path(path).write_text(source)
            record = {"case": case, "mode": mode}
            try:
                spec = importlib.util.spec_from_file_location(name, path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module  # jit looks the function's globals up by module name
                spec.loader.exec_module(module)
                _force(module.run())
                record["status"] = "ok"
            except Exception as exc:
                record["status"], record["error"] = "fails", _first_line(exc)
            log.write(json.dumps(record) + "\n")
            if record["status"] != "ok" and record["error"].startswith(POISONING):
                return


def platforms(apis):
    """{api: the platforms its docstring lists} (Deprecated is listed as a platform)."""
    code = ("import json, importlib\nout = {}\nfor name in %r:\n"
            "    module, _, attr = name.rpartition('.')\n"
            "    try:\n        obj = getattr(importlib.import_module(module), attr)\n"
            "    except Exception:\n"
            "        try:\n            owner, _, cls = module.rpartition('.')\n"
            "            obj = getattr(getattr(importlib.import_module(owner), cls), attr)\n"
            "        except Exception:\n            continue\n"
            "    doc = getattr(obj, '__doc__', '') or ''\n    at = doc.find('Supported Platforms')\n"
            "    if at >= 0:\n        import re\n"
            "        head = doc[at:at + 200].split(chr(10) + chr(10) + '    Examples')[0]\n"
            "        out[name] = re.findall(r'``(\\w+)``', head.split('Examples')[0]) or (['Deprecated'] if 'Deprecated' in head.split('Examples')[0] else [])\n"
            "print('@@' + json.dumps(out))\n") % (apis,)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ, GLOG_v="3"))
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("@@"))
    return json.loads(line[2:])


def measure(cases, python=sys.executable, progress=True):
    """{(case, mode): record}, a fresh process after each failure."""
    todo = [[case, mode] for case in cases for mode in MODES]
    done = {}
    env = dict(os.environ, GLOG_v="3", PYTHONWARNINGS="ignore")
    with tempfile.TemporaryDirectory(prefix="sparse-probe-parent-") as workdir:
        while todo:
            items_path = os.path.join(workdir, f"items{len(done)}.json")
            log_path = items_path[:-5] + ".log"
            Path(items_path).write_text(json.dumps(todo))
            try:
                subprocess.run([python, os.path.abspath(__file__), "--child", items_path, log_path], cwd=workdir, env=env, timeout=600,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                ended = None
            except subprocess.TimeoutExpired:
                ended = "timed out"
            started = None
            for line in Path(log_path).read_text().splitlines() if os.path.exists(log_path) else ():
                record = json.loads(line)
                if "start" in record:
                    started = tuple(record["start"])
                else:
                    done[(record["case"], record["mode"])] = record
                    started = None
                    if progress:
                        print(f"[{len(done)}/{len(cases) * 2}] {record['mode']}: {record['case']}: {record['status']} {record.get('error', '')}",
                              file=sys.stderr, flush=True)
            if started is not None:  # the case killed its process
                done[started] = {"case": started[0], "mode": started[1], "status": "fails", "error": f"the process died ({ended or 'crash'})"}
            todo = [item for item in todo if tuple(item) not in done]
    return done


def _toml(value):
    return json.dumps(value, ensure_ascii=False)


def write_table(results, found_platforms, version, path):
    from msport.knowledge import toml

    text = path.read_text(encoding="utf-8")
    head, marker, tail = text.partition(MARKER)
    kept = [e for e in toml.loads(tail).get("measured", []) if e.get("version") != version]
    blocks = []
    for entry in kept:
        blocks.append("\n".join(["[[measured]]"] + [f"{k} = {_toml(v)}" for k, v in entry.items()]))
    for case in sorted({c for c, _ in results}):
        lines = ["[[measured]]", f"case = {_toml(case)}", f"version = {_toml(version)}"]
        for mode in MODES:
            record = results.get((case, mode))
            if record is None:
                continue
            lines.append(f"{mode} = {_toml(record['status'])}")
            if record.get("error"):
                lines.append(f"{mode}_error = {_toml(record['error'])}")
        blocks.append("\n".join(lines))
    for api in sorted(found_platforms):
        blocks.append("\n".join(["[[measured]]", f"api = {_toml(api)}", f"version = {_toml(version)}",
                                 f"platforms = [{', '.join(_toml(p) for p in found_platforms[api])}]"]))
    path.write_text(head + MARKER + "\n\n" + "\n\n".join(blocks) + "\n", encoding="utf-8")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default=str(TABLE), help="the table to update, or - to print the records as JSON")
    parser.add_argument("--recheck", action="store_true", help="re-run the measured cases and report differences")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    version_text = subprocess.run([sys.executable, "-c", "import mindspore; print(mindspore.__version__)"], capture_output=True,
                                  text=True, check=True).stdout.strip().splitlines()[-1]
    version = ".".join(version_text.split(".")[:2])
    started = time.time()
    text = TABLE.read_text(encoding="utf-8")
    cases, apis = cases_and_apis(text)
    results = measure(cases)
    found_platforms = platforms(apis)
    print(f"{len(cases)} cases, {len(found_platforms)} docstrings in {time.time() - started:.0f} s", file=sys.stderr)
    if args.recheck:
        from msport.knowledge import toml

        table = {e["case"]: e for e in toml.loads(text.partition(MARKER)[2]).get("measured", []) if "case" in e and e.get("version") == version}
        differ = [f"{c} ({m})" for (c, m), r in results.items() if table.get(c, {}).get(m) != r["status"]]
        print(f"{len(differ)} differ: {differ}", file=sys.stderr)
        return 1 if differ else 0
    if args.out == "-":
        print(json.dumps({"cases": [r for r in results.values()], "platforms": found_platforms}, indent=1))
    else:
        write_table(results, found_platforms, version, Path(args.out))
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
