"""Helpers of the equivalence tests: port a snippet with msport's own fixes, build runner cases.

The fixed code a test runs is always what msport writes (``fix_all`` limited to the codes under
test), never a hand-written expectation, so a test fails when a fix changes the result."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from equivalence_runner import run_cases  # noqa: E402,F401  (re-exported for the tests)

from msport.analysis import Analyzer, Settings  # noqa: E402
from msport.analysis.findings import Safety  # noqa: E402
from msport.analysis.fixes import fix_all  # noqa: E402

ANALYZER = Analyzer()


def settings(**values) -> Settings:
    merged = Settings().merged({k.replace("_", "-"): v for k, v in values.items()}, "equivalence test")
    assert not merged.problems, merged.problems
    return merged


@dataclass
class Port:
    text: str
    safeties: List[Safety]  # of the fixes applied, in order
    codes: List[str]


def port(source: str, select: str, unsafe: bool = False, **setting_values) -> Port:
    """*source* after every fix msport offers for the codes in *select* (safe ones, and the unsafe
    ones too when *unsafe*), through the same fix-all the CLI and the server use."""
    chosen = settings(select=select, **setting_values)
    outcome = fix_all(source, chosen, ANALYZER, unsafe=unsafe)
    return Port(outcome.text, [a.safety for a in outcome.applied], [a.code for a in outcome.applied])


@dataclass
class Case:
    """One before/after pair: *original* runs in *framework*, the fixed code in each of *runs*."""

    id: str
    original: str
    fixed: str
    args: Sequence[str]
    inputs: List[Dict[str, list]]
    framework: str = "torch"
    runs: Sequence[str] = ("mindspore",)
    check_dtype: bool = True
    extra: Dict = field(default_factory=dict)
    #: How the fixed MindSpore code runs (the runner's default: PyNative and mindspore.jit).
    modes: Sequence[str] = ("pynative", "jit")

    def runner_cases(self) -> List[Dict]:
        cases = []
        original = {"framework": self.framework, "code": self.original}
        for target in self.runs:
            fixed = {"framework": target, "code": self.fixed, "modes": list(self.modes)}
            cases.append({"id": f"{self.id} [{target}]", "original": original, "fixed": fixed, "args": list(self.args),
                          "inputs": self.inputs, "check_dtype": self.check_dtype, **self.extra})
        return cases


def run_all(cases: Sequence[Case]) -> Dict[str, Dict]:
    """Every case's runs in one child process: case id -> list of (run id, result)."""
    flat = [c for case in cases for c in case.runner_cases()]
    results = run_cases(flat)
    grouped: Dict[str, List] = {}
    for case in cases:
        grouped[case.id] = [(r["id"], results[r["id"]]) for r in case.runner_cases()]
    return grouped


def failures(results) -> Optional[str]:
    bad = [f"{run}: {result['detail']}" for run, result in results if not result["ok"]]
    return "\n".join(bad) or None
