"""Clauses of a divergent API's note that concern only a parameter's default
(rules/default_clauses.toml), and the parameters for which passing them was measured to remove
that difference (rules/proven_defaults.toml, written by tools/prove_default_keywords.py).

A note such as "parameter keepdim is named keepdims; the default of dim differs" is about the
API; ``x.amax(dim=1, keepdim=True)`` passes dim itself, so its second clause says nothing about
this call. The check leaves such a clause out of the call's message only for a parameter whose
explicit value was run on both packages with equal results: a table clause can be wrong about
what passing the parameter does (MindSpore's BatchNorm momentum means the opposite of PyTorch's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Pattern, Tuple

from .loader import RuleFileError, RuleProblem, file_problem, read_toml, rules_dir
from .rule_texts import clauses, read_text
from .shared import load_once

FILE_NAME = "default_clauses.toml"
PROVEN_FILE = "proven_defaults.toml"


@dataclass(frozen=True)
class Clause:
    text: str
    #: The parameters whose default the clause is about; empty for any other clause.
    params: Tuple[str, ...] = ()
    #: (torch name, MindSpore name) pairs of a clause saying only that parameters are renamed.
    renamed: Tuple[Tuple[str, str], ...] = ()


@dataclass(frozen=True)
class DefaultClauses:
    patterns: Tuple[Pattern, ...] = ()
    name_patterns: Tuple[Pattern, ...] = ()
    #: (torch API, MindSpore target, parameter) -> the call shapes (keyword, positional) run
    #: with equal results when the parameter is passed explicitly.
    proven: Dict[Tuple[str, str, str], FrozenSet[str]] = field(default_factory=dict)
    #: (torch API, MindSpore target, parameter) -> what leaving the parameter out gave on the
    #: target instead of PyTorch's result (the call run: the measured difference).
    differs: Dict[Tuple[str, str, str], str] = field(default_factory=dict)
    problems: Tuple[RuleProblem, ...] = ()

    def clauses(self, note: str) -> Tuple[Clause, ...]:
        found = []
        for text in clauses(note):  # each clause keeps its translations
            params: Tuple[str, ...] = ()
            renamed: Tuple[Tuple[str, str], ...] = ()
            for pattern in self.patterns:
                match = pattern.match(text.rstrip("."))
                if match:
                    params = _names(match.group("params"))
                    break
            for pattern in self.name_patterns:
                match = pattern.match(text.rstrip("."))
                if match and len(_names(match.group("params"))) == len(_names(match.group("names"))):
                    renamed = tuple(zip(_names(match.group("params")), _names(match.group("names"))))
                    break
            found.append(Clause(text, params, renamed))
        return tuple(found)

    def removed_by(self, torch: str, target: Optional[str], passed: Dict[str, str]) -> Tuple[str, ...]:
        """The parameters of *passed* (parameter -> the shape it is written in, "defaults" when
        left out) for which the call gives PyTorch's result, as measured for (torch, target)."""
        return tuple(p for p, shape in passed.items() if shape in self.proven.get((torch, target or "", p), frozenset()))

    def difference(self, torch: str, target: Optional[str], param: str) -> str:
        return self.differs.get((torch, target or "", param), "")


def _names(listed: str) -> Tuple[str, ...]:
    """"a", "a and b", "a, b and c" -> the names."""
    return tuple(p for p in re.split(r", | and ", listed) if p)


def _patterns(data, key: str, groups: Tuple[str, ...], problems: List[RuleProblem]) -> Tuple[Pattern, ...]:
    patterns = []
    for index, text in enumerate(data.get(key, [])):
        try:
            pattern = re.compile(text)
        except (re.error, TypeError) as exc:
            problems.append(RuleProblem(FILE_NAME, f"{key}[{index}]", "", f"not a regular expression: {exc}"))
            continue
        lacking = [g for g in groups if g not in pattern.groupindex]
        if lacking:
            problems.append(RuleProblem(FILE_NAME, f"{key}[{index}]", "", f"has no group named {', '.join(lacking)}"))
            continue
        patterns.append(pattern)
    return tuple(patterns)


def load_default_clauses(directory: Optional[Path] = None) -> DefaultClauses:
    directory = directory or rules_dir()
    problems: List[RuleProblem] = []
    try:
        data = read_toml(directory / FILE_NAME)
    except RuleFileError as exc:
        return DefaultClauses(problems=(file_problem(FILE_NAME, exc),))
    patterns = _patterns(data, "patterns", ("params",), problems)
    name_patterns = _patterns(data, "name_patterns", ("params", "names"), problems)
    proven: Dict[Tuple[str, str, str], FrozenSet[str]] = {}
    differs: Dict[Tuple[str, str, str], str] = {}
    try:
        runs = read_toml(directory / PROVEN_FILE).get("proven", []) if (directory / PROVEN_FILE).is_file() else []
    except RuleFileError as exc:
        runs, problems = [], problems + [file_problem(PROVEN_FILE, exc)]
    for item in runs:
        key = (item["torch"], item["mindspore"], item["param"])
        proven[key] = proven.get(key, frozenset()) | frozenset(item.get("shapes", ()))
        if item.get("differs"):
            # Quoted in a message (callforms' defaults_differ): in every language.
            differs[key] = read_text(item, "differs", PROVEN_FILE, f"{key[0]} {key[2]}", problems) or ""
    return DefaultClauses(patterns, name_patterns, proven, differs, tuple(problems))


default_default_clauses = load_once(load_default_clauses)
