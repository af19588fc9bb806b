"""Sparse tensors (rules/sparse.toml): what makes a value sparse, the operations on it with their
MindSpore COOTensor/CSRTensor counterparts, and what those did on the real package.

Loaded once and validated like every rule file: each problem names the file, the entry and the
field, and a bad entry is skipped without hiding the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from .loader import RuleFileError, RuleProblem, _Entry, entries, file_problem, parse_versions, rules_dir, toml_parser
from .model import Version
from .cache import toml_document
from .messages import DEFAULT_LANGUAGE
from .rule_texts import in_language, read_text, read_texts, with_translations
from .shared import load_once

FILE_NAME = "sparse.toml"
_parse = toml_parser(FILE_NAME)
LAYOUTS = ("coo", "csr")
MODES = ("pynative", "jit")
MESSAGES = ("missing", "fails", "differs", "rank", "int32", "deprecated", "memory_known", "memory_unknown", "failure_measured",
            "failure_documented", "int32_fix", "int32_fix_unsafe", "described_test", "described_made", "related", "mode_separator",
            "mode_pynative", "mode_jit", "unknown_error", "layout", "layout_read")
_CONSTRUCTOR_FIELDS = ("apis", "layout", "size", "size_keyword", "indices")
_OPERATION_FIELDS = ("id", "apis", "operators", "sparse", "list", "both", *with_translations(("fallback",)), *LAYOUTS)
_COUNTERPART_FIELDS = ("mindspore", "case", "none", "instead", *with_translations(("difference",)))


@dataclass(frozen=True)
class Constructor:
    apis: Tuple[str, ...]
    layout: str
    size: Optional[int] = None  # position of the shape argument
    size_keyword: Optional[str] = None
    indices: Optional[int] = None  # position of a COO indices argument (MindSpore: its dtype matters)


@dataclass(frozen=True)
class Counterpart:
    mindspore: Optional[str] = None
    case: Optional[str] = None  # measured by tools/probe_sparse.py
    none: bool = False  # no counterpart
    instead: Optional[str] = None  # a measured replacement
    difference: Optional[str] = None


@dataclass(frozen=True)
class Operation:
    id: str
    apis: Tuple[str, ...]
    operators: Tuple[str, ...]  # ast operator class names (MatMult, Add...)
    sparse: Tuple[int, ...]  # argument positions that may hold the sparse tensor
    fallback: str
    counterparts: Tuple[Tuple[str, Counterpart], ...] = ()
    takes_list: bool = False  # torch.cat([a, b]): the sparse tensors are in a list
    #: The entry for both operands sparse (COO * COO), which differs from sparse with dense;
    #: it takes precedence over the one-sided entry of the same spelling.
    both: bool = False

    def counterpart(self, layout: str) -> Optional[Counterpart]:
        return dict(self.counterparts).get(layout)


@dataclass(frozen=True)
class CaseResult:
    case: str
    version: Version
    statuses: Tuple[Tuple[str, str], ...]  # (mode, ok | fails)
    errors: Tuple[Tuple[str, str], ...] = ()

    def status(self, mode: str) -> Optional[str]:
        return dict(self.statuses).get(mode)

    def error(self, mode: str) -> str:
        return dict(self.errors).get(mode, "")


@dataclass(frozen=True)
class SparseRules:
    words: Tuple[str, ...] = ()
    preserving_methods: FrozenSet[str] = frozenset()
    preserving_functions: FrozenSet[str] = frozenset()  # sparse result when the first argument is
    namespaces: Tuple[str, ...] = ()  # modules whose functions take a sparse first argument
    tensor_class: str = ""  # the torch tensor class the operations' methods belong to
    classes: Tuple[Tuple[str, str], ...] = ()  # layout -> MindSpore class
    int64_operations: FrozenSet[str] = frozenset()
    messages: Tuple[Tuple[str, str], ...] = ()
    constructors: Tuple[Constructor, ...] = ()
    layouts: Tuple[Tuple[str, str], ...] = ()  # (qualified layout value, layout)
    operations: Tuple[Operation, ...] = ()
    deprecated: Tuple[Tuple[str, str], ...] = ()  # (api, what to use instead)
    #: Layouts MindSpore has no class for: (layout name, the torch APIs making one, the layout
    #: values naming it, what to build instead)
    unsupported_layouts: Tuple[Tuple[str, Tuple[str, ...], Tuple[str, ...], str], ...] = ()
    #: Tensor methods that exist for such a layout only (x.ccol_indices()): (method, layout name,
    #: what to build instead)
    layout_reads: Tuple[Tuple[str, str, str], ...] = ()
    facts: Tuple[Tuple[str, Tuple[str, ...], Tuple[str, ...]], ...] = ()  # (id, cases that fail, cases that run)
    results: Tuple[CaseResult, ...] = ()
    platforms: Tuple[Tuple[str, Version, Tuple[str, ...]], ...] = ()  # (api, version, from its docstring)
    problems: Tuple[RuleProblem, ...] = ()
    _index: Dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        index = self._index
        index["constructors"] = {api: c for c in self.constructors for api in c.apis}
        index["operations"] = {api: o for o in self.operations for api in o.apis if not o.both}
        index["operators"] = {name: o for o in self.operations for name in o.operators if not o.both}
        index["both"] = {key: o for o in self.operations if o.both for key in (*o.apis, *o.operators)}
        index["layouts"] = dict(self.layouts)
        index["deprecated"] = dict(self.deprecated)
        results: Dict[str, List[CaseResult]] = {}
        for result in self.results:
            results.setdefault(result.case, []).append(result)
        index["results"] = {case: sorted(found, key=lambda r: r.version) for case, found in results.items()}
        platforms: Dict[str, List[Tuple[Version, Tuple[str, ...]]]] = {}
        for api, version, names in self.platforms:
            platforms.setdefault(api, []).append((version, names))
        index["platforms"] = {api: sorted(found) for api, found in platforms.items()}
        index["methods"] = {api.rpartition(".")[2]: c for c in self.constructors for api in c.apis if ".Tensor." in api}
        index["counterparts"] = {c.mindspore: o for o in self.operations for _, c in o.counterparts if c.mindspore}

    def unsupported_layout(self, qualified: str) -> Optional[Tuple[str, str]]:
        """(layout name, what to build instead) when *qualified* makes a tensor of, or names, a
        layout MindSpore has no class for."""
        for layout, apis, values, instead in self.unsupported_layouts:
            if qualified in apis or qualified in values:
                return layout, instead
        return None

    def message(self, key: str, language: str = DEFAULT_LANGUAGE) -> str:
        return in_language(dict(self.messages)[key], language)

    def mindspore_class(self, layout: str) -> str:
        """MindSpore's class for *layout* ("coo": mindspore.COOTensor)."""
        return dict(self.classes)[layout]

    def in_namespace(self, qualified: str) -> bool:
        return any(qualified.startswith(namespace + ".") for namespace in self.namespaces)

    def constructor(self, api: str) -> Optional[Constructor]:
        return self._index["constructors"].get(api)

    def constructor_method(self, name: str) -> Optional[Constructor]:
        """A Tensor method that makes a sparse tensor (to_sparse, to_coo...), by its name."""
        return self._index["methods"].get(name)

    def layout_of(self, qualified: str) -> Optional[str]:
        return self._index["layouts"].get(qualified)

    def operation(self, api: str) -> Optional[Operation]:
        return self._index["operations"].get(api)

    def operation_of_counterpart(self, mindspore: str) -> Optional[Operation]:
        """The operation a MindSpore sparse API is the counterpart of (CSRTensor.mm: matmul)."""
        return self._index["counterparts"].get(mindspore)

    def operator(self, name: str) -> Optional[Operation]:
        return self._index["operators"].get(name)

    def both_sparse(self, spelling: str) -> Optional[Operation]:
        """The entry for *spelling* (an API or an operator name) when both operands are sparse."""
        return self._index["both"].get(spelling)

    def layout_read(self, method: str) -> Optional[Tuple[str, str]]:
        """(layout name, what to build instead) when the Tensor method *method* exists only for a
        layout MindSpore has no class for."""
        for name, layout, instead in self.layout_reads:
            if name == method:
                return layout, instead
        return None

    def deprecation(self, api: str) -> Optional[str]:
        return self._index["deprecated"].get(api)

    def result(self, case: Optional[str], version: Version) -> Optional[CaseResult]:
        """The measurement of *case* on *version*, else on the nearest version measured."""
        found = self._index["results"].get(case or "", [])
        if not found:
            return None
        below = [r for r in found if r.version <= version]
        return below[-1] if below else found[0]

    def documented_platforms(self, api: Optional[str], version: Version) -> Optional[Tuple[str, ...]]:
        found = self._index["platforms"].get(api or "", [])
        if not found:
            return None
        below = [p for v, p in found if v <= version]
        return below[-1] if below else found[0][1]


