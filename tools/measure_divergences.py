#!/usr/bin/env python3
"""Measure what differs between each torch API and its MindSpore 2.10 target, so that the
rule generator can say it instead of a table's vague category: write
rules/snapshots/measured-2.10.0.json.

    python tools/measure_divergences.py [--check]

For every (torch API, MindSpore target) pair of rules/api valid in 2.10:

- defaults: the default of every parameter both signatures have (by name, or by the rule's
  renames), read with inspect from the installed packages (torch's builtins through
  torch.overrides' testing signatures); pairs whose defaults differ are recorded with both
  values;
- run: when the CPU probe ran the target (rules/snapshots/cpu-kernels-2.10.0.json), the torch
  API and the target are called with the probe's arguments on the same random inputs (PyNative
  and mindspore.jit, twice in a row) and the outcome recorded: "equal", or what differs
  (values, dtype, shape) or what raised.

Needs a Python with torch 2.13.0 and mindspore 2.10.0 (numpy<2). --check writes nothing and
exits 1 when the file differs from what a run would write.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tools"))

import generated_file  # noqa: E402
from equivalence_runner import run_cases  # noqa: E402
from prove_renames import PROBE, call_snippet, rename_case  # noqa: E402

OUT = ROOT / "rules" / "snapshots" / "measured-2.10.0.json"
VERSION = (2, 10)
NOT_RUNNABLE = ("dropout", "rand", "bernoulli", "multinomial", "normal", "poisson", "empty", "uniform", "gumbel")

DEFAULTS_SCRIPT = r'''
import inspect, json, sys, warnings
warnings.filterwarnings("ignore")
import importlib
import torch, mindspore
from torch.overrides import get_testing_overrides
overrides = get_testing_overrides()

def resolve(name):
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for part in parts[i:]:
                obj = getattr(obj, part)
            return obj
        except AttributeError:
            return None
    return None

def defaults(obj, torch_side):
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        if not torch_side or obj not in overrides:
            return None
        signature = inspect.signature(overrides[obj])
    out = {}
    for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.name == "self":
            continue
        out[p.name] = None if p.default is inspect.Parameter.empty else repr(p.default)
    return out

result = {}
for torch_name, target in json.load(sys.stdin):
    t, m = resolve(torch_name), resolve(target)
    if t is None or m is None:
        continue
    td, md = defaults(t, True), defaults(m, False)
    if td is not None and md is not None:
        result[f"{torch_name} -> {target}"] = [td, md]
print(json.dumps(result))
'''


def pairs() -> List[Tuple[str, str, Tuple[Tuple[str, str], ...]]]:
    """(torch, target, renames) of every rule target valid in MindSpore 2.10."""
    from msport.knowledge import load_knowledge

    found = {}
    for rule in dict.fromkeys(load_knowledge().apis.values()):
        for target in rule.targets:
            if target.mindspore and target.first <= VERSION <= target.last:
                found[(rule.torch, target.mindspore)] = target.renames
    return [(t, m, r) for (t, m), r in sorted(found.items())]


SYNONYMS = {"input": ("x", "input_x"), "other": ("y",), "dim": ("axis",), "keepdim": ("keep_dims", "keepdims")}


def differing_defaults(torch_defaults: Dict, ms_defaults: Dict, renames) -> List[List[str]]:
    """[parameter, torch default, MindSpore parameter, MindSpore default] where both have a
    default and they differ."""
    renamed = dict(renames)
    out = []
    for name, value in torch_defaults.items():
        candidates = [renamed.get(name, name), *SYNONYMS.get(name, ())]
        ms_name = next((c for c in candidates if c in ms_defaults), None)
        if ms_name is None or value is None or ms_defaults[ms_name] is None:
            continue
        if value != ms_defaults[ms_name]:
            out.append([name, value, ms_name, ms_defaults[ms_name]])
    return out


def measure() -> Dict[str, Dict]:
    probe = json.loads(PROBE.read_text(encoding="utf-8"))
    all_pairs = pairs()
    done = subprocess.run([sys.executable, "-c", DEFAULTS_SCRIPT], input=json.dumps([[t, m] for t, m, _ in all_pairs]),
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"reading the signatures failed: {done.stderr[-2000:]}")
    signatures = json.loads(done.stdout.strip().splitlines()[-1])
    measured: Dict[str, Dict] = {}
    cases = []
    for torch_name, target, renames in all_pairs:
        key = f"{torch_name} -> {target}"
        entry: Dict = {}
        if key in signatures:
            differ = differing_defaults(*signatures[key], renames)
            entry["defaults"] = differ
        arguments = probe.get("ran_with", {}).get(target)
        short = torch_name.rpartition(".")[2]
        if arguments and ".Tensor." not in torch_name and not any(w in short.lower() for w in NOT_RUNNABLE):
            snippet = call_snippet(torch_name, arguments)
            if snippet is not None:
                source, inputs = snippet
                fixed = source.replace(f"{torch_name}(", f"{target}(", 1)
                fixed = "import mindspore\n" + fixed.replace("import torch\n", "", 1)
                case = rename_case(key, source, fixed, inputs)
                cases.append(case)
                entry["call"] = arguments
        measured[key] = entry
    results = run_cases(cases)
    for case in cases:
        result = results[case["id"]]
        if "cannot copy the weights" in result["detail"] or "cannot hold" in result["detail"] or result["detail"].startswith("the original raised"):
            continue  # layers whose parameters do not line up, or arguments torch rejects: no measurement
        measured[case["id"]]["run"] = "equal" if result["ok"] else result["detail"]
    return {k: v for k, v in measured.items() if v}


def render(measured: Dict[str, Dict]) -> str:
    body = ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in sorted(measured.items()))
    return ('{\n"generated_by": "tools/measure_divergences.py",\n"mindspore_version": "2.10.0",\n"torch_version": "2.13.0",\n'
            '"pairs": {\n' + body + "\n}\n}\n")


def main() -> int:
    args = generated_file.parser(__doc__).parse_args()
    text = render(measure())
    return generated_file.write_or_check(OUT, text, "measure_divergences.py", args.check, f"{text.count(' -> ')} pairs")


if __name__ == "__main__":
    sys.exit(main())
