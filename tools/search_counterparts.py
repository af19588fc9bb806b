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
#: Keyword call shapes: each positional shape with a second argument, that argument passed by
#: the name torch's signature gives it (`x, offset=1` for `x.diag_embed(1)`), to both sides. A
#: candidate equal by position may take it under another name (MindSpore's `axis`) and raise:
#: recorded per call (`keywords`), since that call is not served as written.
TORCH_SNAPSHOT = ROOT / "rules" / "snapshots" / "torch-2.13.0.json"


def _torch_params() -> Dict[str, List[str]]:
    apis = json.loads(TORCH_SNAPSHOT.read_text(encoding="utf-8"))["apis"]
    return {name: entry[1] for name, entry in apis.items() if isinstance(entry, list) and len(entry) > 1 and entry[1]}


_PARAMS: Dict[str, List[str]] = {}


def shapes_for(torch: str) -> Tuple[Tuple[str, str, Tuple[str, ...]], ...]:
    """SHAPES and their keyword forms for *torch* (its second parameter by name)."""
    if not _PARAMS:
        _PARAMS.update(_torch_params())
    params = _PARAMS.get(torch, [])
    if len(params) < 2 or params[1].startswith("*") or params[1] == "out":
        return SHAPES
    name = params[1]
    keyword = []
    for label, args, names in SHAPES:
        if args:
            first, _, value = label.partition(", ")
            keyword.append((f"{first}, {name}={value}", f"{name}={'y' if args in ('y', 'j') else args}", names))
    return SHAPES + tuple(keyword)


#: torch's and MindSpore's docstrings naming another API the same operation is spelled as
#: ("Alias for :func:`torch.special.expit`", "Refer to :func:`mindspore.ops.greater` for more details").
_DOC_LINK = re.compile(r"(?:[Aa]lias (?:for|of)|[Rr]efer to|[Ss]ee) :?(?:func|meth|class|attr)?:?`~?((?:torch|mindspore|Tensor)[\w.]*\.\w+)`")
#: Where torch's aliases are read (its docstrings), per torch module of the search.
TORCH_MODULES = ("torch", "torch.Tensor", "torch.nn.functional", "torch.special", "torch.linalg", "torch.fft")
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


def _links(pairs: Iterable[Tuple[str, str]]) -> Dict[str, List[str]]:
    """Short name -> the short names it is linked to, both ways, in the order met."""
    out: Dict[str, List[str]] = {}
    for a, b in pairs:
        if a != b:
            out.setdefault(a, []).append(b)
            out.setdefault(b, []).append(a)
    return {k: list(dict.fromkeys(v)) for k, v in out.items()}


def _doc_target(obj) -> Optional[str]:
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return None
    match = _DOC_LINK.search(doc[:600])
    return match.group(1).rpartition(".")[2] if match else None


def torch_aliases() -> Dict[str, List[str]]:
    """torch's own aliases, read from its docstrings (`torch.special.psi` "Alias for
    torch.special.digamma", `Tensor.itemsize` of `Tensor.element_size`): short name -> names."""
    import importlib
    pairs = []
    for module in TORCH_MODULES:
        owner = importlib.import_module("torch").Tensor if module == "torch.Tensor" else importlib.import_module(module)
        for name in dir(owner):
            if name.startswith("_"):
                continue
            try:
                target = _doc_target(getattr(owner, name))
            except Exception:  # noqa: BLE001 - a lazy attribute that fails to load has no alias to read
                continue
            if target:
                pairs.append((name, target))
    return _links(pairs)


def mindspore_links(spaces: Iterable[str]) -> Dict[str, List[str]]:
    """MindSpore's documented aliases and cross-references between the namespaces searched
    (`ops.greater` refers to `ops.gt`, `Tensor.ndimension` to `Tensor.ndim`): short -> names.
    A wrong reference in a docstring costs a candidate run, never a verdict."""
    import importlib
    import mindspore
    pairs = []
    for space in spaces:
        try:
            owner = mindspore.Tensor if space == "mindspore.Tensor" else importlib.import_module(space)
        except ImportError:
            continue
        for name in dir(owner):
            if name.startswith("_") or name[:1].isupper():
                continue
            try:
                obj = getattr(owner, name)
            except Exception:  # noqa: BLE001 - as above
                continue
            target = _doc_target(obj) if callable(obj) else None
            if target:
                pairs.append((name, target))
    return _links(pairs)


