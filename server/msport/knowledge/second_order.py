"""Second-order gradients (rules/second_order.toml): how msport recognises a program that
differentiates twice, its messages, and the support table measured on the real packages.

Loaded once and validated like every rule file: each problem names the file, the entry and the
field, and a bad entry is skipped without hiding the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Pattern, Tuple

from .loader import RuleFileError, RuleProblem, _Entry, entries, file_problem, parse_versions, rules_dir, toml_parser
from .model import Version
from .cache import toml_document
from .messages import DEFAULT_LANGUAGE
from .rule_texts import in_language, read_text, read_texts, with_translations
from .shared import load_once

FILE_NAME = "second_order.toml"
_parse = toml_parser(FILE_NAME)
#: The line above which the file is hand-written and below which the probe writes the table.
MARKER = "# ---- MEASURED: written by tools/probe_second_order.py below this line; do not edit ----"
MODES = ("pynative", "inner_jit", "graph")
STATUSES = ("ok", "zero", "wrong", "no-bprop", "no-kernel", "crash", "n/a")
BPROP = ("missing", "present", "unknown")
MESSAGES = ("no_bprop", "crash", "silent", "site", "site_unfollowed", "pynative_nested", "conditional", "other_version", "related",
            "in_function", "measured_on", "measured_in", "mode_separator", "mode_pynative", "mode_inner_jit", "mode_graph",
            "site_working", "working_item", "unknown_primitive", "unknown_error", "zeros", "wrong_values", "zeros_or_wrong", "label_MS501",
            "label_MS502", "label_MS503", "followed_default", "followed_more", "problems_found", "problems_none",
            "candidate", "candidate_many", "assumed_mode")
WORKAROUNDS = ("no_bprop", "crash", "silent", "jit_fix")
_MEASURED_FIELDS = (
    "mindspore", "torch", "version", "input", "torch_setup", "mindspore_setup", "torch_call", "mindspore_call", "bprop",
    "grad_primitive", "unprobed", *MODES, *(f"{m}_detail" for m in MODES),
)
_DETECT_FIELDS = ("pattern", "create_graph", "transforms", "second_order_transforms", "create_graph_transforms",
                  "transform_classes", "derivatives", "transparent", "containers", "wrappers", "jit",
                  "registries")


@dataclass(frozen=True)
class Support:
    """How one MindSpore API behaves when differentiated twice, measured on one version."""

    mindspore: str
    torch: Tuple[str, ...]
    version: Version
    bprop: str = "unknown"  # missing | present | unknown
    grad_primitive: Optional[str] = None
    statuses: Tuple[Tuple[str, str], ...] = ()  # (mode, status)
    details: Tuple[Tuple[str, str], ...] = ()  # (mode, first line of the error or difference)
    #: The measured case, reproducible with tools/second_order_harness.py.
    case: Tuple[Tuple[str, str], ...] = ()
    unprobed: Optional[str] = None

    def status(self, mode: str) -> Optional[str]:
        return dict(self.statuses).get(mode)

    def detail(self, mode: str) -> str:
        return dict(self.details).get(mode, "")


@dataclass(frozen=True)
class Shape:
    """A call shape whose second derivative differs from what the table's single measured form
    says (cat of two computed tensors, cross-entropy with class indices): matched on the call as
    written, measured on the real packages like a table entry (its ``support``)."""

    torch: Tuple[str, ...]  # the APIs as written (torch or MindSpore) the shape applies to
    when: str  # always | argument | operands (see SHAPE_WHEN)
    support: Support
    argument: Tuple[str, ...] = ()  # keyword names of the argument (when = "argument")
    position: Optional[int] = None  # its position, the receiver of a method not counted
    values: Tuple[str, ...] = ()  # its source texts that make the shape


#: always: every call (the table's form is not what code writes); argument: an argument written
#: as one of `values`; operands: a sequence of tensors (cat, stack) of which two or more are
#: computed, not literals (concatenating with a constant is measured right, two computed parts not).
SHAPE_WHEN = ("always", "argument", "operands")


@dataclass(frozen=True)
class CreateGraphCall:
    api: str
    outputs: int  # position of the differentiated outputs (-1: the method's receiver)
    inputs: Optional[int]  # position of the inputs the gradient is taken with respect to
    position: int  # position of create_graph when passed positionally
    untyped: bool = False  # a method matched by its name on a receiver of unknown type
    #: differentiates its outputs twice by itself (a Hessian-vector product of a loss): no flag
    always: bool = False
    #: also matched, with a create_graph argument, when written `<receiver>.<method>(...)` but
    #: the receiver's root is bound where msport cannot follow (torch re-exported by a
    #: project's backend switch: `from ..backend import torch`)
    receiver: Optional[str] = None


@dataclass(frozen=True)
class Wrapper:
    """A meta-learning wrapper: `method(loss)` on it (or its clones) differentiates loss twice."""

    classes: Tuple[str, ...]
    method: str
    loss: int  # position of the loss in the method call
    model: int  # position of the wrapped model in the constructor
    first_order: str  # the constructor keyword that makes it first-order when true

    @property
    def package(self) -> str:
        return self.classes[0].split(".", 1)[0]


@dataclass(frozen=True)
class Replacement:
    grad_primitives: Tuple[str, ...]
    text: str
    torch: str
    mindspore: str
    input: str = "x"


@dataclass(frozen=True)
class SecondOrderRules:
    #: What a chunk must contain to hold a gradient call msport looks at (a compiled regex).
    pattern: Optional[Pattern[str]] = None
    create_graph: Tuple[CreateGraphCall, ...] = ()
    transforms: FrozenSet[str] = frozenset()
    second_order_transforms: FrozenSet[str] = frozenset()
    create_graph_transforms: FrozenSet[str] = frozenset()
    transform_classes: FrozenSet[str] = frozenset()
    derivatives: Tuple[Tuple[str, int], ...] = ()  # (api, the order from which it is second order)
    transparent: FrozenSet[str] = frozenset()
    containers: FrozenSet[str] = frozenset()
    wrappers: Tuple[Wrapper, ...] = ()
    #: Method names that register a class in a registry, that build from one, and functions
    #: taking a registry as an argument to build from it (build_from_cfg(cfg, MODELS)).
    register_methods: FrozenSet[str] = frozenset()
    build_methods: FrozenSet[str] = frozenset()
    build_functions: FrozenSet[str] = frozenset()
    #: A registry that can build more classes than this: each is so unlikely to be the one the
    #: configuration names that its path findings are hints, not one severity lower (0: no limit).
    registry_many: int = 0
    jit: str = ""  # what compiles a function as a static graph
    messages: Tuple[Tuple[str, str], ...] = ()
    workarounds: Tuple[Tuple[str, str], ...] = ()
    replacements: Tuple[Replacement, ...] = ()
    shapes: Tuple[Shape, ...] = ()
    head_problems: Tuple[RuleProblem, ...] = ()
    #: Reads the measured table (hundreds of entries): called on first use, so that start-up
    #: and files without a second derivative never pay for it.
    table_source: Optional[Callable[[], Tuple[Tuple["Support", ...], Tuple[RuleProblem, ...]]]] = field(
        default=None, compare=False, repr=False)

    def _table(self) -> Tuple[Tuple["Support", ...], Tuple[RuleProblem, ...], Dict[str, Tuple["Support", ...]]]:
        loaded = self.__dict__.get("_loaded")
        if loaded is None:
            measured, problems = self.table_source() if self.table_source is not None else ((), ())
            grouped: Dict[str, List[Support]] = {}
            for support in measured:
                grouped.setdefault(support.mindspore, []).append(support)
            index = {name: tuple(sorted(found, key=lambda s: s.version)) for name, found in grouped.items()}
            loaded = (measured, problems, index)
            object.__setattr__(self, "_loaded", loaded)
        return loaded

    @property
    def measured(self) -> Tuple["Support", ...]:
        return self._table()[0]

    @property
    def problems(self) -> Tuple[RuleProblem, ...]:
        return self.head_problems + self._table()[1]

    def create_graph_call(self, api: str) -> Optional[CreateGraphCall]:
        return next((c for c in self.create_graph if c.api == api), None)

    def untyped_create_graph_call(self, method: str, receiver: Optional[str] = None) -> Optional[CreateGraphCall]:
        """The create_graph method named *method*, matched whatever its receiver (or on the
        receiver the entry spells, *receiver* as written: `torch.autograd` whatever `torch` is)."""
        return next((c for c in self.create_graph if c.api.rpartition(".")[2] == method
                     and (c.untyped or (c.receiver is not None and c.receiver == receiver))), None)

    def derivative_order(self, api: str) -> Optional[int]:
        return dict(self.derivatives).get(api)

    def message(self, key: str, language: str = DEFAULT_LANGUAGE) -> str:
        return in_language(dict(self.messages)[key], language)

    def workaround(self, key: str, language: str = DEFAULT_LANGUAGE) -> str:
        return in_language(dict(self.workarounds)[key], language)

    def support(self, mindspore: str, version: Version) -> Optional[Support]:
        """The measurement of *mindspore* on *version*, else on the nearest version measured
        (the newest below it, or the oldest above it); None when never measured."""
        supports = [s for s in self._table()[2].get(mindspore, ()) if s.unprobed is None]
        if not supports:
            return None
        below = [s for s in supports if s.version <= version]
        return below[-1] if below else supports[0]

    def counterparts(self, api: str, version: Version) -> Tuple["Support", ...]:
        """The measurements on (or nearest) *version* of every MindSpore API measured as a
        counterpart of the torch API *api* (torch.nn.Conv2d: mint.nn.Conv2d and nn.Conv2d)."""
        by_torch = self.__dict__.get("_by_torch")
        if by_torch is None:  # built once: the check asks per API on a path
            by_torch = {}
            for support in self.measured:
                if support.unprobed is None:
                    for name in support.torch:
                        by_torch.setdefault(name, {})[support.mindspore] = None
            object.__setattr__(self, "_by_torch", by_torch)
        names = by_torch.get(api, {})
        return tuple(found for found in (self.support(name, version) for name in names) if found is not None)

    def shapes_of(self, api: str, version: Version) -> Tuple[Shape, ...]:
        """The call shapes measured for *api* (as written) on *version*, else the nearest version."""
        mine = [s for s in self.shapes if api in s.torch]
        if not mine:
            return ()
        below = [s.support.version for s in mine if s.support.version <= version]
        nearest = max(below) if below else min(s.support.version for s in mine)
        return tuple(s for s in mine if s.support.version == nearest)

    def replacement_for(self, primitive: Optional[str]) -> Optional[Replacement]:
        if not primitive:
            return None
        return next((r for r in self.replacements if primitive in r.grad_primitives), None)


def load_second_order(directory: Optional[Path] = None) -> SecondOrderRules:
    path = (directory or rules_dir()) / FILE_NAME
    if not path.is_file():
        return SecondOrderRules()
    problems: List[RuleProblem] = []
    try:
        text = path.read_text(encoding="utf-8")
        head, _, tail = text.partition(MARKER)
        data = _parse(head)
    except (OSError, RuleFileError) as exc:
        return SecondOrderRules(head_problems=(file_problem(FILE_NAME, exc),))
    detect = _Entry(data.get("detect", {}), FILE_NAME, "[detect]", problems)
    detect.unknown_fields(_DETECT_FIELDS)
    messages = tuple(read_texts(data.get("messages", {}), FILE_NAME, "[messages]", MESSAGES, problems).items())
    workarounds = tuple(read_texts(data.get("workaround", {}), FILE_NAME, "[workaround]", WORKAROUNDS, problems).items())

    def table() -> Tuple[Tuple[Support, ...], Tuple[RuleProblem, ...]]:
        found: List[RuleProblem] = []
        try:
            measured = toml_document(path.stem, tail, _parse).get("measured", [])
        except RuleFileError as exc:
            return (), (file_problem(FILE_NAME, exc),)
        return tuple(_measured(measured, found)), tuple(found)

    return SecondOrderRules(
        pattern=_pattern(detect),
        create_graph=_create_graph(detect, problems),
        transforms=frozenset(detect.strings("transforms")),
        second_order_transforms=frozenset(detect.strings("second_order_transforms")),
        create_graph_transforms=frozenset(detect.strings("create_graph_transforms")),
        transform_classes=frozenset(detect.strings("transform_classes")),
        derivatives=_derivatives(detect),
        transparent=frozenset(detect.strings("transparent")),
        containers=frozenset(detect.strings("containers")),
        wrappers=_wrappers(detect),
        **_registries(detect),
        jit=detect.text("jit", required=True) or "",
        messages=messages,
        workarounds=workarounds,
        replacements=tuple(_replacements(data.get("replacement", []), problems)),
        shapes=tuple(_shapes(data.get("shape", []), problems)),
        head_problems=tuple(problems),
        table_source=table,
    )


def _pattern(detect: _Entry) -> Optional[Pattern[str]]:
    text = detect.text("pattern", required=True)
    if text is None:
        return None
    try:
        return re.compile(text)
    except re.error as exc:
        detect.problem("pattern", f"not a regular expression: {exc}")
        return None


def _create_graph(detect: _Entry, problems: List[RuleProblem]) -> Tuple[CreateGraphCall, ...]:
    calls = []
    for index, item in enumerate(detect.table.get("create_graph", [])):
        if not isinstance(item, dict) or not isinstance(item.get("api"), str) or not isinstance(item.get("outputs"), int) \
                or not isinstance(item.get("position", -1 if item.get("always") is True else None), int) \
                or not isinstance(item.get("inputs", 0), int) \
                or not isinstance(item.get("untyped", False), bool) or not isinstance(item.get("always", False), bool) \
                or not isinstance(item.get("receiver", ""), str):
            detect.problem(f"create_graph[{index}]", f"expected {{ api = ..., outputs = N, position = N [, inputs = N, untyped = true, "
                                                     f"receiver = \"name\"] }} "
                                                     f"or {{ api = ..., outputs = N, always = true }}, got {item!r}")
            continue
        calls.append(CreateGraphCall(item["api"], item["outputs"], item.get("inputs"), item.get("position", -1), item.get("untyped", False),
                                     item.get("always", False), item.get("receiver")))
    return tuple(calls)


def _derivatives(detect: _Entry) -> Tuple[Tuple[str, int], ...]:
    found = []
    for index, item in enumerate(detect.table.get("derivatives", [])):
        if not isinstance(item, dict) or not isinstance(item.get("api"), str) or not isinstance(item.get("order"), int):
            detect.problem(f"derivatives[{index}]", f"expected {{ api = ..., order = N }}, got {item!r}")
            continue
        found.append((item["api"], item["order"]))
    return tuple(found)


def _registries(detect: _Entry) -> Dict[str, Any]:
    table = detect.table.get("registries", {})
    found: Dict[str, Any] = {}
    for key, field_name in (("register", "register_methods"), ("build", "build_methods"), ("build_functions", "build_functions")):
        names = table.get(key, []) if isinstance(table, dict) else None
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            detect.problem(f"registries.{key}", f"expected a list of names, got {names!r}")
            names = []
        found[field_name] = frozenset(names)
    many = table.get("many", 0) if isinstance(table, dict) else 0
    if not isinstance(many, int) or isinstance(many, bool) or many < 0:
        detect.problem("registries.many", f"expected a count of classes, got {many!r}")
        many = 0
    found["registry_many"] = many
    return found


def _wrappers(detect: _Entry) -> Tuple[Wrapper, ...]:
    found = []
    for index, item in enumerate(detect.table.get("wrappers", [])):
        ok = isinstance(item, dict) and isinstance(item.get("classes"), list) and all(isinstance(c, str) for c in item["classes"]) \
            and item["classes"] and isinstance(item.get("method"), str) and isinstance(item.get("first_order"), str) \
            and isinstance(item.get("loss"), int) and isinstance(item.get("model"), int)
        if not ok:
            detect.problem(f"wrappers[{index}]", f"expected {{ classes = [...], method = ..., loss = N, model = N, first_order = ... }}, got {item!r}")
            continue
        found.append(Wrapper(tuple(item["classes"]), item["method"], item["loss"], item["model"], item["first_order"]))
    return tuple(found)


def _replacements(tables: Any, problems: List[RuleProblem]) -> List[Replacement]:
    found = []
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, "replacement", "text", problems):
        entry.unknown_fields(("grad_primitives", *with_translations(("text",)), "torch", "mindspore", "input"))
        primitives = entry.strings("grad_primitives")
        values = [read_text(entry.table, "text", entry.file, entry.entry, problems, required=True),
                  *(entry.text(k, required=True) for k in ("torch", "mindspore"))]
        if primitives and all(values):
            found.append(Replacement(primitives, *values, input=entry.text("input") or "x"))
    return found


def _shapes(tables: Any, problems: List[RuleProblem]) -> List[Shape]:
    found = []
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, "shape", "mindspore", problems):
        before = len(problems)
        entry.unknown_fields(("when", "argument", "position", "values", *_MEASURED_FIELDS))
        when = entry.text("when", required=True, choices=SHAPE_WHEN)
        argument, values = entry.strings("argument"), entry.strings("values")
        position = entry.table.get("position")
        if when == "argument" and (not argument or not values):
            entry.problem("argument", "a shape matched on an argument needs `argument` and `values`")
        if position is not None and not isinstance(position, int):
            entry.problem("position", "must be an integer")
        if entry.table.get("unprobed") is not None:
            entry.problem("unprobed", "a call shape is only written once measured")
        supports = _measured([entry.table], problems, "shape")
        if len(problems) != before or not supports or not entry.strings("torch"):
            continue
        found.append(Shape(entry.strings("torch"), when, supports[0], argument, position, values))
    return found


def _measured(tables: Any, problems: List[RuleProblem], kind: str = "measured") -> List[Support]:
    found = []
    seen = set()
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, kind, "mindspore", problems):
        before = len(problems)
        if kind == "measured":
            entry.unknown_fields(_MEASURED_FIELDS)
        name = entry.text("mindspore", required=True)
        version_text = entry.text("version", required=True)
        version = None
        if version_text:
            try:
                version = parse_versions(version_text)[0]
            except ValueError as exc:
                entry.problem("version", str(exc))
        if (name, version) in seen:
            entry.problem("mindspore", f"{name} is measured twice for {version_text}")
        unprobed = entry.text("unprobed")
        statuses = []
        if unprobed is None:
            entry.text("bprop", required=True, choices=BPROP)
            for mode in MODES:
                status = entry.text(mode, required=True, choices=STATUSES)
                if status:
                    statuses.append((mode, status))
        if len(problems) != before or not name or version is None:
            continue
        seen.add((name, version))
        details = tuple((m, entry.table[f"{m}_detail"]) for m in MODES if isinstance(entry.table.get(f"{m}_detail"), str))
        case = tuple((k, entry.table[k]) for k in ("input", "torch_setup", "mindspore_setup", "torch_call", "mindspore_call") if k in entry.table)
        found.append(Support(name, entry.strings("torch"), version, entry.table.get("bprop", "unknown"), entry.text("grad_primitive"),
                             tuple(statuses), details, case, unprobed))
    return found


default_second_order = load_once(load_second_order)
