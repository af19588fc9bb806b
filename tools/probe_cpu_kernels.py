#!/usr/bin/env python3
"""Probe which mindspore APIs actually run on the CPU backend.

Run it with a Python that has mindspore 2.10 (and numpy<2) installed:

    python tools/probe_cpu_kernels.py --out rules/snapshots/cpu-kernels-2.10.0.json

Probed: every function in mindspore.mint, mint.nn.functional, mint.linalg
and mint.special, every Cell class in mint.nn, and every Python function in
mindspore.ops. Each API is called with a series of small argument sets
(CANDIDATES / CELL_*) until one runs:

    ok         some argument set ran
    no_kernel  no set ran and at least one failed with a "no CPU kernel"
               error (NO_KERNEL_PATTERNS, built from the real messages)
    unknown    no set ran and none of the errors said "no kernel"

Then each API that ran is run again with the same arguments inside a
mindspore.jit function ("graph": ok / no_kernel / unknown), since the graph
compiler can find no CPU kernel for an op PyNative runs.

Errors such as a wrong arity or type only mean "try the next set". An API
that ran ("ok") may still lack a kernel for other dtypes or code paths (for
example mint.max(x) vs mint.max(x, dim)); the probe records which set ran.

The probing runs in child processes, a few dozen APIs each, so that a crash
in native code loses one attempt, not the run: a child logs every attempt
before making it, and when a child dies or hangs the parent re-runs the
unfinished APIs one per process, skipping the attempt that killed it.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from snapshot_api import dumps  # noqa: E402  (same one-entry-per-line format)

GENERATED_BY = "tools/probe_cpu_kernels.py"

FUNCTION_MODULES = [
    "mindspore.mint",
    "mindspore.mint.nn.functional",
    "mindspore.mint.linalg",
    "mindspore.mint.special",
]
CELL_MODULES = ["mindspore.mint.nn"]
PYFUNC_ONLY_MODULES = ["mindspore.ops"]  # "functions only": no Primitive classes or instances

# Errors that mean "this op cannot run on CPU", whatever the arguments.
# Collected from the messages mindspore 2.10 gives on CPU (rerun with
# --attempts FILE to review them); an example of each:
NO_KERNEL_PATTERNS = [
    # RuntimeError: The kernel SortExt unregistered.   (most of them)
    r"The kernel \S+ unregistered",
    # RuntimeError: Not found op FuncMaxPool2D on device CPU
    r"Not found op \S+ on device CPU",
    # RuntimeError: Create kernelmod for op InplaceUniform failed
    # (the CPU kernel factory has no entry for the op: mint.rand, layer_norm)
    r"Create kernelmod for op \S+ failed",
    # NotImplementedError: conv1d only supports Ascend.
    r"only supports? Ascend",
    # RuntimeError: 'bernoulli_' is not supported on this device.
    r"is not supported on this device",
    # TypeError: Select CPU operator[Select] fail! Unsupported data type!
    # (a CPU kernel exists but for none of the dtypes tried)
    r"Select CPU operator\[\S+\] fail",
    # RuntimeError: Not implement exception  (raised by the default InferShape
    # of ops that only have an Ascend implementation: vdot, conv_tbc, npu_gelu)
    r"^Not implement exception",
    # RuntimeError: ... - Kernel select failed: ...
    #   Unsupported op [Fmin] on CPU, Please confirm whether the device ...
    r"Unsupported op \[\S+\] on CPU",
]
NO_KERNEL_RE = re.compile("|".join(f"(?:{p})" for p in NO_KERNEL_PATTERNS))

BATCH_SIZE = 30
BATCH_TIMEOUT = 300  # seconds for a whole batch process
SINGLE_TIMEOUT = 120  # seconds for a one-API process


# --------------------------------------------------------------------------
# Child side: runs in a process that has imported mindspore.
# --------------------------------------------------------------------------

def make_inputs(ms, np):
    """Builders for small inputs. Fresh tensors for every attempt, since
    in-place APIs modify their arguments. Values lie in (0.1, 0.9) so that
    log, sqrt, acos, binary_cross_entropy... get valid input."""
    rng = np.random.default_rng(0)

    def f32(*shape):
        return ms.Tensor(rng.uniform(0.1, 0.9, shape).astype(np.float32))

    return {
        "x": lambda: f32(3, 3),
        "v": lambda: f32(3),
        "b3": lambda: f32(2, 3, 3),
        "x3": lambda: f32(1, 3, 8),
        "x4": lambda: f32(1, 3, 8, 8),
        "x5": lambda: f32(1, 3, 4, 4, 4),
        "w3": lambda: f32(3, 3, 3),
        "w4": lambda: f32(3, 3, 3, 3),
        "w5": lambda: f32(3, 3, 2, 2, 2),
        "grid": lambda: ms.Tensor(rng.uniform(-1, 1, (1, 4, 4, 2)).astype(np.float32)),
        "xi": lambda: ms.Tensor(np.array([[0, 1, 2], [2, 1, 0], [1, 1, 0]], np.int64)),
        "idx1": lambda: ms.Tensor(np.array([0, 2, 1], np.int64)),
        # Some CPU kernels (IndexAdd) take int32 indices only.
        "idx32": lambda: ms.Tensor(np.array([0, 2, 1], np.int32)),
        "one": lambda: f32(1),
        "xb": lambda: ms.Tensor(np.array([[True, False, True]] * 3)),
    }


# Argument sets for functions, most common first; names refer to
# make_inputs(), anything else is a literal.
CANDIDATES = [
    ("x",), ("x", "x"), ("x", 1), ("x", "x", "x"), ("v",), ("v", "v"),
    ("xi",), ("xi", "xi"), ("xb",), ("xb", "xb"),
    ("x", 0.5), ("x", 0.1, 0.5), ("x", "x", 0.5),
    ("x", (9,)), ("x", (2, 3, 3)), ("x", (1, 0)), ("x", 0, 1), ("x", 0, 0, 2),
    ((3, 3),), ((3, 3), 1.0), (3,), (0, 3), (0, 3, (3, 3)),
    (["x", "x"],), ("x", "x", "v"),
    ("x", 0, "xi"), ("x", 0, "idx1"), ("x", 0, "xi", "x"), ("x", 0, "idx1", "x"),
    ("x", "idx1", 0), ("x", "xb"), ("x", "xb", 0.0), ("xb", "x", "x"),
    ("x", "idx1"), ("xi", "x"), ("xi", 3),
    ("x4",), ("x4", 2), ("x4", 1), ("x4", (4, 4)), ("x4", "w4"), ("x4", "grid"),
    ("x3",), ("x3", 2), ("x3", "w3"), ("x5", 2), ("x5", "w5"),
    ("x", (1, 1)), ("x", (3,)), ("x", "v", "v"), ("b3", "b3"), ("b3", "b3", "b3"),
    # Fewer APIs need these; they come last to keep the common case fast.
    ("x", "v"), ("x4", "v"), ("x", "x", 1), ("x", 1, 0), (1, "x"), ("one",),
    (0.0, 1.0, 3), (0, 3, 1), ((3, 3), 0.0, 1.0), ("x5", (1, 1, 1)),
    ("x", 0, "idx32", "x"), ("x", "idx32", "x", 0), ("x", "idx1", "x"), ("x", "idx1", 3),
]

# Cells: constructor arguments, then call arguments.
CELL_INIT = [(), (3,), (3, 3), (3, 3, 3), (2,), (1, 3), ((4, 4),)]
CELL_CALL = [
    ("x",), ("x4",), ("x3",), ("x5",), ("x", "x"), ("x", "idx1"),
    ("v",), ("b3",), ("xi",), ("x", "x", "x"),
]


def candidate_count(kind):
    return len(CANDIDATES) if kind == "function" else len(CELL_INIT) * len(CELL_CALL)


def materialize(spec, inputs):
    """Turn an argument spec into real arguments."""
    if isinstance(spec, str) and spec in inputs:
        return inputs[spec]()
    if isinstance(spec, list):  # a sequence of tensors, e.g. for cat/stack
        return [materialize(s, inputs) for s in spec]
    return spec


def label(args):
    return ", ".join(a if isinstance(a, str) else repr(a) for a in args)


def specs(kind):
    """(label, constructor arguments or None, call arguments) of every attempt
    at an API of this kind, in order."""
    if kind == "function":
        for args in CANDIDATES:
            yield label(args), None, args
        return
    for init in CELL_INIT:
        for call in CELL_CALL:
            yield f"({label(init)})({label(call)})", init, call


def attempts(kind, obj, inputs):
    """Yield (label, thunk) for every attempt at one API, in order."""
    for lab, init, call in specs(kind):
        def run(init=init, call=call):
            target = obj if init is None else obj(*init)
            return target(*[materialize(a, inputs) for a in call])
        yield lab, run


def graph_source(name, kind, lab):
    """A module whose jitted f(a0, a1, ...) makes the call that ran under the
    label *lab*, with the tensors as f's arguments (a tensor built into the
    graph as a constant may be folded at compile time, hiding the kernel) and
    the other values as literals. mindspore.jit reads f's source, hence a
    module file. Returns (source, input names)."""
    _, init, call = next(s for s in specs(kind) if s[0] == lab)
    inputs = []

    def render(spec):
        if isinstance(spec, list):
            return "[" + ", ".join(render(s) for s in spec) + "]"
        if isinstance(spec, str):  # an input name (literals are never strings here)
            inputs.append(spec)
            return f"a{len(inputs) - 1}"
        return repr(spec)

    rendered = ", ".join(render(a) for a in call)
    module, _, attr = name.rpartition(".")
    built = f"{attr}({', '.join(repr(a) for a in init)})" if init is not None else attr
    params = ", ".join(f"a{i}" for i in range(len(inputs)))
    source = (f"import mindspore\nfrom {module} import {attr}\n\ntarget = {built}\n\n\n"
              f"@mindspore.jit\ndef f({params}):\n    return target({rendered})\n")
    return source, inputs


def force(result):
    """Copy tensors to host: with pynative_synchronize errors already surface
    at the call, this is a second guard against deferred failures."""
    if hasattr(result, "asnumpy"):
        result.asnumpy()
    elif isinstance(result, (tuple, list)):
        for item in result:
            force(item)


def message_lines(exc):
    """The lines of an error message that say something: mindspore frames
    its messages with rules and headings ("- Kernel select failed:") and
    appends a C++ call stack."""
    lines = []
    for line in str(exc).splitlines():
        line = line.strip()
        if line.startswith("- C++ Call Stack"):
            break
        if not line or set(line) == {"-"} or (line.startswith("- ") and line.endswith(":")):
            continue
        lines.append(line)
    return lines


def describe_error(exc):
    """(first line, the line that says "no CPU kernel" or None), each
    prefixed with the exception type. Pointers in messages ("value_ptr:
    0x55f2bc591100") are blanked so that reruns write the same file."""
    lines = [re.sub(r"0x[0-9a-fA-F]+", "0x?", ln) for ln in message_lines(exc)]
    prefix = type(exc).__name__ + ": "
    first = (prefix + (lines[0] if lines else ""))[:300]
    matched = next((ln for ln in lines if NO_KERNEL_RE.search(ln)), None)
    return first, (prefix + matched)[:300] if matched else None


def resolve(ms_name):
    import importlib
    module_name, _, attr = ms_name.rpartition(".")
    return getattr(importlib.import_module(module_name), attr)


def child(items_path, log_path):
    """Probe the APIs listed in items_path, appending one JSON line per
    attempt to log_path: {"name", "i", "start": true} before it, then
    {"name", "i", "label", "ok" | "error" [, "no_kernel"]} after it, where
    "no_kernel" is the message line that matched NO_KERNEL_PATTERNS."""
    import mindspore as ms
    import numpy as np
    ms.set_device("CPU")
    # Without this PyNative runs ops asynchronously and an op's error is
    # raised at some later, unrelated call.
    ms.set_context(pynative_synchronize=True)
    inputs = make_inputs(ms, np)
    with open(items_path, encoding="utf-8") as fh:
        items = json.load(fh)
    with open(log_path, "a", encoding="utf-8", buffering=1) as log:
        for name, kind, start in items:
            try:
                obj = resolve(name)
            except Exception as exc:  # close the API: nothing to attempt
                last = candidate_count(kind) - 1
                log.write(json.dumps({"name": name, "i": last, "label": "import",
                                      "error": describe_error(exc)[0]}) + "\n")
                continue
            for i, (lab, thunk) in enumerate(attempts(kind, obj, inputs)):
                if i < start:
                    continue
                log.write(json.dumps({"name": name, "i": i, "start": True}) + "\n")
                record = {"name": name, "i": i, "label": lab}
                try:
                    force(thunk())
                    record["ok"] = True
                except BaseException as exc:  # SystemExit from odd APIs too
                    record["error"], no_kernel = describe_error(exc)
                    if no_kernel:
                        record["no_kernel"] = no_kernel
                log.write(json.dumps(record) + "\n")
                if record.get("ok"):
                    break


def graph_child(items_path, log_path):
    """Re-run under mindspore.jit, for each [name, kind, label] in items_path,
    the call that ran in PyNative: {"name", "start": true} before it, then
    {"name", "ok"} or {"name", "error" [, "no_kernel"]} after it. PyNative
    can run an op the graph compiler finds no CPU kernel for (mint.diff's
    Narrow, mint.t's TExt), and msport's default mode is graph."""
    import importlib.util
    import mindspore as ms
    import numpy as np
    ms.set_device("CPU")
    inputs = make_inputs(ms, np)
    with open(items_path, encoding="utf-8") as fh:
        items = json.load(fh)
    with open(log_path, "a", encoding="utf-8", buffering=1) as log:
        for n, (name, kind, lab) in enumerate(items):
            log.write(json.dumps({"name": name, "start": True}) + "\n")
            record = {"name": name}
            try:
                source, names = graph_source(name, kind, lab)
                path = os.path.abspath(f"graph_{os.getpid()}_{n}.py")  # cwd: the scratch dir
                with open(path, "w", encoding="utf-8") as out:
                    out.write(source)
                spec = importlib.util.spec_from_file_location(f"graph_{os.getpid()}_{n}", path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module  # jit looks f's globals up by module name
                spec.loader.exec_module(module)
                force(module.f(*[inputs[x]() for x in names]))
                record["ok"] = True
            except BaseException as exc:  # SystemExit from odd APIs too
                record["error"], no_kernel = describe_error(exc)
                if no_kernel:
                    record["no_kernel"] = no_kernel
            log.write(json.dumps(scrub_paths(record)) + "\n")


def scrub_paths(record):
    """The probe's own scratch module, named the same in every run, so that reruns write the
    same file ("In file /tmp/probe-graph-x1y2/graph_4711_3.py:9" -> "In file <probe>:9")."""
    return {k: re.sub(r"\S*/probe-graph-[^/\s]+/graph_\d+_\d+\.py", "<probe>", v) if isinstance(v, str) else v
            for k, v in record.items()}


# --------------------------------------------------------------------------
# Parent side.
# --------------------------------------------------------------------------

def quiet_env():
    env = dict(os.environ, GLOG_v="3", PYTHONWARNINGS="ignore")
    return env


def list_items(python):
    """[name, kind] of every API to probe, listed by a child process so the
    parent never imports mindspore."""
    code = f"""
import inspect, json, importlib
import mindspore.nn as nn
out = []
def public(mod):
    return [(n, getattr(mod, n)) for n in sorted(dir(mod)) if not n.startswith("_")]
for m in {FUNCTION_MODULES!r}:
    mod = importlib.import_module(m)
    out += [[m + "." + n, "function"] for n, o in public(mod)
            if callable(o) and not inspect.isclass(o) and not inspect.ismodule(o)]
for m in {CELL_MODULES!r}:
    mod = importlib.import_module(m)
    out += [[m + "." + n, "cell"] for n, o in public(mod)
            if inspect.isclass(o) and issubclass(o, nn.Cell) and o is not nn.Cell]
for m in {PYFUNC_ONLY_MODULES!r}:
    mod = importlib.import_module(m)
    out += [[m + "." + n, "function"] for n, o in public(mod) if inspect.isfunction(o)]
import mindspore
print("@@" + json.dumps({{"version": mindspore.__version__, "items": out}}))
"""
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True,
                          env=quiet_env(), check=True)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("@@"))
    return json.loads(line[2:])


