"""Run the graph-mode ground-truth modules with the real mindspore on CPU (one process for all).

Usage: python run_graph_mode_cases.py WORKDIR

WORKDIR/plan.json lists the runs: {"module", "kind", "inputs", "observe", "summary", "grad",
"modes"}; each module is a file in WORKDIR. Every run calls the case's object twice in PyNative
and twice compiled in each mode (ast: mindspore.jit; bytecode: capture_mode="bytecode";
fullgraph: the same with fullgraph=True), and writes WORKDIR/results.json: per run and mode, the
two results (plus what ``observe`` reads afterwards), or "error: <type>: <first line>".
"""

import contextlib
import importlib
import io
import json
import os
import sys
from pathlib import Path

OPTIONS = {"ast": {}, "bytecode": {"capture_mode": "bytecode"}, "fullgraph": {"capture_mode": "bytecode", "fullgraph": True}}


def plain(value):
    """A JSON value for a result: tensors as rounded lists."""
    import numpy as np
    from mindspore import Tensor

    if isinstance(value, Tensor):
        return np.round(value.asnumpy().astype(np.float64), 4).tolist()
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return type(value).__name__  # a generator or a coroutine: PyNative ran, and returned one


def error_text(exc) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip() and not line.startswith("---")]
    return f"error: {type(exc).__name__}: {(lines or [''])[0][:300]}"


def run_one(module, entry, mode):
    import mindspore as ms

    namespace = vars(module)
    if entry["kind"] == "script":
        try:
            return [plain(module.attempt())]
        except Exception as exc:  # the package's refusal is a result
            return [error_text(exc)]
    obj = module.make() if hasattr(module, "make") else (module.Net() if entry["kind"] == "layer" else module.f)
    call = obj
    if entry.get("grad"):
        call = ms.value_and_grad(obj, grad_position=None, weights=obj.trainable_params())
        if mode != "py":
            call = ms.jit(call, **OPTIONS[mode])
    elif mode != "py":
        if entry["kind"] == "layer":
            obj.construct = ms.jit(obj.construct, **OPTIONS[mode])
        else:
            call = ms.jit(obj, **OPTIONS[mode])
    results = []
    for _ in range(2):
        try:
            args = [eval(expression, namespace) for expression in entry["inputs"]]  # test data only
            results.append(plain(call(*args)))
        except Exception as exc:
            results.append(error_text(exc))
            if mode == "fullgraph":
                break  # the refusal is the first call's; later calls fall back to PyNative
    if entry.get("summary") == "changes" and not any(isinstance(r, str) for r in results):
        results = [results[0] != results[1]]
    if entry.get("observe"):
        try:
            results.append({"observed": plain(eval(entry["observe"], {**namespace, "obj": obj, "module": module}))})
        except Exception as exc:
            results.append({"observed": error_text(exc)})
    return results


def main(workdir: Path) -> None:
    os.environ.setdefault("GLOG_v", "3")
    import mindspore as ms

    ms.set_device("CPU")
    sys.path.insert(0, str(workdir))
    plan = json.loads((workdir / "plan.json").read_text())
    results = []
    for entry in plan:
        outcome = {}
        for mode in ["py", *entry["modes"]]:
            # A fresh module per mode: globals a run changes (a counter) start over.
            sys.modules.pop(entry["module"], None)
            with contextlib.redirect_stdout(io.StringIO()):
                module = importlib.import_module(entry["module"])
                outcome[mode] = run_one(module, entry, mode)
        results.append(outcome)
    (workdir / "results.json").write_text(json.dumps(results))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
