"""Graph-mode compliance rules (rules/graph_mode.toml) and the package snapshots they read.

The MS4xx check family holds only the matcher kinds (an AST node in compiled code, a call of a
built-in, a method, a `with`, a branch...); which nodes, names, modules and texts belong to each
rule is data, read and validated here. The lists the package keeps about itself (which bare
method statements keep their effect, which views behave differently, which jit levels compile,
what is deprecated since when) come from rules/snapshots/graph-mode-<version>.toml, written by
tools/snapshot_graph_mode.py from the installed releases.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Tuple

from .loader import RuleFileError, RuleProblem, file_problem, parse_versions, read_toml, rules_dir
from .messages import DEFAULT_LANGUAGE
from .model import Version
from .rule_texts import RuleText, in_language, read_text, read_texts, with_translations
from .shared import load_once

FILE_NAME = "graph_mode.toml"
SNAPSHOT_GLOB = "graph-mode-*.toml"

KINDS = (
    "syntax", "builtin", "with", "classmethod", "method", "conditional-attribute", "self-container", "global-write", "statement-method",
    "third-party", "frozen", "branch-join", "data-branch", "hook", "view-inplace", "identity", "jit-setting",
    "tensor-attribute", "new-attribute", "attribute-handoff", "host-value", "first-call-guard", "host-size",
    "host-output", "layer-attribute", "global-container", "loop-carried", "condition-join",
)
OUTCOMES = ("fails", "differs", "costs", "deprecated", "break", "ok")
#: Nodes of the `syntax` kind that are not AST classes of their own.
PSEUDO_NODES = ("ForElse", "WhileElse", "MultiGenerator", "ComplexConstant")
BUILTIN_WHEN = ("always", "cell-list", "tensor-number", "not-one-string")
#: When a host-output call (logging, warnings, a stream write) in compiled code is reported:
#: always, when its arguments carry no tensor data, or when it sits in a branch on tensor data.
OUTPUT_WHEN = ("always", "constant-args", "data-branch")
RECEIVERS = ("any", "self-or-layer")
CONTAINERS = ("any", "list", "dict")
#: What a statement-method rule asks of the call's argument: anything, or a generator expression
#: that reads the container it extends (`y.extend(m(y[-1]) for m in ms)`).
ARGUMENTS = ("any", "generator-reading-itself")
PLACEHOLDERS = frozenset({"construct", "where", "name", "function", "api", "value", "error", "since", "version"})
CONTEXT_KEYS = ("graph", "jit", "unseen", "torch", "bytecode", "fullgraph", "message", "this_code", "lengths")
#: [context] texts that frame other texts, so fill in placeholders of their own.
_FRAMES = ("message", "lengths")
JOIN_KEYS = tuple(f"{where}_{why}" for where in ("name", "return", "expression") for why in ("tensor_number", "tensor_tuple", "tuple_length")) + ("name_list_growth",)
SETTING_KEYS = ("deprecated", "not_sinking")
FIX_KEYS = ("move_import", "move_import_unsafe", "delete", "set_to_tuple", "reversed", "classmethod_to_static", "set_data", "sort", "extend_loop",
            "loop_carried")
SETTING_VERSIONS = ("o2_sinking", "o2_deprecated")

_RULE_TEXTS = ("found", "effect", "instead")
_COMMON = ("id", "code", "kind", "outcome", "bytecode", "fullgraph", "error", *with_translations(_RULE_TEXTS))
_FIELDS_BY_KIND = {
    "syntax": ("nodes",),
    "builtin": ("names", "when", "apis"),
    "with": ("apis",),
    "method": ("methods", "receiver"),
    "self-container": ("methods",),
    "conditional-attribute": ("methods",),
    "statement-method": ("methods", "container", "argument"),
    "third-party": ("modules", "methods"),
    "frozen": ("modules", "exempt"),
    "hook": ("methods",),
    "view-inplace": ("apis",),
    "jit-setting": ("apis", "keyword", "value", "since"),
    "tensor-attribute": ("methods", "apis"),
    "new-attribute": ("methods",),
    "host-value": ("methods", "names"),
    "host-size": ("methods", "names"),
    "host-output": ("apis", "methods", "when"),
    "global-container": ("methods",),
}
#: Lists a kind may leave out (a builtin rule names container classes only for cell-list).
_OPTIONAL_LISTS = {"builtin": ("apis",), "frozen": ("exempt",), "host-output": ("methods",)}
_PLACEHOLDER = re.compile(r"\{(\w*)\}")


@dataclass(frozen=True)
class GraphRule:
    """One construct that compiling changes, with what happens in each capture mode."""

    id: str
    code: str
    kind: str
    outcome: str  # ast capture (the default)
    bytecode: str
    fullgraph: str
    found: str
    effect: str
    instead: str
    error: str = ""
    nodes: Tuple[str, ...] = ()
    names: Tuple[str, ...] = ()
    when: str = "always"
    apis: Tuple[str, ...] = ()
    methods: Tuple[str, ...] = ()
    modules: Tuple[str, ...] = ()
    receiver: str = "any"
    container: str = "any"
    argument: str = "any"  # statement-method: what the call's argument must be (ARGUMENTS)
    keyword: str = ""
    value: str = ""
    since: Optional[Version] = None
    exempt: Tuple[str, ...] = ()  # frozen / third-party: qualified names that do not count

    def outcome_for(self, capture: str) -> str:
        return {"ast": self.outcome, "bytecode": self.bytecode, "fullgraph": self.fullgraph}[capture]


@dataclass(frozen=True)
class PackageSnapshot:
    """What one installed mindspore release says about its graph compiler."""

    version: Version
    release: str = ""  # "2.10.0"
    statement_methods: FrozenSet[str] = frozenset()
    unsupported_builtin_types: FrozenSet[str] = frozenset()
    converted_builtins: FrozenSet[str] = frozenset()
    view_inconsistent_apis: FrozenSet[str] = frozenset()
    jit_levels: Tuple[str, ...] = ()
    #: (api, parameter, value, since)
    deprecated: Tuple[Tuple[str, str, str, Version], ...] = ()


@dataclass(frozen=True)
class GraphModeRules:
    rules: Tuple[GraphRule, ...] = ()
    context: Tuple[Tuple[str, RuleText], ...] = ()
    join: Tuple[Tuple[str, RuleText], ...] = ()
    setting: Tuple[Tuple[str, str], ...] = ()  # its texts are RuleTexts, its versions strings
    fixes: Tuple[Tuple[str, RuleText], ...] = ()  # the quick fixes' titles
    #: parameter-name patterns of setup code (weight conversion, factories): see [unseen]
    setup_parameters: Tuple[str, ...] = ()
    setup_calls: Tuple[str, ...] = ()
    bool_functions: Tuple[str, ...] = ()
    size_names: Tuple[str, ...] = ()  # names holding a size or a count (glob patterns): see [values]
    size_calls: Tuple[str, ...] = ()  # calls taking sizes (glob patterns): see [values]
    host_functions: Tuple[str, ...] = ()  # host-side code by its name (glob patterns): see [unseen]
    host_classes: Tuple[str, ...] = ()  # words of host-side class names: see [unseen]
    host_layers: Tuple[str, ...] = ()  # multi-device wrapper layers, run in Python: see [unseen]
    loss_classes: Tuple[str, ...] = ()  # words of plain classes judged like model code: see [unseen]
    metadata: Tuple[str, ...] = ()  # a tensor's metadata attributes and methods (glob patterns): see [values]
    loggers: Tuple[str, ...] = ()  # names of logger objects (glob patterns): see [values]
    root_layers: Tuple[str, ...] = ()  # the frameworks' root layer classes: see [values]
    snapshots: Tuple[PackageSnapshot, ...] = ()  # oldest first
    problems: Tuple[RuleProblem, ...] = ()
    _by_kind: Dict[str, Tuple[GraphRule, ...]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for kind in KINDS:
            self._by_kind[kind] = tuple(r for r in self.rules if r.kind == kind)

    def of_kind(self, kind: str) -> Tuple[GraphRule, ...]:
        return self._by_kind.get(kind, ())

    def context_text(self, key: str, language: str = DEFAULT_LANGUAGE) -> str:
        return in_language(dict(self.context).get(key), language)

    def matches(self, patterns: str, name: str) -> bool:
        """Whether *name* matches one of the glob patterns of the list *patterns* (cached)."""
        cache = self.__dict__.setdefault("_matches", {})
        key = (patterns, name)
        if key not in cache:
            cache[key] = any(fnmatch.fnmatchcase(name, p) for p in getattr(self, patterns))
        return cache[key]

    def join_text(self, key: str, language: str = DEFAULT_LANGUAGE) -> str:
        return in_language(dict(self.join).get(key), language)

    def fix_title(self, key: str, language: str = DEFAULT_LANGUAGE, **values: str) -> str:
        return in_language(dict(self.fixes)[key], language).format(**values)

    def setting_text(self, key: str, language: str = DEFAULT_LANGUAGE) -> str:
        return in_language(dict(self.setting).get(key), language)

    def snapshot(self, version: Version) -> Optional[PackageSnapshot]:
        """The snapshot of the newest release not after *version* (else the oldest one)."""
        chosen = None
        for snap in self.snapshots:
            if snap.version <= version or chosen is None:
                chosen = snap
        return chosen

    @property
    def view_apis(self) -> FrozenSet[str]:
        """Views whose in-place updates differ: the rule's list and every snapshot's marker."""
        cached = self.__dict__.get("_view_apis")
        if cached is None:
            cached = frozenset(a for r in self.of_kind("view-inplace") for a in r.apis)
            cached |= frozenset(a for s in self.snapshots for a in s.view_inconsistent_apis)
            object.__setattr__(self, "_view_apis", cached)
        return cached

    def o2_meaning(self, version: Version) -> str:
        """What jit_level O2 selects in *version*: "none" (not sinking), "sinking", or
        "deprecated" (sinking, deprecated)."""
        first, last = parse_versions(self.setting_text("o2_sinking"))
        if not first <= version <= last:
            return "none"
        return "deprecated" if version >= parse_versions(self.setting_text("o2_deprecated"))[0] else "sinking"


def load_graph_mode(directory: Optional[Path] = None) -> GraphModeRules:
    directory = directory or rules_dir()
    problems: List[RuleProblem] = []
    try:
        data = read_toml(directory / FILE_NAME)
    except RuleFileError as exc:
        return GraphModeRules(problems=(file_problem(FILE_NAME, exc),))
    rules: List[GraphRule] = []
    seen: Dict[str, str] = {}
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        problems.append(RuleProblem(FILE_NAME, "[[rule]]", "", "expected an array of tables"))
        tables = []
    for index, table in enumerate(tables):
        label = f"rule #{index + 1} ({table.get('id', '?') if isinstance(table, dict) else '?'})"
        rule = _rule(table, label, problems)
        if rule is None:
            continue
        if rule.id in seen:
            problems.append(RuleProblem(FILE_NAME, label, "id", f"duplicate id {rule.id!r} (also {seen[rule.id]})"))
            continue
        seen[rule.id] = label
        rules.append(rule)
    context = _texts(data.get("context"), "[context]", CONTEXT_KEYS, problems)
    join = _texts(data.get("join"), "[join]", JOIN_KEYS, problems)
    setting = _texts(data.get("setting"), "[setting]", SETTING_KEYS, problems, others=SETTING_VERSIONS)
    fixes = tuple(read_texts(data.get("fixes", {}), FILE_NAME, "[fixes]", FIX_KEYS, problems).items())
    for key in SETTING_VERSIONS:
        value = (data.get("setting") or {}).get(key, "") if isinstance(data.get("setting"), Mapping) else ""
        try:
            parse_versions(str(value))
        except ValueError as exc:
            problems.append(RuleProblem(FILE_NAME, "[setting]", key, str(exc)))
            continue
        setting += ((key, value),)
    patterns = {}
    for table, key in (("unseen", "setup_parameters"), ("unseen", "setup_calls"), ("unseen", "host_functions"), ("unseen", "host_classes"), ("unseen", "host_layers"), ("unseen", "loss_classes"), ("values", "bool_functions"), ("values", "size_names"),
                       ("values", "metadata"), ("values", "size_calls"), ("values", "loggers"), ("values", "root_layers")):
        section = data.get(table, {})
        value = section.get(key) if isinstance(section, Mapping) else None
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            problems.append(RuleProblem(FILE_NAME, f"[{table}]", key, f"is required: a list of glob patterns, got {value!r}"))
            value = []
        patterns[key] = tuple(value)
    snapshots = tuple(sorted((s for s in (_snapshot(p, problems) for p in sorted((directory / "snapshots").glob(SNAPSHOT_GLOB))) if s),
                             key=lambda s: s.version))
    return GraphModeRules(tuple(rules), context, join, setting, fixes, snapshots=snapshots, problems=tuple(problems), **patterns)


def _rule(table: Any, label: str, problems: List[RuleProblem]) -> Optional[GraphRule]:
    def problem(name: str, message: str) -> None:
        problems.append(RuleProblem(FILE_NAME, label, name, message))

    if not isinstance(table, dict):
        problem("", "expected a table")
        return None
    before = len(problems)
    kind = table.get("kind")
    if kind not in KINDS:
        problem("kind", f"expected one of {', '.join(KINDS)}, got {kind!r}")
        return None
    allowed = set(_COMMON) | set(_FIELDS_BY_KIND.get(kind, ()))
    for key in table:
        if key not in allowed:
            problem(key, f"unknown field for a {kind} rule; expected one of {', '.join(sorted(allowed))}")
    texts = {}
    for name in ("id", "code"):
        value = table.get(name)
        if not isinstance(value, str) or not value.strip():
            problem(name, f"is required: a non-empty string, got {value!r}")
        else:
            texts[name] = value
    for name in _RULE_TEXTS:
        text = read_text(table, name, FILE_NAME, label, problems, required=True)
        if text is not None:
            texts[name] = text
    error = table.get("error", "")
    if not isinstance(error, str):
        problem("error", f"expected a string, got {error!r}")
        error = ""
    code = texts.get("code", "")
    if code and not re.fullmatch(r"MS4\d\d", code):
        problem("code", f"expected an MS4xx code, got {code!r}")
    outcomes = {}
    for name in ("outcome", "bytecode", "fullgraph"):
        value = table.get(name)
        if value not in OUTCOMES:
            problem(name, f"expected one of {', '.join(OUTCOMES)}, got {value!r}")
        outcomes[name] = value
    for name in ("found", "effect", "instead"):
        unknown = set(_PLACEHOLDER.findall(texts.get(name, ""))) - PLACEHOLDERS
        if unknown:
            problem(name, f"unknown placeholder(s) {', '.join('{' + u + '}' for u in sorted(unknown))}; known: {', '.join(sorted(PLACEHOLDERS))}")
    lists = {}
    for name in ("nodes", "names", "apis", "methods", "modules", "exempt"):
        if name in _FIELDS_BY_KIND.get(kind, ()) and (name not in _OPTIONAL_LISTS.get(kind, ()) or name in table):
            value = table.get(name, [])
            if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
                problem(name, f"expected a non-empty list of strings, got {value!r}")
                value = []
            lists[name] = tuple(value)
    if kind == "syntax":
        import ast

        for node in lists.get("nodes", ()):
            if node not in PSEUDO_NODES and not isinstance(getattr(ast, node, None), type):
                problem("nodes", f"{node!r} is neither an ast node class nor one of {', '.join(PSEUDO_NODES)}")
    choices = {"when": OUTPUT_WHEN if kind == "host-output" else BUILTIN_WHEN, "receiver": RECEIVERS, "container": CONTAINERS, "argument": ARGUMENTS}
    picked = {}
    for name, allowed_values in choices.items():
        if name in _FIELDS_BY_KIND.get(kind, ()):
            value = table.get(name, allowed_values[0])
            if value not in allowed_values:
                problem(name, f"expected one of {', '.join(allowed_values)}, got {value!r}")
            picked[name] = value
    since = None
    if kind == "jit-setting":
        for name in ("keyword", "value"):
            if not isinstance(table.get(name), str) or not table.get(name):
                problem(name, "is required for a jit-setting rule")
        try:
            since = parse_versions(str(table.get("since", "")))[0]
        except ValueError as exc:
            problem("since", str(exc))
    if len(problems) != before:
        return None
    return GraphRule(
        id=texts["id"], code=code, kind=kind, outcome=outcomes["outcome"], bytecode=outcomes["bytecode"],
        fullgraph=outcomes["fullgraph"], found=texts["found"], effect=texts["effect"], instead=texts["instead"],
        error=error, nodes=lists.get("nodes", ()), names=lists.get("names", ()), apis=lists.get("apis", ()),
        methods=lists.get("methods", ()), modules=lists.get("modules", ()), when=picked.get("when", "always"),
        receiver=picked.get("receiver", "any"), container=picked.get("container", "any"),
        argument=picked.get("argument", "any"), keyword=table.get("keyword", ""), value=table.get("value", ""), since=since, exempt=lists.get("exempt", ()),
    )


def _texts(table: Any, label: str, keys: Tuple[str, ...], problems: List[RuleProblem], others: Tuple[str, ...] = ()) -> Tuple[Tuple[str, RuleText], ...]:
    """A table of texts, each with its translations; the rules' placeholders only (but in the
    finding's frame, [context] message)."""
    texts = read_texts(table if table is not None else {}, FILE_NAME, label, keys, problems, others=others)
    for key, text in texts.items():
        unknown = set(_PLACEHOLDER.findall(text)) - PLACEHOLDERS
        if unknown and key not in _FRAMES:
            problems.append(RuleProblem(FILE_NAME, label, key, f"unknown placeholder(s) {', '.join(sorted(unknown))}"))
    return tuple(texts.items())