def load_sparse(directory: Optional[Path] = None) -> SparseRules:
    path = (directory or rules_dir()) / FILE_NAME
    if not path.is_file():
        return SparseRules()
    problems: List[RuleProblem] = []
    try:
        data = toml_document(path.stem, path.read_text(encoding="utf-8"), _parse)
    except (OSError, RuleFileError) as exc:
        return SparseRules(problems=(file_problem(FILE_NAME, exc),))
    detect = _Entry(data.get("detect", {}), FILE_NAME, "[detect]", problems)
    detect.unknown_fields(("words", "namespaces", "tensor_class", "preserving_methods", "preserving_functions", "int64_operations"))
    messages = read_texts(data.get("messages", {}), FILE_NAME, "[messages]", MESSAGES, problems)
    layouts = []
    for layout, values in (data.get("layouts") or {}).items():
        if layout not in LAYOUTS or not isinstance(values, list):
            problems.append(RuleProblem(FILE_NAME, "[layouts]", layout, f"expected one of {', '.join(LAYOUTS)} = [qualified names]"))
            continue
        layouts += [(value, layout) for value in values]
    classes = data.get("classes") or {}
    if not isinstance(classes, dict) or set(classes) != set(LAYOUTS) or not all(isinstance(v, str) and v.startswith("mindspore.") for v in classes.values()):
        problems.append(RuleProblem(FILE_NAME, "[classes]", "", f"expected {' and '.join(LAYOUTS)} = \"mindspore.<class>\", got {classes!r}"))
        classes = {}
    operations = list(_operations(data.get("operation", []), problems))
    known_ids = {o.id for o in operations}
    int64 = detect.strings("int64_operations")
    unsupported = list(_unsupported_layouts(data.get("unsupported_layout", []), problems))
    for name in int64:
        if name not in known_ids:
            detect.problem("int64_operations", f"{name} is not the id of an [[operation]]")
    return SparseRules(
        words=detect.strings("words"),
        preserving_methods=frozenset(detect.strings("preserving_methods")),
        preserving_functions=frozenset(detect.strings("preserving_functions")),
        namespaces=detect.strings("namespaces"),
        tensor_class=detect.text("tensor_class", required=True) or "",
        classes=tuple(sorted(classes.items())),
        int64_operations=frozenset(int64),
        messages=tuple(messages.items()),
        constructors=tuple(_constructors(data.get("constructor", []), problems)),
        layouts=tuple(layouts),
        operations=tuple(operations),
        deprecated=tuple(_deprecated(data.get("deprecated", []), problems)),
        unsupported_layouts=tuple(layout[:4] for layout in unsupported),
        layout_reads=tuple((method, layout[0], layout[3]) for layout in unsupported for method in layout[4]),
        facts=tuple((f.get("id", ""), tuple(f.get("fails", [])), tuple(f.get("runs", []))) for f in data.get("fact", [])),
        results=tuple(_results(data.get("measured", []), problems)),
        platforms=tuple(_platforms(data.get("measured", []), problems)),
        problems=tuple(problems),
    )


