#!/usr/bin/env python3
"""Run code before and after an msport fix on the real packages and compare the results.

    python tools/equivalence_runner.py CASES.json RESULTS.jsonl

Used by tests/equivalence/ and tools/prove_renames.py through ``run_cases``, which starts one
child process for a whole batch of cases: importing torch and mindspore costs seconds, a case
milliseconds. Each case is a JSON object:

    id          a name for the reports
    original    {"framework": "torch" | "mindspore", "code": "<module source defining f>"}
    fixed       the same, for the fixed code
    args        names of the inputs passed to f, in order
    inputs      a list of input sets (several shapes); each maps a name to
                [dtype, shape, kind] (kind: normal, positive, ties, int, bool, complex; default by dtype)
                or [dtype, value, "value"] for a literal array
    modes       how to run MindSpore code: ["pynative", "jit"] (default both; mindspore.jit)
    repeat      how many times in a row each mode runs on the same inputs (default 1): results
                that change between calls (ops.hfft2 did) fail the case
    copy_weights  set the parameters of the fixed code's module-level `layer` to those of the
                original's (torch -> MindSpore, in order, reshaped where only the shape differs),
                so that layers with random initialisation can be compared
    check_dtype compare dtypes too (default true)
    atol, rtol  tolerances (default 1e-5 both)

A case whose original code raises reports "the original raised: ..." (the call is invalid
for its own framework). For every input set, f of the original code is run once (torch) or in each mode (MindSpore),
f of the fixed code in each mode, and every fixed result must equal the first original result:
same structure, shapes, values within the tolerances (NaN equal to NaN), and dtypes when asked.
Each case's source is written to a module file and imported, since mindspore.jit reads the
source and the module of what it compiles.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Dict, List, Sequence

DEFAULT_TIMEOUT = 1800


def run_cases(cases: Sequence[Dict], python: str = sys.executable, timeout: float = DEFAULT_TIMEOUT) -> Dict[str, Dict]:
    """Run *cases* in one child process; case id -> {"ok": bool, "detail": str}. A case the
    child never reported (a crash in native code) is reported as failed."""
    with tempfile.TemporaryDirectory(prefix="msport-equivalence-") as tmp:
        cases_path, results_path = Path(tmp, "cases.json"), Path(tmp, "results.jsonl")
        cases_path.write_text(json.dumps(list(cases)), encoding="utf-8")
        env = dict(os.environ, GLOG_v="3", PYTHONWARNINGS="ignore")
        proc = subprocess.run([python, __file__, str(cases_path), str(results_path)], capture_output=True, text=True,
                              timeout=timeout, env=env)
        results = {}
        if results_path.exists():
            for line in results_path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    item = json.loads(line)
                    results[item["id"]] = item
    for case in cases:
        if case["id"] not in results:
            tail = (proc.stderr or "").strip().splitlines()[-5:]
            results[case["id"]] = {"id": case["id"], "ok": False,
                                   "detail": f"not run: the child exited with {proc.returncode}: " + " | ".join(tail)}
    return results


# ---------------------------------------------------------------------------------------
# Child side: imports torch and mindspore once and runs every case.
# ---------------------------------------------------------------------------------------

def _child(cases_path: str, results_path: str) -> None:
    import importlib
    import traceback

    import numpy as np

    import mindspore as ms
    import torch

    if hasattr(ms, "set_device"):
        ms.set_device("CPU")
    else:  # pragma: no cover - older mindspore
        ms.set_context(device_target="CPU")
    modules_dir = os.path.join(os.path.dirname(results_path), "cases")  # removed with the parent's temporary directory
    os.makedirs(modules_dir, exist_ok=True)
    sys.path.insert(0, modules_dir)
    counter = [0]

    def load(code: str):
        counter[0] += 1
        name = f"msport_case_{counter[0]}"
        Path(modules_dir, name + ".py").write_text(code, encoding="utf-8")
        return importlib.import_module(name)

    def copy_weights(source, target) -> None:
        """The torch layer's parameters into the MindSpore layer's, in order."""
        theirs = [p.detach().cpu().numpy() for p in source.layer.parameters()]
        ours = list(target.layer.get_parameters())
        if len(theirs) != len(ours):
            # MindSpore keeps BatchNorm's running statistics as parameters (moving_mean,
            # moving_variance) where PyTorch has buffers, in another order: msport's own
            # converter maps them by name, as `msport convert-weights` does.
            from msport.knowledge.weights import default_weight_rules
            from msport.weights.mapping import ModelMap, plan

            mapped = plan(ModelMap(target.layer, default_weight_rules()), source.layer.state_dict(), "torch layer", "layer")
            if mapped.problems:
                raise ValueError(f"cannot copy the weights: {mapped.problems[0]}")
            for value in mapped.values:
                value.slot.parameter.set_data(ms.Tensor(value.array))
            return
        if len(theirs) != len(ours):
            raise ValueError(f"{len(ours)} parameters instead of {len(theirs)}: cannot copy the weights")
        for value, param in zip(theirs, ours):
            if value.size != int(np.prod(param.shape)):
                raise ValueError(f"parameter {param.name}: shape {tuple(param.shape)} cannot hold {value.shape}")
            param.set_data(ms.Tensor(value.reshape(param.shape)))

    def make(spec, rng):
        dtype, shape_or_value = spec[0], spec[1]
        kind = spec[2] if len(spec) > 2 else ("bool" if dtype == "bool" else "int" if dtype.startswith("int") else "normal")
        if kind == "value":
            return np.array(shape_or_value, dtype=dtype)
        shape = tuple(shape_or_value)
        if kind == "bool":
            return rng.random(shape) > 0.5
        if kind == "int":
            return rng.integers(-5, 6, shape).astype(dtype)
        if kind == "complex":
            return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
        if kind == "positive":
            return rng.uniform(0.1, 0.9, shape).astype(dtype)
        if kind == "ties":
            return rng.integers(0, 4, shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)

    def to_framework(value, framework):
        if framework == "torch":
            # A copy: an in-place torch call (inplace=True) must not change the other side's input.
            return torch.from_numpy(np.array(value, copy=True))
        return ms.Tensor(value)

    def flatten(value) -> List:
        if isinstance(value, (tuple, list)):
            return [leaf for item in value for leaf in flatten(item)]
        if isinstance(value, torch.Tensor):
            return [(value.detach().cpu().resolve_conj().numpy(), str(value.dtype).replace("torch.", ""))]
        if isinstance(value, ms.Tensor):
            return [(value.asnumpy(), str(value.dtype).lower())]
        if isinstance(value, (bool, int, float)):
            return [(np.asarray(value), f"python-{type(value).__name__}")]
        if isinstance(value, np.ndarray):
            return [(value, str(value.dtype))]
        raise TypeError(f"cannot compare a result of type {type(value).__name__}")

    def compare(expected, actual, case) -> str:
        if len(expected) != len(actual):
            return f"{len(actual)} results instead of {len(expected)}"
        for index, ((a, a_dtype), (b, b_dtype)) in enumerate(zip(expected, actual)):
            if a.shape != b.shape:
                return f"result {index}: shape {b.shape} instead of {a.shape}"
            if case.get("check_dtype", True) and a_dtype != b_dtype:
                return f"result {index}: dtype {b_dtype} instead of {a_dtype}"
            if a.dtype == bool or b.dtype == bool:
                same = np.array_equal(a.astype(bool), b.astype(bool))
            else:
                same = np.allclose(a.astype(np.float64), b.astype(np.float64), atol=case.get("atol", 1e-5),
                                   rtol=case.get("rtol", 1e-5), equal_nan=True)
            if not same:
                diff = np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))) if a.size else 0.0
                return f"result {index}: values differ (max abs difference {diff:.3g})"
        return ""

    def runs(side, f, arrays, repeat=1):
        """(label, result) for each way of running one side, *repeat* times in a row."""
        framework = side["framework"]
        args = [to_framework(a, framework) for a in arrays]
        if framework == "torch":
            with torch.no_grad():
                yield "torch", f(*args)
            return
        for mode in side.get("modes", ["pynative", "jit"]):
            run = ms.jit(f) if mode == "jit" else f
            for time in range(repeat):
                yield (mode if not time else f"{mode} (call {time + 1} in a row)"), run(*args)

    cases = json.loads(Path(cases_path).read_text(encoding="utf-8"))
    with open(results_path, "w", encoding="utf-8") as out:
        for case in cases:
            detail = ""
            try:
                original_module = load(case["original"]["code"])
                fixed_module = load(case["fixed"]["code"])
                for module, side in ((original_module, case["original"]), (fixed_module, case["fixed"])):
                    # Both layers infer (a fresh torch module trains, a MindSpore cell does not).
                    if side["framework"] == "torch" and isinstance(getattr(module, "layer", None), torch.nn.Module):
                        module.layer.eval()
                if case.get("copy_weights"):
                    copy_weights(original_module, fixed_module)
                original, fixed = original_module.f, fixed_module.f
                for position, input_set in enumerate(case["inputs"]):
                    # Seeded by the case's id, not its place in the list: the prover and the
                    # tests that re-run its entries draw the same inputs for the same case.
                    rng = np.random.default_rng([zlib.crc32(case["id"].encode("utf-8")), position])
                    arrays = [make(input_set[name], rng) for name in case["args"]]
                    expected = None
                    try:
                        original_runs = list(runs(case["original"], original, arrays))
                    except Exception:
                        # The original itself is not valid code for these inputs: nothing to compare.
                        detail = "the original raised: " + traceback.format_exc(limit=3).strip().splitlines()[-1]
                        break
                    for label, result in original_runs:
                        leaves = flatten(result)
                        if expected is None:
                            expected, reference = leaves, label
                        elif compare(expected, leaves, case):
                            detail = f"input set {position}: the original differs between {reference} and {label}: {compare(expected, leaves, case)}"
                    for label, result in runs(case["fixed"], fixed, arrays, case.get("repeat", 1)):
                        problem = compare(expected, flatten(result), case)
                        if problem:
                            detail = detail or f"input set {position}, fixed code in {label} vs original in {reference}: {problem}"
                    if detail:
                        break
            except Exception:  # a case that raises fails; the others still run
                detail = "raised: " + traceback.format_exc(limit=3).strip().splitlines()[-1]
            out.write(json.dumps({"id": case["id"], "ok": not detail, "detail": detail}) + "\n")
            out.flush()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    _child(sys.argv[1], sys.argv[2])