def candidates(torch: str, apis: Dict[str, list], rules: Dict, aliases: Dict[str, List[str]] = None,
               links: Dict[str, List[str]] = None) -> Tuple[List[Tuple[str, str]], List[str]]:
    """([(MindSpore candidate, how it was found)], the namespaces searched). A candidate is an
    API that exists and is callable, or a composition from rules/search.toml [wide.compose]
    (`mindspore.ops.svd(compute_uv=False)`: one call with fixed arguments)."""
    module, _, short = torch.rpartition(".")
    spaces = list(rules["namespaces"][module])
    synonyms = {**rules["synonyms"], **{b: [a] for a, bs in rules["synonyms"].items() for b in bs}}
    inplace = short.endswith("_") and not short.endswith("__")
    named = variants(short, synonyms)
    via = {name: "name" if name in (short, short.strip("_")) else "spelling" for name in named}
    for name in list(named):
        for other in (aliases or {}).get(name, ()):
            via.setdefault(other, "torch alias")
            named.append(other)
    for name in list(named):
        for other in (links or {}).get(name, ()):
            via.setdefault(other, "MindSpore docstring")
            named.append(other)
    found: List[Tuple[str, str]] = []
    for name in dict.fromkeys(named):
        if inplace and not name.endswith("_"):
            continue  # an out-of-place counterpart is said by the in-place note (assign its result)
        for space in spaces:
            full = f"{space}.{name}"
            entry = apis.get(full)
            if entry is None or entry[0] not in ("function", "method"):
                continue
            found.append((full, via[name]))
    for form in rules.get("compose", {}).get(torch, ()):
        found.append((form, "composition"))
    seen: Dict[str, str] = {}
    for full, how in found:
        seen.setdefault(full, how)
    return list(seen.items()), spaces


def split_form(candidate: str) -> Tuple[str, str]:
    """`mindspore.ops.svd(compute_uv=False)` -> (`mindspore.ops.svd`, `compute_uv=False`)."""
    name, _, fixed = candidate.partition("(")
    return name, fixed[:-1] if fixed.endswith(")") else fixed


def _source(torch: str, candidate: str, args: str) -> Tuple[str, str]:
    module, _, short = torch.rpartition(".")
    inplace = short.endswith("_") and not short.endswith("__")
    rest = f", {args}" if args else ""
    if module == "torch.Tensor":
        call_t = f"x.{short}({args})"
    else:
        call_t = f"{module}.{short}(x{rest})"
    target, fixed = split_form(candidate)
    space, _, name = target.rpartition(".")
    args_m = ", ".join(a for a in (args, fixed) if a)
    if space == "mindspore.Tensor":
        call_m = f"x.{name}({args_m})"
    else:
        call_m = f"{space}.{name}(x{', ' + args_m if args_m else ''})"
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
    for label, args, names in shapes_for(torch):
        first = names[0]
        second = names[1] if len(names) > 1 else "y"
        inputs = {"x": INPUTS[first], "y": INPUTS[second]}
        original, fixed = _source(torch, candidate, "y" if args in ("y", "j") else args)
        out.append({"id": f"{torch}|{candidate}|{label}", "original": {"framework": "torch", "code": original},
                    "fixed": {"framework": "mindspore", "code": fixed}, "args": ["x", "y"], "inputs": [inputs],
                    "check_dtype": True})
    return out