def _snapshot(path: Path, problems: List[RuleProblem]) -> Optional[PackageSnapshot]:
    name = f"snapshots/{path.name}"
    try:
        data = read_toml(path)
    except RuleFileError as exc:
        problems.append(file_problem(name, exc))
        return None
    try:
        version = tuple(int(p) for p in str(data.get("version", "")).split(".")[:2])
        if len(version) != 2:
            raise ValueError
    except ValueError:
        problems.append(RuleProblem(name, "", "version", f"expected a release like \"2.10.0\", got {data.get('version')!r}"))
        return None
    lists = {}
    for key in ("statement_methods", "unsupported_builtin_types", "converted_builtins", "view_inconsistent_apis", "jit_levels"):
        value = data.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problems.append(RuleProblem(name, "", key, f"expected a list of strings, got {value!r}"))
            value = []
        lists[key] = value
    deprecated = []
    for index, entry in enumerate(data.get("deprecated", [])):
        try:
            since = tuple(int(p) for p in str(entry["since"]).split(".")[:2])
            deprecated.append((entry["api"], entry["parameter"], entry["value"], since))
        except (KeyError, TypeError, ValueError):
            problems.append(RuleProblem(name, f"deprecated #{index + 1}", "", "expected api, parameter, value and since"))
    return PackageSnapshot(
        version=version, release=str(data.get("version")), statement_methods=frozenset(lists["statement_methods"]),
        unsupported_builtin_types=frozenset(lists["unsupported_builtin_types"]),
        converted_builtins=frozenset(lists["converted_builtins"]),
        view_inconsistent_apis=frozenset(lists["view_inconsistent_apis"]), jit_levels=tuple(lists["jit_levels"]),
        deprecated=tuple(deprecated),
    )


default_graph_mode = load_once(load_graph_mode)
