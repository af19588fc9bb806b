#!/usr/bin/env python3
"""Measure second-order gradient support of every mapped API on the real packages, and write
the table into rules/second_order.toml.

    python tools/probe_second_order.py                      # all, writes rules/second_order.toml
    python tools/probe_second_order.py --only elu --out -   # a few, printed
    python tools/probe_second_order.py --recheck            # re-run the table's entries, compare

Run it with a Python that has torch 2.13 (CPU) and mindspore (numpy<2). For every API rule in
rules/api/ (torch API -> MindSpore target) of the differentiable namespaces, and every MindSpore
target the rule names for this MindSpore version, the probe looks for a call form that torch
differentiates twice (a series of small argument sets, CANDIDATES / LAYERS), then runs the same
call on MindSpore and classifies grad-of-grad in PyNative, with the inner gradient under jit, and
as a whole graph (see second_order_harness.py for the statuses). Each MindSpore target is
measured once, with the call form of the first torch API that maps to it.

Cases run in child processes, a batch each, logging every case before running it: a crash in
native code loses one case (recorded as a crash), not the run. Progress goes to stderr.

The table replaces the part of rules/second_order.toml below the MEASURED marker, entries of
other MindSpore versions kept; the hand-written part above it (detection vocabulary, messages,
workarounds) is left as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "server"))

import second_order_harness as harness  # noqa: E402
from msport.knowledge.second_order import MARKER  # noqa: E402

TABLE = ROOT / "rules" / "second_order.toml"
NAMESPACES = ("torch", "torch.Tensor", "torch.nn.functional", "torch.nn", "torch.special", "torch.linalg", "torch.fft")
#: Names that are random, in-place, creation or not differentiable at all: not probed.
SKIP_WORDS = ("rand", "dropout", "Dropout", "bernoulli", "multinomial", "normal", "uniform", "poisson", "manual_seed",
              "seed", "empty", "zeros", "ones", "full", "arange", "linspace", "logspace", "eye", "tensor", "Tensor",
              "from_numpy", "is_", "save", "load", "device", "cuda", "numpy", "tolist", "item", "size", "dim", "numel",
              "requires_grad", "backward", "register", "detach", "clone", "to", "cpu", "type", "Module", "Parameter",
              "Sequential", "ModuleList", "ModuleDict", "Identity", "Embedding", "RNN", "LSTM", "GRU", "Transformer",
              "MultiheadAttention", "init", "utils", "parameters", "state_dict", "apply", "train", "eval")

X = ("x", "xp", "xu", "xv", "xs", "xspd", "x3", "x4", "x5")

#: Argument sets for functions and methods, most common first. Tokens: an input of X (the one
#: differentiated: the first that appears), a constant of the harness, a list, a literal, a dict
#: of keyword arguments. Inputs are tried with mixed signs first, then positive, then in (-1, 1).
CANDIDATES = [
    ("x",), ("x", -1), ("x", 1), ("x", 0), ("x", "Y"), ("x", "WT"), ("x", "TGT"), ("x", "P"),
    ("x", {"dim": -1}), ("x", 2), ("x", 0.5), ("x", -0.5, 0.5), ("x", (4, 3)), ("x", (12,)), ("x", 1, 0), ("x", (1, 0)),
    (["x", "Y"],), (["x", "Y"], 1), ("x", 1, "IDX2"), ("x", 0, "IDX"), ("x", "MASK", 0.0), ("MASK", "x", "Y"),
    ("x", "LIN_W", "LIN_B"), ("x", "LIN_W"), ("x", "Y", "Y"), ("x", "Y", 0.5), ("x", (4,), "NW", "NB"), ("x", (4,)),
    ("x", "V4"), ("xv",), ("xv", "V6"), ("xs",), ("xspd",), ("xs", "S3"),
    ("x4",), ("x4", 2), ("x4", 2, 2), ("x4", "W4"), ("x4", "W4", "B3"), ("x4", 1), ("x4", (3, 3)), ("x4", (2, 2)),
    ("x4", {"scale_factor": 2.0, "mode": "bilinear", "align_corners": False}), ("x4", {"scale_factor": 2.0}),
    ("x4", "GRID"), ("x4", {"size": (3, 3), "mode": "bilinear", "align_corners": False}), ("x4", 2, "NW2", "NB2"),
    ("x4", None, None, "NW2", "NB2", True), ("x4", 1, 2), ("x4", 2, 1),
    ("x3",), ("x3", 2), ("x3", "W3"), ("x3", "W3", "B3"), ("x3", 1),
    ("x5", 2), ("x5", "W5"),
]
#: Layers: (torch constructor arguments, input). The MindSpore cell gets the same arguments,
#: plus LAYER_EXTRA where its defaults differ from torch's (the probe measures second order,
#: not the divergence of defaults, which the API rules report).
LAYERS = [
    ((), "x"), ((), "x4"), ((), "x3"), ((4, 5), "x"), ((4,), "x"), ((2,), "x4"), ((2,), "x3"), ((2, 3, 3), "x4"),
    ((2, 3, 3), "x3"), ((2, 3, 2), "x5"), ((2,), "x5"), (((4,),), "x"), ((2, 2), "x4"), ((2, 2), "x3"), ((-1,), "x"),
    ((1,), "x4"), (((3, 3),), "x4"), ((1, 2), "x4"), ((0.5,), "x"), ((4, 4), "x"),
]
LAYER_EXTRA = {
    "mindspore.nn.Conv1d": {"pad_mode": "valid", "has_bias": True},
    "mindspore.nn.Conv2d": {"pad_mode": "valid", "has_bias": True},
    "mindspore.nn.Conv3d": {"pad_mode": "valid", "has_bias": True},
    "mindspore.nn.Conv1dTranspose": {"pad_mode": "valid", "has_bias": True},
    "mindspore.nn.Conv2dTranspose": {"pad_mode": "valid", "has_bias": True},
    "mindspore.nn.Conv3dTranspose": {"pad_mode": "valid", "has_bias": True},
    "mindspore.nn.MaxPool1d": {"stride": 2}, "mindspore.nn.MaxPool2d": {"stride": 2},
    "mindspore.nn.AvgPool1d": {"stride": 2}, "mindspore.nn.AvgPool2d": {"stride": 2},
}
DOMAINS = {"x": ("x", "xp", "xu")}  # the alternatives of the 3x4 input

BATCH = 40
BATCH_TIMEOUT = 1800
SINGLE_TIMEOUT = 300
HANG = 150  # seconds without a finished case: the child is stuck in native code


# -- what to probe -------------------------------------------------------------------------
def pairs(version, only=None):
    """[(mindspore target, [torch APIs], renames of the first)] of the mapped APIs worth probing."""
    from msport.knowledge import default_knowledge

    knowledge = default_knowledge()
    targets = {}
    for rule in sorted(set(knowledge.apis.values()), key=lambda r: r.torch):
        namespace, _, short = rule.torch.rpartition(".")
        if namespace not in NAMESPACES or rule.torch.endswith("*") or short.startswith("_") or short.endswith("_"):
            continue
        if any(word in short for word in SKIP_WORDS):
            continue
        for target in rule.targets:
            if not target.mindspore or not target.first <= version <= target.last:
                continue
            if only and only not in rule.torch and only not in target.mindspore:
                continue
            entry = targets.setdefault(target.mindspore, [target.mindspore, [], dict(target.renames)])
            if rule.torch not in entry[1]:
                entry[1].append(rule.torch)
    return [tuple(v) for _, v in sorted(targets.items())]


def _render(token, renames=None, key=None):
    if isinstance(token, str) and (token in X or token.isupper() or "_" in token and token.split("_")[0].isupper()):
        return "x" if token in X else token
    if isinstance(token, list):
        return "[" + ", ".join(_render(t) for t in token) + "]"
    return repr(token)


def _arguments(args, renames):
    parts = []
    for token in args:
        if isinstance(token, dict):
            parts += [f"{renames.get(k, k)}={_render(v)}" for k, v in token.items()]
        else:
            parts.append(_render(token))
    return parts


def _x_token(args):
    for token in args:
        for item in token if isinstance(token, list) else [token]:
            if isinstance(item, str) and item in X:
                return item
    return None


def _is_class(name):
    return name.rpartition(".")[2][:1].isupper()


def call_forms(torch_name, ms_name, renames):
    """(input token, torch call, mindspore call, torch setup, mindspore setup) to try, in order."""
    torch_short = torch_name.rpartition(".")[2]
    ms_module, _, ms_short = ms_name.rpartition(".")
    if torch_name.startswith("torch.nn.") and _is_class(torch_name) and torch_name.count(".") == 2:
        if not _is_class(ms_name) or ms_module == "mindspore.ops":
            return
        extra = LAYER_EXTRA.get(ms_name, {})
        # A loss layer takes a target beside its input (the call forms of its functional form).
        calls = ("L(x)", "L(x, Y)", "L(x, P)") if torch_short.endswith("Loss") else ("L(x)",)
        for call in calls:
            for init, token in LAYERS:
                torch_setup = f"{torch_name}({', '.join(map(repr, init))})"
                ms_args = [*map(repr, init), *(f"{k}={v!r}" for k, v in extra.items())]
                for domain in DOMAINS.get(token, (token,)):
                    yield domain, call, call, torch_setup, f"{ms_name}({', '.join(ms_args)})"
        return
    torch_method = torch_name.startswith("torch.Tensor.")
    ms_method = ms_name.startswith("mindspore.Tensor.")
    primitive = _is_class(ms_name)
    for args in CANDIDATES:
        token = _x_token(args)
        if token is None or ((torch_method or ms_method) and args[0] != token):
            continue
        torch_args, ms_args = _arguments(args, {}), _arguments(args, renames)
        torch_call = f"x.{torch_short}({', '.join(torch_args[1:])})" if torch_method else f"{torch_name}({', '.join(torch_args)})"
        if ms_method:
            ms_call = f"x.{ms_short}({', '.join(ms_args[1:])})"
        elif primitive:
            ms_call = f"{ms_name}()({', '.join(ms_args)})"
        else:
            ms_call = f"{ms_name}({', '.join(ms_args)})"
        for domain in DOMAINS.get(token, (token,)):
            yield domain, torch_call, ms_call, None, None


# -- child: runs cases -----------------------------------------------------------------------
MAX_MS_ATTEMPTS = 3
MAX_FORMS = 12
ARGUMENT_ERRORS = ("ValueError", "TypeError", "cannot build the call")


def _argument_error(results):
    return all(status == "n/a" and detail.startswith(ARGUMENT_ERRORS) for status, detail in results.values())


def probe_target(torch_side, ms_side, ms_name, torch_names, renames):
    """The entry for one MindSpore target: the first call form torch differentiates twice that
    MindSpore also runs at first order, else the most telling of up to MAX_MS_ATTEMPTS."""
    tried = []
    for torch_name in torch_names[:1]:
        for token, torch_call, ms_call, torch_setup, ms_setup in call_forms(torch_name, ms_name, renames):
            try:
                path, w_shape, g, h, layer = torch_side.run(torch_call, token, torch_setup)
            except Exception:
                continue
            results = ms_side.run(ms_call, token, path, w_shape, (g, h), ms_setup, layer)
            entry = {"mindspore": ms_name, "torch": torch_names, "input": token, "torch_call": torch_call,
                     "mindspore_call": ms_call, "results": results}
            if torch_setup:
                entry["torch_setup"], entry["mindspore_setup"] = torch_setup, ms_setup
            tried.append(entry)
            measured = {s for s, _ in results.values()} - {"n/a", "no-kernel"}
            if measured:
                break
            # A form MindSpore rejects for its arguments (a 2-D input where it wants 4-D) says
            # nothing about the API: it does not count against the attempts.
            telling = [e for e in tried if not _argument_error(e["results"])]
            if len(telling) >= MAX_MS_ATTEMPTS or len(tried) >= MAX_FORMS:
                break
        break
    if not tried:
        return {"mindspore": ms_name, "torch": torch_names, "unprobed": "no call form that torch differentiates twice"}
    # Prefer a form whose first order ran in the most modes.
    return max(tried, key=lambda e: (sum(s not in ("n/a", "no-kernel") for s, _ in e["results"].values()), not _argument_error(e["results"])))


def recheck_entry(torch_side, ms_side, entry):
    path, w_shape, g, h, layer = torch_side.run(entry["torch_call"], entry["input"], entry.get("torch_setup"))
    results = ms_side.run(entry["mindspore_call"], entry["input"], path, w_shape, (g, h), entry.get("mindspore_setup"), layer)
    return {**entry, "results": results}


def child(items_path, log_path, mode):
    import warnings

    warnings.filterwarnings("ignore")
    with tempfile.TemporaryDirectory(prefix="so-probe-") as workdir:
        _run_items(items_path, log_path, mode, workdir)


def _run_items(items_path, log_path, mode, workdir):
    torch_side, ms_side = harness.Torch(), harness.MindSpore(workdir)
    items = json.loads(Path(items_path).read_text())
    with open(log_path, "a", encoding="utf-8", buffering=1) as log:
        for item in items:
            log.write(json.dumps({"start": item["mindspore"]}) + "\n")
            try:
                if mode == "recheck":
                    record = recheck_entry(torch_side, ms_side, item)
                else:
                    record = probe_target(torch_side, ms_side, item["mindspore"], item["torch"], item["renames"])
            except Exception as exc:  # a harness failure on one target, not the run
                record = {"mindspore": item["mindspore"], "torch": item["torch"], "unprobed": harness.describe(exc)[0]}
            log.write(json.dumps(record) + "\n")


# -- parent ------------------------------------------------------------------------------------
def run_child(python, items, workdir, timeout, mode):
    """Run one child on *items*; returns (records, the case it was running when it died or
    hung, how it ended). A child whose log has not grown for HANG seconds is hung on a case:
    it is killed, and the case recorded as such."""
    fd, items_path = tempfile.mkstemp(suffix=".json", dir=workdir)
    with os.fdopen(fd, "w") as out:
        json.dump(items, out)
    log_path = items_path[:-5] + ".log"
    env = dict(os.environ, GLOG_v="3", PYTHONWARNINGS="ignore")
    proc = subprocess.Popen([python, os.path.abspath(__file__), "--child", items_path, log_path, mode], cwd=workdir, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    started, last_size, last_change, ended = time.time(), -1, time.time(), None
    while proc.poll() is None:
        time.sleep(1)
        size = os.path.getsize(log_path) if os.path.exists(log_path) else 0
        if size != last_size:
            last_size, last_change = size, time.time()
        if time.time() - last_change > HANG or time.time() - started > timeout:
            proc.kill()
            proc.wait()
            ended = f"no progress for {HANG} s" if time.time() - last_change > HANG else f"timed out after {timeout} s"
    if ended is None and proc.returncode != 0:
        ended = f"process died (exit {proc.returncode})"
    records, started_case = [], None
    if os.path.exists(log_path):
        for line in Path(log_path).read_text().splitlines():
            record = json.loads(line)
            if "start" in record:
                started_case = record["start"]
            else:
                records.append(record)
                started_case = None
    return records, (started_case if ended else None), ended


def probe(python, items, workers, mode="probe", progress=True, resume=None):
    """{mindspore name: record}; a case that killed its child is re-run alone, then recorded as
    a crash if it kills that one too. With *resume* (a JSON-lines file), records found there are
    not measured again and new ones are appended as they come."""
    done = {}
    if resume and os.path.exists(resume):
        wanted = {item["mindspore"] for item in items}
        for line in Path(resume).read_text().splitlines():
            record = json.loads(line)
            if record["mindspore"] in wanted:
                done[record["mindspore"]] = record
        items = [item for item in items if item["mindspore"] not in done]
    saved = open(resume, "a", encoding="utf-8") if resume else None
    total = len(items) + len(done)
    started_at = time.time()
    todo = [items[i:i + BATCH] for i in range(0, len(items), BATCH)]
    timeout = BATCH_TIMEOUT
    with tempfile.TemporaryDirectory(prefix="so-probe-parent-") as workdir, ThreadPoolExecutor(max_workers=workers) as pool:
        while todo:
            futures = [pool.submit(run_child, python, batch, workdir, timeout, mode) for batch in todo]
            for future in futures:
                records, killer, ended = future.result()
                for record in records:
                    done[record["mindspore"]] = record
                    if saved:
                        saved.write(json.dumps(record) + "\n")
                        saved.flush()
                    if progress:
                        print(f"[{len(done)}/{total} {time.time() - started_at:.0f}s] {_summary(record)}", file=sys.stderr, flush=True)
                if killer is not None and (timeout == SINGLE_TIMEOUT or "no progress" in ended):
                    item = next(i for i in items if i["mindspore"] == killer)
                    done[killer] = {**{k: item[k] for k in ("mindspore", "torch")}, "unprobed": f"the case killed its process ({ended})"}
                    if saved:
                        saved.write(json.dumps(done[killer]) + "\n")
            left = [item for item in items if item["mindspore"] not in done]
            todo, timeout = [[item] for item in left], SINGLE_TIMEOUT
            if todo and progress:
                print(f"  re-running {len(todo)} unfinished targets one per process", file=sys.stderr)
    if saved:
        saved.close()
    return done


def _summary(record):
    if "unprobed" in record:
        return f"{record['mindspore']}: unprobed ({record['unprobed'][:80]})"
    results = record["results"]
    return f"{record['mindspore']}: " + ", ".join(f"{m} {s}{' ' + d if s == 'no-bprop' else ''}" for m, (s, d) in results.items())


# -- the table ---------------------------------------------------------------------------------
def _toml(value):
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)


def entry_lines(record, version):
    lines = ["[[measured]]", f"mindspore = {_toml(record['mindspore'])}", f"torch = {_toml(record['torch'])}", f"version = {_toml(version)}"]
    if "unprobed" in record:
        return lines + [f"unprobed = {_toml(record['unprobed'])}"]
    for key in ("input", "torch_setup", "mindspore_setup", "torch_call", "mindspore_call"):
        if key in record:
            lines.append(f"{key} = {_toml(record[key])}")
    results = record["results"]
    lines.append(f"bprop = {_toml(harness.bprop_fact(results))}")
    missing = next((d for s, d in results.values() if s == "no-bprop" and d != "?"), None)
    if missing:
        lines.append(f"grad_primitive = {_toml(missing)}")
    for mode in harness.MODES:
        status, detail = results[mode]
        lines.append(f"{mode} = {_toml(status)}")
        if detail and status != "no-bprop":
            lines.append(f"{mode}_detail = {_toml(detail)}")
    return lines


def write_table(records, version, path):
    from msport.knowledge import toml

    text = path.read_text(encoding="utf-8") if path.exists() else MARKER + "\n"
    head, marker, tail = text.partition(MARKER)
    if not marker:
        raise SystemExit(f"{path}: the marker line is missing: {MARKER}")
    kept = [e for e in toml.loads(tail).get("measured", []) if e.get("version") != version]
    blocks = []
    for entry in kept:
        results = {m: (entry[m], entry.get(f"{m}_detail", entry.get("grad_primitive", ""))) for m in harness.MODES if m in entry}
        blocks.append(entry_lines({**entry, "results": results} if results else entry, entry["version"]))
    blocks += [entry_lines(records[name], version) for name in sorted(records)]
    path.write_text(head + MARKER + "\n\n" + "\n\n".join("\n".join(b) for b in blocks) + "\n", encoding="utf-8")


def counts(records):
    tally = {}
    for record in records.values():
        key = "unprobed" if "unprobed" in record else f"bprop {harness.bprop_fact(record['results'])}"
        tally[key] = tally.get(key, 0) + 1
        for mode, (status, _) in record.get("results", {}).items():
            tally[f"{mode} {status}"] = tally.get(f"{mode} {status}", 0) + 1
    return dict(sorted(tally.items()))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", default=str(TABLE), help="the table to update, or - to print the records as JSON")
    parser.add_argument("--python", default=sys.executable, help="Python with torch and mindspore (default: this one)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", help="probe only APIs whose torch or MindSpore name contains this text")
    parser.add_argument("--recheck", action="store_true", help="re-run the measured entries of the table and report differences")
    parser.add_argument("--resume", help="a JSON-lines file of records: those found are not measured again, new ones are added")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(*args.child)
        return 0
    version_text = subprocess.run([args.python, "-c", "import mindspore; print(mindspore.__version__)"], capture_output=True, text=True,
                                  check=True).stdout.strip().splitlines()[-1]
    version = ".".join(version_text.split(".")[:2])
    started = time.time()
    if args.recheck:
        from msport.knowledge import toml

        entries = [e for e in toml.loads(TABLE.read_text().partition(MARKER)[2]).get("measured", [])
                   if e.get("version") == version and "unprobed" not in e and (not args.only or args.only in e["mindspore"])]
        records = probe(args.python, entries, args.workers, mode="recheck")
        changed = [n for n, r in records.items() if "results" in r and any(
            r["results"][m][0] != next(e for e in entries if e["mindspore"] == n)[m] for m in harness.MODES)]
        print(f"{len(entries)} entries re-run in {time.time() - started:.0f} s; {len(changed)} differ: {changed}", file=sys.stderr)
        return 1 if changed else 0
    items = [{"mindspore": ms, "torch": torch, "renames": renames} for ms, torch, renames in pairs(tuple(map(int, version.split("."))), args.only)]
    print(f"probing second-order support of {len(items)} MindSpore {version} targets on CPU", file=sys.stderr)
    records = probe(args.python, items, args.workers, resume=args.resume)
    print(f"done in {time.time() - started:.0f} s: {json.dumps(counts(records))}", file=sys.stderr)
    if args.out == "-":
        print(json.dumps(records, indent=1))
    else:
        write_table(records, version, Path(args.out))
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