def judge(torch: str, candidate: str, results: Dict[str, Dict]) -> Optional[Dict]:
    """What the runs say of *candidate*: equal for the shapes torch accepts, or what differs.
    The positional shapes decide the verdict; a keyword shape that is not equal is recorded
    under `keywords` (that call, as written, is not served), one that is equal joins `calls`."""
    equal, differs, raised, keywords = [], [], [], []
    for label, _, _ in shapes_for(torch):
        result = results.get(f"{torch}|{candidate}|{label}")
        if result is None:
            continue
        detail = result.get("detail", "")
        if "original raised" in detail:
            continue  # not a call torch accepts
        by_keyword = "=" in label
        if result.get("ok"):
            equal.append(label)
        elif by_keyword:
            keywords.append(f"{label}: " + ("it raises" if "raised" in detail else _difference(detail)))
        elif "fixed raised" in detail or "raised" in detail:
            raised.append(label)
        else:
            differs.append((label, _difference(detail)))
    positional = [label for label in equal if "=" not in label]
    # A keyword call is worth saying only where the same call by position is equal (then: pass
    # it by position); otherwise its positional form's difference already says it.
    keywords = [k for k in keywords if re.sub(r"\w+=", "", k.partition(":")[0]) in positional]
    if not (positional or differs or raised):
        return None
    out: Dict = {"found": candidate}
    if positional and not differs and not raised:
        out.update(verdict="equivalent", calls=equal)
    elif not positional and not differs:
        return None  # it raises for every call torch accepts: no counterpart
    else:
        out.update(verdict="divergent", calls=equal,
                   differs=[f"{label}: {what}" for label, what in differs] + [f"{label}: it raises" for label in raised])
    if keywords:
        out["keywords"] = keywords
    return out


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
    aliases = torch_aliases()
    links = mindspore_links(sorted({s for spaces in rules["namespaces"].values() for s in spaces}))
    pairs: Dict[str, List[str]] = {}
    how: Dict[Tuple[str, str], str] = {}
    for torch in missing:
        short = torch.rpartition(".")[2]
        found, _ = candidates(torch, apis, rules, aliases, links)
        if any(word in short for word in NOT_COMPARABLE):
            continue
        if found:
            # Compositions are named in the rules for this API: always run.
            pairs[torch] = [cand for n, (cand, via) in enumerate(found) if n < rules.get("most", 4) or via == "composition"]
            how.update({(torch, cand): via for cand, via in found})
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
        target, fixed = split_form(outcome["found"])
        lines.append(f"[{json.dumps(torch)}]")
        lines.append(f"found = {json.dumps(target)}")
        if fixed:
            lines.append(f"fixed = {json.dumps(fixed)}")
        lines.append(f"via = {json.dumps(how[(torch, outcome['found'])])}")
        lines.append(f"verdict = {json.dumps(outcome['verdict'])}")
        lines.append(f"calls = {_toml_list(outcome['calls'])}")
        if outcome.get("differs"):
            lines.append(f"differs = {_toml_list(outcome['differs'])}")
        if outcome.get("keywords"):
            lines.append(f"keywords = {_toml_list(outcome['keywords'])}")
        lines.append(f"backends = {_toml_list(missing[torch])}")
        lines.append("")
    text = "\n".join(lines)
    return generated_file.write_or_check(OUT, text, "search_counterparts.py", args.check,
                                         f"{len(missing)} missing APIs searched, {len(pairs)} with candidates, "
                                         f"{counts['equivalent']} counterparts equal, {counts['divergent']} differing")


def generated_file_header() -> str:
    return ("# Generated by tools/search_counterparts.py (do not edit): for torch APIs with no rule of their\n"
            "# own in MindSpore 2.10, the MindSpore API found by searching its namespaces and run against torch\n"
            "# 2.13 on CPU. via = how the candidate was found (name, spelling, torch alias, MindSpore docstring,\n"
            "# composition: one call with the fixed arguments `fixed`); calls = the call shapes whose results were\n"
            "# equal (x, y: float32 (3, 4); i: int64); differs = the shapes torch accepts where the candidate's\n"
            "# result differed or it raised; keywords = keyword calls (torch's keyword name) that are not equal.\n")


if __name__ == "__main__":
    sys.exit(main())
