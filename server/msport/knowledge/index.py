"""The knowledge index: rules/ loaded once into lookups the checks and the hover use."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from .loader import RuleFileError, RuleProblem, load_api_rules, load_codes, read_toml, rules_dir
from .model import ApiRule, CodeInfo, Verdict, Version


@dataclass(frozen=True)
class TensorFacts:
    """What tells msport that an expression holds a tensor (see rules/tensors.toml)."""

    frameworks: Tuple[Tuple[str, str], ...]  # (module prefix, framework) e.g. ("mindspore", "mindspore")
    tensor_namespaces: FrozenSet[str]
    tensor_classes: FrozenSet[str]
    module_bases: FrozenSet[str]
    non_tensor_functions: FrozenSet[str]
    non_tensor_methods: FrozenSet[str]
    non_tensor_attributes: FrozenSet[str]

    def framework_of(self, qualified: str) -> Optional[str]:
        for prefix, framework in self.frameworks:
            if qualified == prefix or qualified.startswith(prefix + "."):
                return framework
        return None


@dataclass
class KnowledgeBase:
    codes: Dict[str, CodeInfo]
    apis: Dict[str, ApiRule]
    tensors: TensorFacts
    problems: List[RuleProblem] = field(default_factory=list)
    _by_mindspore: Dict[str, List[ApiRule]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for rule in dict.fromkeys(self.apis.values()):
            for target in rule.targets:
                if target.mindspore:
                    self._by_mindspore.setdefault(target.mindspore, []).append(rule)

    # -- lookups ---------------------------------------------------------------------
    def lookup(self, qualified: str) -> Optional[ApiRule]:
        return self.apis.get(qualified)

    def torch_rules_for(self, mindspore: str) -> Sequence[ApiRule]:
        """The torch APIs that map to a MindSpore API (for hovering MindSpore code)."""
        return self._by_mindspore.get(mindspore, ())

    def verdict(self, qualified: str, version: Version, backend: str) -> Optional[Verdict]:
        rule = self.apis.get(qualified)
        if rule is None:
            return None
        for target in rule.targets:
            if target.applies(version, backend):
                return Verdict(
                    torch=qualified,
                    status=target.status or rule.status,
                    mindspore=target.mindspore,
                    note=target.note or rule.note,
                    diff=rule.diff,
                    consequence=rule.consequence,
                    rule=rule,
                    renames=target.renames,
                )
        elsewhere = _availability(rule)
        return Verdict(
            torch=qualified,
            status="missing",
            mindspore=None,
            note=rule.note if rule.status == "missing" else "",
            diff=rule.diff,
            consequence=None,
            rule=rule,
            available_elsewhere=elsewhere,
        )

    def code(self, code: str) -> CodeInfo:
        return self.codes[code]


def _availability(rule: ApiRule) -> Optional[str]:
    parts = []
    for target in rule.targets:
        if not target.mindspore:
            continue
        versions = f"{_v(target.first)}-{_v(target.last)}" if target.first != target.last else _v(target.first)
        backends = "" if len(target.backends) == 3 else " on " + "/".join(sorted(b.upper() if b != "ascend" else "Ascend" for b in target.backends))
        parts.append(f"{target.mindspore} in MindSpore {versions}{backends}")
    return "; ".join(parts) or None


def _v(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def _load_tensor_facts(path: Path) -> TensorFacts:
    data = read_toml(path)
    return TensorFacts(
        frameworks=tuple((p, f) for f, prefixes in data["frameworks"].items() for p in prefixes),
        tensor_namespaces=frozenset(data["tensor_namespaces"]),
        tensor_classes=frozenset(data["tensor_classes"]),
        module_bases=frozenset(data["module_bases"]),
        non_tensor_functions=frozenset(data["non_tensor_functions"]),
        non_tensor_methods=frozenset(data["non_tensor_methods"]),
        non_tensor_attributes=frozenset(data["non_tensor_attributes"]),
    )


def load_knowledge(directory: Optional[Path] = None, extra_files: Sequence[Path] = ()) -> KnowledgeBase:
    """Read every rule file. Bad entries are skipped and listed in ``problems``."""
    directory = directory or rules_dir()
    problems: List[RuleProblem] = []
    codes = {}
    for path in sorted((directory / "codes").glob("*.toml")):
        for code, info in load_codes(path, problems).items():
            if code in codes:
                problems.append(RuleProblem(path.name, f"code {code}", "code", "is also defined in another file of rules/codes/"))
            codes[code] = info
    apis: Dict[str, ApiRule] = {}
    files = sorted((directory / "api").glob("*.toml")) + list(extra_files)
    for path in files:
        try:
            rules = load_api_rules(path, problems)
        except RuleFileError as exc:
            problems.append(RuleProblem(str(path), "", "", str(exc).split(": ", 1)[-1]))
            continue
        for rule in rules:
            for name in (rule.torch, *rule.aliases):
                if name in apis and path not in extra_files:
                    problems.append(RuleProblem(path.name, rule.origin.split(", ", 1)[-1], "torch", f"{name} is also defined in {apis[name].origin}"))
                apis[name] = rule
    return KnowledgeBase(codes=codes, apis=apis, tensors=_load_tensor_facts(directory / "tensors.toml"), problems=problems)


_default: Optional[KnowledgeBase] = None
_lock = threading.Lock()


def default_knowledge() -> KnowledgeBase:
    """The bundled knowledge, loaded on first use and shared (it is never mutated)."""
    global _default
    with _lock:
        if _default is None:
            _default = load_knowledge()
        return _default
