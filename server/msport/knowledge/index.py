"""The knowledge index: rules/ loaded once into lookups the checks and the hover use."""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from .shared import load_once
from . import cache
from .codes import load_codes
from .loader import RuleFileError, RuleProblem, file_problem, load_api_rules, read_toml, rules_dir
from .loader import FIRST_VERSION, LAST_VERSION
from .model import ApiRule, CodeInfo, Target, Verdict, Version
from .search import default_search, internal_note, missing_note, searched_note
from .searched import searched_counterpart
from .triggers import FILE_NAME as TRIGGERS_FILE, TriggerRules, load_triggers

TORCH_SNAPSHOT = "torch-2.13.0.json"


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
    named_tuple_ops: FrozenSet[str]
    named_tuple_fields: FrozenSet[str]
    layer_parameters: FrozenSet[str]
    layer_namespaces: FrozenSet[str]
    layer_packages: Tuple[str, ...]  # every class under these is a layer (private bases too)
    layer_entry_methods: FrozenSet[str]
    method_owners: Tuple[str, ...]  # with a trailing dot, for str.startswith
    tensor_class: Dict[str, str]  # framework -> its tensor class
    layer_base: Dict[str, str]  # framework -> the base class of its layers
    namespace_bases: Tuple[Tuple[str, str], ...]  # (namespace, class every class of it inherits)
    #: Evidence that an untyped parameter is a tensor (see names.py, tensor_parameters).
    tensor_evidence_methods: FrozenSet[str] = frozenset()
    tensor_evidence_calls: FrozenSet[str] = frozenset()  # evidence only when called (x.size(0))
    tensor_input_parameters: FrozenSet[str] = frozenset()
    tensor_sequence_parameters: FrozenSet[str] = frozenset()
    layer_containers: FrozenSet[str] = frozenset()  # iterating or indexing one gives a layer
    #: Evidence when called with an integer (x.view(-1, 4)), and in-place methods that are none.
    tensor_evidence_size_calls: FrozenSet[str] = frozenset()
    inplace_evidence_exceptions: FrozenSet[str] = frozenset()
    #: methods of a torch layer no other object has: judged on a receiver msport cannot type
    layer_only_methods: FrozenSet[str] = frozenset()
    #: Base classes of libraries built on a framework -> that framework (their subclasses are layers).
    library_layer_bases: Dict[str, str] = field(default_factory=dict)
    tensor_passthrough_functions: FrozenSet[str] = frozenset()  # f(t, ...) is a tensor when t is one

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
    #: Qualified name -> kind of every public torch API (rules/snapshots/torch-*.json), for
    #: telling a real torch API with no rule (missing in MindSpore) from a name msport does not know.
    torch_apis: Dict[str, str] = field(default_factory=dict, repr=False)
    _by_mindspore: Dict[str, List[ApiRule]] = field(default_factory=dict, repr=False)
    _inferred: Dict[str, ApiRule] = field(default_factory=dict, repr=False)
    #: Dynamic-shape triggers and provenance vocabulary (rules/dynamic_shape.toml).
    triggers: TriggerRules = field(default_factory=TriggerRules, repr=False)
    #: API -> "one" when its first argument is a tensor, "many" when it is a list of tensors
    #: (from the real packages' signatures in rules/snapshots): what a call says of its argument.
    tensor_inputs: Dict[str, str] = field(default_factory=dict, repr=False)
    #: Members of MindSpore's Tensor, Parameter and Cell in the newest snapshot -> kind
    #: ("method", "property"): a PyTorch member a ported class still uses is judged against them.
    mindspore_members: Dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        # `torch.onnx.*`: a rule for every name under a namespace that has no rule of its own.
        self._namespaces = sorted(((name[:-1], rule) for name, rule in self.apis.items() if name.endswith(".*")),
                                  key=lambda item: -len(item[0]))
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

    def rule_for(self, qualified: str) -> Optional[ApiRule]:
        """The rule judging *qualified*: its own, its namespace's, or an inferred missing one."""
        rule = self.apis.get(qualified)
        if rule is not None:
            return rule
        public = default_search().public_name(qualified)
        if public is not None and public in self.apis:
            return self.apis[public]
        for prefix, namespace_rule in self._namespaces:
            if qualified.startswith(prefix):
                return namespace_rule
        return self._missing_rule(qualified)

    def verdict(self, qualified: str, version: Version, backend: str) -> Optional[Verdict]:
        rule = self.rule_for(qualified)
        if rule is None:
            return None
        for target in rule.targets:
            if target.applies(version, backend):
                if target.mindspore is None and (found := self._searched(qualified, version, backend, rule)) is not None:
                    return found
                return Verdict(
                    torch=qualified,
                    status=target.status or rule.status,
                    mindspore=target.mindspore,
                    note=target.note or "",
                    diff=target.diff or rule.diff,
                    consequence=target.consequence,
                    rule=rule,
                    renames=target.renames,
                )
        found = self._searched(qualified, version, backend, rule)
        if found is not None:
            return found
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

    @staticmethod
    def _searched(qualified: str, version: Version, backend: str, rule: ApiRule) -> Optional[Verdict]:
        """No rule maps *qualified* here, but msport's search of MindSpore found an API and ran
        it against torch (rules/searched.toml): equivalent or divergent as measured."""
        found = searched_counterpart(qualified, version, backend)
        if found is None:
            return None
        return Verdict(torch=qualified, status=found.verdict, mindspore=found.mindspore, note=searched_note(found),
                       diff=None, consequence=None, rule=rule)

    def code(self, code: str) -> CodeInfo:
        return self.codes[code]

    def is_torch_api(self, qualified: str) -> bool:
        """A public API of the torch release msport reads (not a module, not private)."""
        kind = self.torch_apis.get(qualified)
        return kind is not None and kind != "module" and not any(p.startswith("_") for p in qualified.split("."))

    def _target_of(self, qualified: str) -> Optional[str]:
        """The MindSpore API msport ports *qualified* to in the newest release on Ascend."""
        rule = self.apis.get(qualified)
        if rule is None:
            return None
        verdict = self.verdict(qualified, LAST_VERSION, "ascend")
        return verdict.mindspore if verdict and verdict.status != "missing" else None

    def _missing_rule(self, qualified: str) -> Optional[ApiRule]:
        """A real torch API with no rule: no official table lists it and MindSpore has no API of
        the same name and kind where rules/search.toml says to look, so it is missing; its note
        says what was searched and the way out (knowledge/search.py). Private torch names
        (`torch._foreach_add_`, `torch._C...`) are PyTorch internals: missing too."""
        rule = self._inferred.get(qualified)
        if rule is None:
            if self.is_torch_api(qualified):
                note = missing_note(qualified, self.torch_apis[qualified], self._target_of)
                origin = "inferred: in the torch snapshot, in no mapping table, no same-named MindSpore API of its kind"
            elif qualified.split(".", 1)[0] in ("torch", "torchvision", "torchaudio", "torchtext") and any(p.startswith("_") and not p.startswith("__") for p in qualified.split(".")):
                note, origin = internal_note(), "inferred: a private name under torch"
            else:
                return None
            rule = self._inferred[qualified] = ApiRule(
                torch=qualified, status="missing", note=note, basis="inferred",
                targets=(Target(None, FIRST_VERSION, LAST_VERSION, status="missing", note=note),), origin=origin,
            )
        return rule


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
        library_layer_bases={c: f for f, classes in data.get("library_layer_bases", {}).items() for c in classes},
        tensor_passthrough_functions=frozenset(data.get("tensor_passthrough_functions", ())),
        non_tensor_functions=frozenset(data["non_tensor_functions"]),
        non_tensor_methods=frozenset(data["non_tensor_methods"]),
        non_tensor_attributes=frozenset(data["non_tensor_attributes"]),
        named_tuple_ops=frozenset(data["named_tuple_ops"]),
        named_tuple_fields=frozenset(data["named_tuple_fields"]),
        layer_parameters=frozenset(data["layer_parameters"]),
        layer_namespaces=frozenset(data["layer_namespaces"]),
        layer_packages=tuple(data["layer_packages"]),
        layer_entry_methods=frozenset(data["layer_entry_methods"]),
        method_owners=tuple(owner + "." for owner in data["method_owners"]),
        tensor_class=dict(data["tensor_class"]),
        layer_base=dict(data["layer_base"]),
        namespace_bases=tuple(data["namespace_bases"].items()),
        tensor_evidence_methods=frozenset(data.get("tensor_evidence_methods", ())),
        tensor_evidence_calls=frozenset(data.get("tensor_evidence_calls", ())),
        tensor_input_parameters=frozenset(data.get("tensor_input_parameters", ())),
        tensor_sequence_parameters=frozenset(data.get("tensor_sequence_parameters", ())),
        layer_containers=frozenset(data.get("layer_containers", ())),
        tensor_evidence_size_calls=frozenset(data.get("tensor_evidence_size_calls", ())),
        inplace_evidence_exceptions=frozenset(data.get("inplace_evidence_exceptions", ())),
        layer_only_methods=frozenset(data.get("layer_only_methods", ())),
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
    bundled = sorted((directory / "api").glob("*.toml"))
    cache_key = cache.key(bundled)
    cached = cache.read(cache_key)
    for rule in cached or ():
        for name in (rule.torch, *rule.aliases):
            apis[name] = rule
    files = ([] if cached is not None else bundled) + list(extra_files)
    fresh: List[ApiRule] = []
    for path in files:
        try:
            rules = load_api_rules(path, problems)
        except RuleFileError as exc:
            problems.append(file_problem(str(path), exc))
            continue
        for rule in rules:
            if path not in extra_files:
                fresh.append(rule)
            for name in (rule.torch, *rule.aliases):
                if name in apis and path not in extra_files:
                    problems.append(RuleProblem(path.name, rule.origin.split(", ", 1)[-1], "torch", f"{name} is also defined in {apis[name].origin}"))
                apis[name] = rule
    if cached is None and not problems:
        cache.write(cache_key, fresh)
    tensors = _load_tensor_facts(directory / "tensors.toml")
    torch_apis, tensor_inputs, members = _load_snapshots(directory / "snapshots", tensors)
    return KnowledgeBase(codes=codes, apis=apis, tensors=tensors, problems=problems, torch_apis=torch_apis,
                         triggers=load_triggers(directory / TRIGGERS_FILE, problems, codes), tensor_inputs=tensor_inputs,
                         mindspore_members=members)