def _constructors(tables: Any, problems: List[RuleProblem]):
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, "constructor", "layout", problems):
        entry.unknown_fields(_CONSTRUCTOR_FIELDS)
        apis = entry.strings("apis")
        layout = entry.text("layout", required=True, choices=LAYOUTS)
        numbers = {}
        for name in ("size", "indices"):
            value = entry.table.get(name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
                entry.problem(name, f"expected an argument position, got {value!r}")
                value = None
            numbers[name] = value
        if apis and layout:
            yield Constructor(apis, layout, numbers["size"], entry.text("size_keyword"), numbers["indices"])


def _operations(tables: Any, problems: List[RuleProblem]):
    seen = set()
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, "operation", "id", problems):
        before = len(problems)
        entry.unknown_fields(_OPERATION_FIELDS)
        op_id = entry.text("id", required=True)
        if op_id in seen:
            entry.problem("id", f"duplicate id {op_id!r}")
        positions = entry.table.get("sparse", [])
        if not isinstance(positions, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in positions):
            entry.problem("sparse", f"expected a list of argument positions, got {positions!r}")
            positions = []
        counterparts = []
        for layout in LAYOUTS:
            table = entry.table.get(layout)
            if table is None:
                continue
            sub = _Entry(table if isinstance(table, dict) else {}, FILE_NAME, entry.entry, problems)
            if not isinstance(table, dict):
                entry.problem(layout, "expected an inline table")
                continue
            sub.unknown_fields(_COUNTERPART_FIELDS)
            none = table.get("none", False) is True
            if not none and not (table.get("mindspore") and table.get("case")):
                entry.problem(layout, "a counterpart needs 'mindspore' and 'case' (or none = true)")
            difference = read_text(table, "difference", FILE_NAME, f"{entry.entry}, {layout}", problems)
            counterparts.append((layout, Counterpart(table.get("mindspore"), table.get("case"), none, table.get("instead"), difference)))
        fallback = read_text(entry.table, "fallback", FILE_NAME, entry.entry, problems, required=True)
        if len(problems) != before or not op_id or not fallback:
            continue
        seen.add(op_id)
        yield Operation(op_id, entry.strings("apis"), entry.strings("operators"), tuple(positions), fallback, tuple(counterparts),
                        entry.table.get("list") is True, entry.table.get("both") is True)