def run_child(python, items, workdir, timeout, flag="--child"):
    """Run one child (*flag*: --child for PyNative attempts on items [[name,
    kind, start]], --graph-child for [[name, kind, label]]); return (attempt
    records, how it ended: None if it exited normally, else a short reason)."""
    fd, items_path = tempfile.mkstemp(suffix=".json", dir=workdir)
    with os.fdopen(fd, "w") as fh:
        json.dump(items, fh)
    log_path = items_path[:-5] + ".log"
    cmd = [python, os.path.abspath(__file__), flag, items_path, log_path]
    try:
        # cwd=workdir: stray files an API may write land in the scratch dir.
        proc = subprocess.run(cmd, cwd=workdir, env=quiet_env(), timeout=timeout,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        ended = None if proc.returncode == 0 else f"process died (exit {proc.returncode})"
    except subprocess.TimeoutExpired:
        ended = f"process timed out after {timeout} s"
    records = []
    if os.path.exists(log_path):
        with open(log_path, encoding="utf-8") as fh:
            records = [json.loads(ln) for ln in fh if ln.strip()]
    return records, ended


class Tally:
    """All attempt records per API, and where to resume an unfinished one."""

    def __init__(self, items):
        self.kind = {name: kind for name, kind in items}
        self.results = {name: [] for name, _ in items}

    def add(self, records, ended):
        """Fold one child's records in. An attempt that started but never
        finished is what killed the child: record it as an error."""
        open_attempt = None
        for rec in records:
            if rec.get("start"):
                open_attempt = rec
            else:
                self.results[rec["name"]].append(rec)
                open_attempt = None
        if open_attempt and ended:
            self.results[open_attempt["name"]].append(
                {"name": open_attempt["name"], "i": open_attempt["i"],
                 "label": "?", "error": f"CRASH: {ended}"})

    def give_up(self, names):
        for name in names:
            self.results[name].append({"name": name, "i": candidate_count(self.kind[name]) - 1,
                                       "label": "?", "error": "CRASH: no progress"})

    def next_start(self, name):
        """Index of the next attempt for an unfinished API, or None when it is
        done (ran once, or every attempt was made)."""
        recs = self.results[name]
        if any(r.get("ok") for r in recs):
            return None
        nxt = max((r["i"] for r in recs), default=-1) + 1
        return None if nxt >= candidate_count(self.kind[name]) else nxt


def classify(recs):
    """(status, error line or None, label of the set that ran or None)."""
    for r in recs:
        if r.get("ok"):
            return "ok", None, r["label"]
    matched = [r["no_kernel"] for r in recs if "no_kernel" in r]
    if matched:
        return "no_kernel", matched[0], None
    errors = [r["error"] for r in recs if "error" in r]
    # The last error, preferring one that is not about how the API was
    # called: "Failed calling add with ..." says nothing about the kernel.
    telling = [e for e in errors if not e.startswith("TypeError")]
    return "unknown", (telling or errors or ["no attempt was made"])[-1], None


def probe(python, items, workers):
    """Run all batches, then re-run unfinished APIs one per process until
    each is done."""
    tally = Tally(items)
    batches = [[[n, k, 0] for n, k in items[i:i + BATCH_SIZE]]
               for i in range(0, len(items), BATCH_SIZE)]
    with tempfile.TemporaryDirectory(prefix="probe-cpu-") as workdir, \
            ThreadPoolExecutor(max_workers=workers) as pool:
        todo, timeout, before = batches, BATCH_TIMEOUT, None
        while todo:
            for records, ended in pool.map(partial(run_child, python, workdir=workdir,
                                                   timeout=timeout), todo):
                tally.add(records, ended)
            pending = [(n, tally.next_start(n)) for n, _ in items]
            pending = [(n, s) for n, s in pending if s is not None]
            if pending == before:  # children die before any attempt: give up on these
                tally.give_up([n for n, _ in pending])
                break
            before, timeout = pending, SINGLE_TIMEOUT
            todo = [[[n, tally.kind[n], s]] for n, s in pending]
            if todo:
                print(f"  re-running {len(todo)} unfinished APIs one per process", file=sys.stderr)
    return tally


def graph_probe(python, items, workers):
    """{name: last record} of the graph-mode run of each [name, kind, label]:
    batches first, then what a crash left unfinished one per process."""
    results = {}
    todo = [items[i:i + BATCH_SIZE] for i in range(0, len(items), BATCH_SIZE)]
    timeout = BATCH_TIMEOUT
    with tempfile.TemporaryDirectory(prefix="probe-graph-") as workdir, \
            ThreadPoolExecutor(max_workers=workers) as pool:
        while todo:
            run = partial(run_child, python, workdir=workdir, timeout=timeout, flag="--graph-child")
            for records, ended in pool.map(run, todo):
                started = None
                for rec in records:
                    if rec.get("start"):
                        started = rec["name"]
                    else:
                        results[rec["name"]], started = rec, None
                if started and ended:  # the call that killed the child
                    results[started] = {"name": started, "error": f"CRASH: {ended}"}
            left = [item for item in items if item[0] not in results]
            if left and timeout == SINGLE_TIMEOUT:  # one per process made no progress either
                results.update({n: {"name": n, "error": "CRASH: no progress"} for n, _, _ in left})
                left = []
            todo, timeout = [[item] for item in left], SINGLE_TIMEOUT
            if todo:
                print(f"  re-running {len(todo)} unfinished graph-mode APIs one per process", file=sys.stderr)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", help="default rules/snapshots/cpu-kernels-<version>.json")
    parser.add_argument("--python", default=sys.executable,
                        help="Python with mindspore installed (default: this one)")
    parser.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    parser.add_argument("--only", help="probe only names containing this text (for debugging)")
    parser.add_argument("--attempts", help="also write every attempt as a JSON line here, "
                        "to review the error messages behind NO_KERNEL_PATTERNS")
    parser.add_argument("--child", nargs=2, metavar=("ITEMS", "LOG"), help=argparse.SUPPRESS)
    parser.add_argument("--graph-child", nargs=2, metavar=("ITEMS", "LOG"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    if args.graph_child:
        return graph_child(*args.graph_child)

    started = time.time()
    listing = list_items(args.python)
    version = listing["version"]
    items = [tuple(i) for i in listing["items"] if not args.only or args.only in i[0]]
    print(f"probing {len(items)} APIs of mindspore {version} on CPU", file=sys.stderr)
    tally = probe(args.python, items, args.workers)

    if args.attempts:
        with open(args.attempts, "w", encoding="utf-8") as fh:
            for name, _ in items:
                for rec in tally.results[name]:
                    fh.write(json.dumps(rec, sort_keys=True) + "\n")

    apis, errors, ran_with = {}, {}, {}
    for name, _ in items:
        status, error, lab = classify(tally.results[name])
        apis[name] = status
        if error:
            errors[name] = error
        if lab is not None:
            ran_with[name] = lab
    print(f"running the {len(ran_with)} APIs that ran again under mindspore.jit", file=sys.stderr)
    kinds = dict(items)
    graph, graph_errors = {}, {}
    for name, rec in sorted(graph_probe(args.python, [(n, kinds[n], lab) for n, lab in ran_with.items()], args.workers).items()):
        graph[name] = "ok" if rec.get("ok") else "no_kernel" if "no_kernel" in rec else "unknown"
        if not rec.get("ok"):
            graph_errors[name] = rec.get("no_kernel") or rec["error"]
    data = {
        "mindspore_version": version,
        "backend": "CPU",
        "generated_by": GENERATED_BY,
        "no_kernel_patterns": NO_KERNEL_PATTERNS,
        "apis": apis,
        "errors": errors,
        "ran_with": ran_with,
        "graph": graph,
        "graph_errors": graph_errors,
    }
    out = args.out or os.path.join("rules", "snapshots", f"cpu-kernels-{version}.json")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(dumps(data))
    print(f"{out}: {summary(items, apis)}; under jit: {summary([(n, kinds[n]) for n in graph], graph)} "
          f"in {time.time() - started:.0f} s", file=sys.stderr)
    return 0


def summary(items, apis):
    """Counts per status for each probed group, e.g. mint functions."""
    groups = {}
    for name, kind in items:
        group = name.rsplit(".", 1)[0] + (" Cells" if kind == "cell" else "")
        counts = groups.setdefault(group, {})
        counts[apis[name]] = counts.get(apis[name], 0) + 1
    return "; ".join(f"{g}: {json.dumps(c, sort_keys=True)}" for g, c in sorted(groups.items()))


if __name__ == "__main__":
    sys.exit(main())