def extended(base: KnowledgeBase, rule_files: Sequence[Path]) -> KnowledgeBase:
    """*base* with the API rules of the user's *rule_files* (setting ``extend-rules``) laid over
    it: a rule there replaces msport's rule for the same torch API. A file or entry that cannot
    be used is skipped and listed in ``problems`` with the file's full path."""
    problems: List[RuleProblem] = []
    apis = dict(base.apis)
    for path in rule_files:
        try:
            rules = load_api_rules(path, problems, label=str(path))
        except RuleFileError as exc:
            problems.append(file_problem(str(path), exc))
            continue
        for rule in rules:
            for name in (rule.torch, *rule.aliases):
                apis[name] = rule
    return KnowledgeBase(codes=base.codes, apis=apis, tensors=base.tensors, problems=problems,
                         torch_apis=base.torch_apis, triggers=base.triggers, tensor_inputs=base.tensor_inputs,
                         mindspore_members=base.mindspore_members)


def _load_snapshots(directory: Path, tensors: TensorFacts) -> Tuple[Dict[str, str], Dict[str, str], Dict[str, str]]:
    """(kind of every public torch API, the APIs that take a tensor or a list of tensors first,
    the members of MindSpore's classes that instances have), from the snapshots of torch and of
    the newest MindSpore."""
    torch_apis: Dict[str, str] = {}
    inputs: Dict[str, str] = {}
    members: Dict[str, str] = {}
    newest = sorted(directory.glob("mindspore-*.json"), key=lambda p: tuple(int(x) for x in p.stem.split("-")[1].split(".") if x.isdigit()))
    for path in [directory / TORCH_SNAPSHOT] + newest[-1:]:
        if not path.is_file():
            continue
        entries = json.loads(path.read_text(encoding="utf-8"))["apis"]
        for name, (kind, params) in entries.items():
            if path.name == TORCH_SNAPSHOT:
                torch_apis[name] = kind
            elif kind in ("method", "property"):
                members[name] = kind
            if kind != "function" or not params:
                continue
            if params[0] in tensors.tensor_input_parameters:
                inputs[name] = "one"
            elif params[0] in tensors.tensor_sequence_parameters:
                inputs[name] = "many"
    return torch_apis, inputs, members


default_knowledge = load_once(load_knowledge)


def knowledge_for(rule_files: Sequence[str]) -> KnowledgeBase:
    """The bundled rules, extended with *rule_files* (setting ``extend-rules``) if any; the
    same object again until one of the files changes."""
    if not rule_files:
        return default_knowledge()
    return _extended_by(tuple((path, _stamp(path)) for path in rule_files))


@functools.lru_cache(maxsize=8)
def _extended_by(files: Tuple[Tuple[str, object], ...]) -> KnowledgeBase:
    return extended(default_knowledge(), [Path(path) for path, _ in files])


def _stamp(path: str) -> object:
    try:
        stat = os.stat(path)
    except OSError:
        return None  # reported by the loader, naming the file
    return (stat.st_mtime_ns, stat.st_size)
