#!/usr/bin/env python3
"""Search MindSpore for a counterpart of every torch API msport reports missing, and run it.

    python tools/search_counterparts.py [--check]

For every public torch function and Tensor method (torch, torch.Tensor, torch.nn.functional,
torch.special, torch.linalg, torch.fft) whose verdict on MindSpore 2.10 is "missing" on the
default target or on CPU, this looks for candidates in the namespaces of rules/search.toml
[wide] (the real package's names, rules/snapshots/mindspore-2.10.0.json): the same name, the
name without its `_` prefix or suffix, singular/plural, snake/camel case, and the synonym pairs
of [wide.synonyms]. Each candidate is then run against torch (torch 2.13, mindspore 2.10 CPU,
one child process per batch, PyNative and mindspore.jit, tools/equivalence_runner.py) for the torch API's common call
shapes on generated inputs: a candidate equal for every shape torch accepts is a counterpart
(MS103 for those shapes); one that runs but differs is a measured divergence (MS102, what
differs); none leaves the API missing (MS101, naming what was searched). Random results are
not compared. The outcome is rules/searched.toml, read by knowledge/index.py;
tests/knowledge/test_searched.py re-runs a sample.

Needs a Python with msport, torch 2.13.0 and mindspore 2.10.0 (numpy<2).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tools"))

import generated_file  # noqa: E402
from equivalence_runner import run_cases  # noqa: E402

OUT = ROOT / "rules" / "searched.toml"
SNAPSHOT = ROOT / "rules" / "snapshots" / "mindspore-2.10.0.json"
VERSION = (2, 10)
#: Random or uninitialised results: running both sides proves nothing about them.
NOT_COMPARABLE = ("dropout", "rand", "bernoulli", "multinomial", "normal", "poisson", "gumbel", "empty", "uniform",
                  "exponential_", "cauchy_", "geometric_", "log_normal_", "random_", "seed", "manual_seed")

#: The call shapes tried: (label, torch arguments after the receiver/first tensor, inputs).
#: `x` and `y` are float32 (3, 4); `i` is int64 (3, 4).
SHAPES: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = (
    ("x", "", ("x",)),
    ("x, y", "y", ("x", "y")),
    ("x, 1", "1", ("x",)),
    ("x, -1", "-1", ("x",)),
    ("i", "", ("i",)),
    ("i, j", "j", ("i", "j")),
)
INPUTS = {"x": ["float32", [3, 4], "normal"], "y": ["float32", [3, 4], "positive"],
          "i": ["int64", [3, 4], "int"], "j": ["int64", [3, 4], "int"]}


def wide_rules() -> Dict:
    from msport.knowledge.loader import read_toml
    return read_toml(ROOT / "rules" / "search.toml")["wide"]


def missing_apis() -> Dict[str, Tuple[str, ...]]:
    """torch API -> the backends it is missing on (default target and CPU)."""
    from msport.knowledge import index
    # Judged without the outcome of the previous search: it is what this run re-makes.
    index.searched_counterpart = lambda *args: None
    kb = index.default_knowledge()
    modules = set(wide_rules()["namespaces"])
    out: Dict[str, Tuple[str, ...]] = {}
    for name, kind in sorted(kb.torch_apis.items()):
        module, _, short = name.rpartition(".")
        if module not in modules or kind not in ("function", "method") or short.startswith("_"):
            continue
        backends = tuple(b for b in ("ascend", "cpu") if (v := kb.verdict(name, VERSION, b)) is not None
                         and v.status == "missing")
        if backends:
            out[name] = backends
    return out


def _camel(name: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in name.split("_") if p)


def variants(short: str, synonyms: Dict[str, List[str]]) -> List[str]:
    """The names a counterpart of *short* may have, best first."""
    names = [short]
    core = short.strip("_")
    names.append(core)
    for word in (core, core[:-1] if core.endswith("s") else core + "s"):
        names.append(word)
    for name in list(names):
        names.extend(synonyms.get(name, ()))
    # `special_erfcx`, `linalg_det`: a torch prefix MindSpore may spell without.
    for prefix in ("special_", "linalg_", "fft_"):
        if core.startswith(prefix):
            names.append(core[len(prefix):])
    names.extend(_camel(n) for n in list(names))
    return list(dict.fromkeys(n for n in names if n))


def candidates(torch: str, apis: Dict[str, list], rules: Dict) -> Tuple[List[str], List[str]]:
    """(MindSpore candidates that exist and are callable, the namespaces searched)."""
    module, _, short = torch.rpartition(".")
    spaces = list(rules["namespaces"][module])
    synonyms = {**rules["synonyms"], **{b: [a] for a, bs in rules["synonyms"].items() for b in bs}}
    found = []
    inplace = short.endswith("_") and not short.endswith("__")
    for name in variants(short, synonyms):
        if inplace and not name.endswith("_"):
            continue  # an out-of-place counterpart is said by the in-place note (assign its result)
        for space in spaces:
            full = f"{space}.{name}"
            entry = apis.get(full)
            if entry is None or entry[0] not in ("function", "method"):
                continue
            found.append(full)
    return list(dict.fromkeys(found)), spaces


def _source(torch: str, candidate: str, args: str) -> Tuple[str, str]:
    module, _, short = torch.rpartition(".")
    inplace = short.endswith("_") and not short.endswith("__")
    rest = f", {args}" if args else ""
    if module == "torch.Tensor":
        call_t = f"x.{short}({args})"
    else:
        call_t = f"{module}.{short}(x{rest})"
    space, _, name = candidate.rpartition(".")
    if space == "mindspore.Tensor":
        call_m = f"x.{name}({args})"
    else:
        call_m = f"{space}.{name}(x{rest})"
    imports_t = "import torch\nimport torch.nn.functional\nimport torch.special\nimport torch.linalg\nimport torch.fft\n"
    imports_m = "import mindspore\nimport mindspore.ops\nimport mindspore.mint\nimport mindspore.numpy\nimport mindspore.mint.nn.functional\n" \
                "import mindspore.ops.functional\nimport mindspore.mint.linalg\nimport mindspore.mint.special\n"
    if inplace:
        body_t = f"    x = x * 1\n    {call_t}\n    return x\n"
        body_m = f"    x = x * 1\n    {call_m}\n    return x\n"
    else:
        body_t, body_m = f"    return {call_t}\n", f"    return {call_m}\n"
    return imports_t + "def f(x, y):\n" + body_t, imports_m + "def f(x, y):\n" + body_m


def cases_for(torch: str, candidate: str) -> List[Dict]:
    out = []
    for label, args, names in SHAPES:
        first = names[0]
        second = names[1] if len(names) > 1 else "y"
        inputs = {"x": INPUTS[first], "y": INPUTS[second]}
        original, fixed = _source(torch, candidate, "y" if args in ("y", "j") else args)
        out.append({"id": f"{torch}|{candidate}|{label}", "original": {"framework": "torch", "code": original},
                    "fixed": {"framework": "mindspore", "code": fixed}, "args": ["x", "y"], "inputs": [inputs],
                    "check_dtype": True})
    return out


def judge(torch: str, candidate: str, results: Dict[str, Dict]) -> Optional[Dict]:
    """What the runs say of *candidate*: equal for the shapes torch accepts, or what differs."""
    equal, differs, raised = [], [], []
    for label, _, _ in SHAPES:
        result = results.get(f"{torch}|{candidate}|{label}")
        if result is None:
            continue
        detail = result.get("detail", "")
        if "original raised" in detail:
            continue  # not a call torch accepts
        if result.get("ok"):
            equal.append(label)
        elif "fixed raised" in detail or "raised" in detail:
            raised.append(label)
        else:
            differs.append((label, _difference(detail)))
    if not (equal or differs or raised):
        return None
    if equal and not differs and not raised:
        return {"found": candidate, "verdict": "equivalent", "calls": equal}
    if not equal and not differs:
        return None  # it raises for every call torch accepts: no counterpart
    return {"found": candidate, "verdict": "divergent", "calls": equal,
            "differs": [f"{label}: {what}" for label, what in differs] + [f"{label}: it raises" for label in raised]}


def _difference(detail: str) -> str:
    text = detail.lower()
    if "dtype" in text:
        return "it returns another dtype"
    if "shape" in text:
        return "it returns another shape"
    if "structure" in text or "type" in text:
        return "it returns another kind of result"
    return "it returns other values"


def _toml_list(items: Iterable[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def main() -> int:
    args = generated_file.parser(__doc__).parse_args()
    rules = wide_rules()
    apis = json.loads(SNAPSHOT.read_text(encoding="utf-8"))["apis"]
    missing = missing_apis()
    pairs: Dict[str, List[str]] = {}
    searched: Dict[str, List[str]] = {}
    for torch in missing:
        short = torch.rpartition(".")[2]
        found, spaces = candidates(torch, apis, rules)
        searched[torch] = spaces
        if any(word in short for word in NOT_COMPARABLE):
            continue
        if found:
            pairs[torch] = found[: rules.get("most", 4)]
    cases = [c for torch, found in pairs.items() for cand in found for c in cases_for(torch, cand)]
    results: Dict[str, Dict] = {}
    batch = 400
    for start in range(0, len(cases), batch):
        results.update(run_cases(cases[start:start + batch]))
        print(f"ran {min(start + batch, len(cases))}/{len(cases)} cases", file=sys.stderr)
    lines = [generated_file_header()]
    counts = {"equivalent": 0, "divergent": 0}
    for torch in sorted(pairs):
        outcome = None
        tried = []
        for cand in pairs[torch]:
            tried.append(cand)
            judged = judge(torch, cand, results)
            if judged is None:
                continue
            if judged["verdict"] == "equivalent":
                outcome = judged
                break
            outcome = outcome or judged
        if outcome is None:
            continue
        counts[outcome["verdict"]] += 1
        lines.append(f"[{json.dumps(torch)}]")
        lines.append(f"found = {json.dumps(outcome['found'])}")
        lines.append(f"verdict = {json.dumps(outcome['verdict'])}")
        lines.append(f"calls = {_toml_list(outcome['calls'])}")
        if outcome.get("differs"):
            lines.append(f"differs = {_toml_list(outcome['differs'])}")
        lines.append(f"backends = {_toml_list(missing[torch])}")
        lines.append("")
    text = "\n".join(lines)
    return generated_file.write_or_check(OUT, text, "search_counterparts.py", args.check,
                                         f"{len(missing)} missing APIs searched, {len(pairs)} with candidates, "
                                         f"{counts['equivalent']} counterparts equal, {counts['divergent']} differing")


def generated_file_header() -> str:
    return ("# Generated by tools/search_counterparts.py (do not edit): for torch APIs with no rule of their\n"
            "# own in MindSpore 2.10, the MindSpore API found by searching its namespaces and run against torch\n"
            "# 2.13 on CPU. calls = the call shapes whose results were equal (x, y: float32 (3, 4); i: int64);\n"
            "# differs = the shapes torch accepts where the candidate's result differed or it raised.\n")


if __name__ == "__main__":
    sys.exit(main())
