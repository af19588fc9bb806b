"""Vague table categories replaced by what the real packages show (rules/snapshots/measured-*.json).

The tables often say only that "a default value differs" or "the inputs differ". For MindSpore
2.7-2.10 msport measured each pair (tools/measure_divergences.py): the defaults of the
parameters both signatures have, and a run of both APIs on the same inputs. A vague phrase
becomes what was measured (which default, both values; what the run showed); where the run
shows the two agree and no default differs, the packages disprove the table's claim for that
call. Releases before 2.7 cannot be installed next to the others: there the phrase becomes the
two real signatures, which say where to look. Each rewritten fact records what the tables said
(``tables``), so that both stay visible.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .build import Fact, GenRule
from .facts import SNAPSHOTS, SNAPSHOT_VERSIONS, Snapshot, Version
from .notes import CATEGORY_PHRASES, _names, _plural, sentence

MEASURED = "measured-2.10.0.json"
INFERRED_UNCOMPARED = "not in the official mapping tables: msport matched the name, but could not compare the parameters; check them against the MindSpore documentation"
#: Phrases that say that something differs without saying what.
VAGUE = (
    CATEGORY_PHRASES["param_name"], CATEGORY_PHRASES["default_value"], CATEGORY_PHRASES["param_dtype"],
    CATEGORY_PHRASES["param_count_or_order"], CATEGORY_PHRASES["overload"], CATEGORY_PHRASES["missing_param_in_ms"],
    CATEGORY_PHRASES["optimization_param"], "the inputs differ", "the return value differs",
    "the official differences page describes the difference in prose",
    "the official mapping table records a difference", "the official mapping table records a difference (see its differences page)",
)


def load_measured(directory: Path = SNAPSHOTS) -> Dict[str, Dict]:
    path = directory / MEASURED
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["pairs"]


def _params(params: Optional[Sequence[str]]) -> Optional[str]:
    if params is None:
        return None
    shown = [p for p in params if p not in ("self", "Tensor")]
    return ", ".join(shown) if shown else "no parameters"


def _named(params: Optional[Sequence[str]]) -> Optional[List[str]]:
    """The parameters a call can name, in order; None where the signature hides them
    (a bare (*args, **kwargs) says nothing about the parameters)."""
    if params is None:
        return None
    # Capitalised entries are types a docstring signature lists (topk's out=(Tensor, LongTensor)).
    named = [p for p in params if p not in ("self", "Tensor") and not p.startswith("*") and not p[:1].isupper()]
    return named if named or not any(p.startswith("*") for p in params) else None


def _vague(phrase: str) -> bool:
    """Says that something differs without saying what (the tables' categories)."""
    return phrase in VAGUE


#: Vague phrases the real signatures answer by themselves: parameter names, their order and
#: their defaults, read from both installed packages (no run needed).
SIGNATURE_CLAIMS = (CATEGORY_PHRASES["param_name"], CATEGORY_PHRASES["default_value"], CATEGORY_PHRASES["param_count_or_order"])


#: The end of a signature sentence that cannot say which parameters differ.
UNSPECIFIC = "match the arguments by position and meaning"
#: The end of a signature sentence where the parameters agree and nothing was measured.
UNMEASURED = "compare your call's results on both before relying on it"


#: Differences below this are float32 rounding, not a divergence (GroupNorm: 1.1e-5).
NOISE = 1e-4


def _same_value(a: str, b: str) -> bool:
    try:
        return float(a) == float(b)  # 0 and 0.0
    except ValueError:
        # dtype=None means the default dtype, float32, in both packages.
        return a == b or {a, b} == {"None", "mindspore.float32"}


def _defaults(entry: Dict) -> List[str]:
    return [f"the default of {t} is {tv} in PyTorch and {mv} in MindSpore" + (f" (where it is named {m})" if m != t else "")
            for t, tv, m, mv in entry.get("defaults", []) if not _same_value(tv, mv)]


def _equal(entry: Dict) -> bool:
    """The run agreed (within float32 rounding)."""
    run = entry.get("run")
    if run == "equal":
        return True
    found = re.search(r"max abs difference ([0-9.e+-]+)\)", run or "")
    return bool(found) and float(found.group(1)) < NOISE


def _run(entry: Dict) -> Optional[str]:
    run = entry.get("run")
    if run is None or _equal(entry):
        return None
    detail = run.split(": ", 1)[1] if run.startswith("input set") else run
    detail = detail.replace("fixed code in ", "MindSpore in ").replace(" vs original in torch", "")
    return f"run with PyTorch's arguments ({described(entry['call'])}), {detail} (measured)"


#: Results that depend on the order of duplicate indices: a difference there is no divergence.
ORDER_DEPENDENT = ("scatter", "index_put", "put")


def _computes_otherwise(torch: str, entry: Dict) -> bool:
    """The run returned something else (values, shape, dtype): not an exception, which on CPU is
    mostly a missing kernel of this backend (mint.diff runs in PyNative only), not a divergence."""
    run = entry.get("run") or ""
    if torch.rpartition(".")[2].rstrip("_") in ORDER_DEPENDENT:
        return False
    return "raised" not in run and any(word in run for word in ("values differ", "shape", "dtype", "results instead"))


def described(call: str) -> str:
    """The probe's argument names as what they are: `x, 1` -> `float32[3, 3], 1`."""
    from prove_renames import LEGEND  # tools/: the inputs the runs were made with

    def name(match):
        dtype, shape, kind = (LEGEND[match.group(0)] + ["", ""])[:3]
        if kind == "value":
            return f"{dtype}{list(__import__('numpy').array(shape).shape)}"
        return f"{dtype}{shape}"

    return re.sub(r"\b(" + "|".join(sorted(LEGEND, key=len, reverse=True)) + r")\b", name, call)


class Sharpener:
    def __init__(self, measured: Dict[str, Dict], snapshots: Dict[Version, Snapshot], torch: Snapshot,
                 general: Sequence[str] = ()):
        self.measured, self.snapshots, self.torch = measured, snapshots, torch
        # Parameters MindSpore omits on purpose (out, device, requires_grad...): no divergence.
        self.general = frozenset(general)

    def signatures(self, torch: str, mindspore: str, version: Version, renames: Sequence[Tuple[str, str]] = ()) -> Optional[str]:
        """What the two real signatures show: the parameters named otherwise at the same position,
        those at another position, those MindSpore lacks (None when the two agree)."""
        snap = self.snapshots.get(version) or self.snapshots[min(self.snapshots)]
        t, m = _named(self.torch.params(torch)), _named(snap.params(mindspore))
        label = f"{version[0]}.{version[1]}" if version in self.snapshots else f"{min(self.snapshots)[0]}.{min(self.snapshots)[1]}"
        if t is None and m is None:
            return None
        if t is None:
            return f"{mindspore} takes ({_params(m)}) in MindSpore {label}, and PyTorch's signature is not introspectable: {UNSPECIFIC}"
        if m is None:
            return f"PyTorch's {torch} takes ({_params(t)}); {mindspore}'s signature is not introspectable in MindSpore {label}: {UNSPECIFIC}"
        renamed = dict(renames)
        moved, lacking = [], []
        for i, name in enumerate(t):
            name = renamed.get(name, name)
            if name not in m:
                if name not in self.general:
                    lacking.append(name)
            elif m.index(name) != i:
                moved.append(f"{name} is parameter {m.index(name) + 1} in MindSpore and {i + 1} in PyTorch")
        phrases = [f"{text}: pass it by keyword" for text in moved]
        if lacking:
            # No guessing which MindSpore parameter serves: both lists, as the packages have them.
            phrases.append(f"{mindspore} has no {_plural(lacking, 'parameter', 'parameters')} named {_names(lacking)} in MindSpore {label}; it takes ({_params(m)})")
        # Identical signatures: what the tables call a difference is not in the parameters, and
        # no run of this pair says what it is (claims the signatures decide are settled in _sharpened).
        return sentence(phrases) or f"{mindspore} takes the parameters of PyTorch's {torch} ({_params(m)}) in MindSpore {label}, and msport has not run the pair: {UNMEASURED}"

    def _same_parameters(self, torch: str, mindspore: str, version: Version) -> bool:
        """Both real signatures readable, with PyTorch's parameters first in the same order (those
        MindSpore omits on purpose aside; parameters only MindSpore has may follow)."""
        snap = self.snapshots.get(version) or self.snapshots[min(self.snapshots)]
        t, m = _named(self.torch.params(torch)), _named(snap.params(mindspore))
        if t is None or m is None:
            return False
        t, m = [n for n in t if n not in self.general], [n for n in m if n not in self.general]
        return bool(t) and m[:len(t)] == t

    def fact(self, torch: str, mindspore: str, version: Version, fact: Fact) -> Fact:
        fact = self._sharpened(torch, mindspore, version, fact)
        phrases = [p for p in fact.note.split("; ") if p] if fact.note else []
        if fact.status == "divergent" and fact.renames and phrases and all(_renaming(p) for p in phrases):
            # Only keyword names differ: a call by position ports as it is, and the call form
            # renamed-keyword (rules/callforms.toml) rewrites the keywords a call passes; unless
            # the run shows it computes something else (ops.sort's int32 indices).
            entry = self._measured(torch, mindspore, version)
            run = _run(entry)
            if run and _computes_otherwise(torch, entry):
                return Fact("divergent", sentence([run, *phrases]), fact.renames, fact.diff, tables=fact.tables)
            return Fact("equivalent", fact.note, fact.renames, fact.diff, tables=fact.tables or f"divergent: {fact.note}")
        return fact

    def _measured(self, torch: str, mindspore: str, version: Version) -> Dict:
        """The 2.10 measurement, for 2.7-2.10 where the target exists, and for the releases before
        2.7 when its signature is the same in every snapshot (the best evidence there is)."""
        if version not in SNAPSHOT_VERSIONS:
            signatures = {snap.params(mindspore) for snap in self.snapshots.values()}
            if len(signatures) != 1 or None in signatures:
                return {}
        return self.measured.get(f"{torch} -> {mindspore}", {})

    def _sharpened(self, torch: str, mindspore: str, version: Version, fact: Fact) -> Fact:
        phrases = [p for p in fact.note.split("; ") if p] if fact.note else []
        inferred = fact.note == INFERRED_UNCOMPARED or fact.note.endswith("but could not compare the parameters; check them against the MindSpore documentation")
        entry = self._measured(torch, mindspore, version)
        defaults, run = _defaults(entry), _run(entry)
        equal = _equal(entry)
        tables = fact.note
        if fact.status == "equivalent" and run and _computes_otherwise(torch, entry):
            # The packages win: a rename called equivalent that computes something else.
            return Fact("divergent", sentence([run, *phrases]), fact.renames, fact.diff,
                        tables=f"equivalent{': ' + fact.note if fact.note else ''}")
        if not inferred and not any(_vague(p) for p in phrases):
            return fact
        if inferred:
            prefix = fact.note.split("msport matched the name")[0]
            if equal and not defaults:
                return Fact("equivalent", f"{prefix}msport matched the name and ran both on the same inputs ({described(entry['call'])}) with equal results", fact.renames, fact.diff)  # noqa: E501
            found = defaults + ([run] if run else [])
            if not found:
                signatures = self.signatures(torch, mindspore, version, fact.renames)
                found = [signatures] if signatures else [f"{mindspore} has the same name, but neither package exposes its parameters and msport has no call to run both with: run your call on both before relying on it"]
            return Fact("divergent", sentence([*found, f"{prefix}msport matched the name"]), fact.renames, fact.diff)
        kept = [p for p in phrases if not _vague(p)]
        found = defaults + ([run] if run else [])
        if not kept and not found and not fact.renames and "defaults" in entry and all(p in SIGNATURE_CLAIMS for p in phrases) \
                and version in SNAPSHOT_VERSIONS and self._same_parameters(torch, mindspore, version):
            # The table claims only a difference of names, order or defaults, and both installed
            # packages show the same parameters with the same defaults (mint.topk): they disprove it.
            return Fact("equivalent", "", (), None, tables=f"{fact.status}: {tables}")
        if not found and not equal:
            signatures = self.signatures(torch, mindspore, version, fact.renames) or (
                f"neither package shows the parameters of {mindspore} and msport has not run the pair: {UNMEASURED}")
            found = [signatures]
        if not kept and not found:
            # Measured equal with equal defaults: the packages disprove the table's claim.
            return Fact("equivalent", "", (), None, tables=f"{fact.status}: {tables}")
        return Fact(fact.status, sentence(kept + found), fact.renames, fact.diff, tables=f"{fact.status}: {tables}")


def _renaming(phrase: str) -> bool:
    return bool(re.fullmatch(r"(parameters? .+ (is|are) named .+|not in the official mapping tables: msport matched the name)", phrase))


def sharpen(rules: Dict[str, GenRule], snapshots: Dict[Version, Snapshot], torch: Snapshot, directory: Path = SNAPSHOTS,
            general: Sequence[str] = ()) -> None:
    """Replace the vague phrases of every generated fact (before curated facts are laid over)."""
    sharpener = Sharpener(load_measured(directory), snapshots, torch, general)
    for rule in rules.values():
        for target in rule.targets:
            if not target.mindspore:
                continue
            for version, fact in list(target.versions.items()):
                target.versions[version] = sharpener.fact(rule.torch, target.mindspore, version, fact)