def _deprecated(tables: Any, problems: List[RuleProblem]):
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, "deprecated", "apis", problems):
        entry.unknown_fields(("apis", *with_translations(("instead",))))
        instead = read_text(entry.table, "instead", FILE_NAME, entry.entry, problems, required=True)
        for api in entry.strings("apis"):
            yield api, instead


def _unsupported_layouts(tables: Any, problems: List[RuleProblem]):
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, "unsupported_layout", "layout", problems):
        entry.unknown_fields(("layout", "apis", "values", "methods", *with_translations(("instead",))))
        layout = entry.text("layout", required=True)
        instead = read_text(entry.table, "instead", FILE_NAME, entry.entry, problems, required=True)
        if layout and instead:
            yield layout, tuple(entry.strings("apis")), tuple(entry.strings("values")), instead, tuple(entry.strings("methods"))


def _version(entry: _Entry) -> Optional[Version]:
    text = entry.text("version", required=True)
    if not text:
        return None
    try:
        return parse_versions(text)[0]
    except ValueError as exc:
        entry.problem("version", str(exc))
        return None


def _results(tables: Any, problems: List[RuleProblem]):
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, "measured", "case", problems):
        if "case" not in entry.table:
            continue
        entry.unknown_fields(("case", "version", *MODES, *(f"{m}_error" for m in MODES)))
        version = _version(entry)
        statuses = tuple((m, s) for m in MODES if (s := entry.text(m, choices=("ok", "fails"))))
        if version is not None and statuses:
            errors = tuple((m, entry.table[f"{m}_error"]) for m in MODES if isinstance(entry.table.get(f"{m}_error"), str))
            yield CaseResult(entry.table["case"], version, statuses, errors)


def _platforms(tables: Any, problems: List[RuleProblem]):
    for entry in entries(tables if isinstance(tables, list) else [], FILE_NAME, "measured", "api", problems):
        if "api" not in entry.table:
            continue
        entry.unknown_fields(("api", "version", "platforms"))
        version = _version(entry)
        if version is not None:
            yield entry.table["api"], version, entry.strings("platforms")


default_sparse = load_once(load_sparse)
