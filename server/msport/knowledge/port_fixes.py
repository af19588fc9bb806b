"""The fixes that finish a port (rules/port_fixes.toml): which findings get one, how it is built,
how safe it is, its title; the nn.init -> initializer table and the helper functions.

Loaded once and validated like every rule file: each problem names the file, the entry and the
field, and a bad entry is skipped without hiding the others.
"""

from __future__ import annotations

import ast
import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

from .. import pyast
from .loader import RuleFileError, RuleProblem, entries, file_problem, read_toml, rules_dir
from .messages import DEFAULT_LANGUAGE
from .rule_texts import SUFFIXES, RuleText, in_language, read_text, read_texts, with_translations
from .shared import load_once

_TRANSLATED = tuple(suffix for _, suffix in SUFFIXES)

FILE_NAME = "port_fixes.toml"
BUILDERS = (
    "size-to-shape", "repeat-to-tile", "wrap-in-function", "inplace-rebind", "drop-device-move", "to-device-or-dtype",
    "rename-method", "replace-call", "modules-to-cells", "train-to-set-train", "helper-function", "remove-grad-context",
    "init-to-initializer", "dtype", "class-reference", "result-field-to-index", "device-type", "replace-attribute", "name-filled-container",
    "add-module-setattr",
)
SAFETIES = ("safe", "unsafe")
#: Fields every entry may have; the rest are the builder's own (kept as ``options``).
_COMMON = ("apis", "builder", "safety", "title", "title_zh-CN")
#: The fields that are texts a person reads, each with its translations (rule_texts.py).
_TEXTS = ("title", "unsafe_title", "dtype_title", "stop_title", "decorator_title", "partial_title")
_OPTIONS = {
    "wrap-in-function": ("function",),
    "inplace-rebind": with_translations(("unsafe_title",)),
    "to-device-or-dtype": (*with_translations(("dtype_title",)), "dtype_apis", "device_strings", "device_names", "device_suffixes", "device_functions", "dtype_names",
                           "dtype_suffixes", "ignored_keywords"),
    "rename-method": ("method",),
    "replace-call": ("replacement",),
    "helper-function": ("helper", *with_translations(("unsafe_title",))),
    "remove-grad-context": ("stop_function", *with_translations(("stop_title", "decorator_title", "unsafe_title"))),
    "init-to-initializer": ("module", "alias"),
    "dtype": ("dtypes",),
    "result-field-to-index": ("fields", "by_keyword"),
    "device-type": ("replacement", "safe_values", *with_translations(("unsafe_title",))),
    "replace-attribute": ("replacement",),
    "name-filled-container": ("fill_methods",),
    "class-reference": ("partial", *with_translations(("partial_title",))),
}
_REQUIRED = {"dtype": ("dtypes",), "init-to-initializer": ("module", "alias"), "wrap-in-function": ("function",), "rename-method": ("method",), "replace-call": ("replacement",), "helper-function": ("helper",), "result-field-to-index": ("fields",),
             "device-type": ("replacement", "safe_values"), "replace-attribute": ("replacement",),
             "remove-grad-context": ("stop_function",), "to-device-or-dtype": ("dtype_apis",)}
_INIT_FIELDS = ("class", "params", "defaults", "map", "symmetric")
_HELPER_FIELDS = ("imports", "code", "unsupported", "random", "random_zh-CN")


@dataclass(frozen=True)
class PortFix:
    apis: Tuple[str, ...]
    builder: str
    safety: str
    title: str
    options: Tuple[Tuple[str, Any], ...] = ()

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)

    def text(self, template: str, language: str = DEFAULT_LANGUAGE, /, **values) -> str:
        """The template *template* (``title``, ``unsafe_title``...) in *language*, with its
        placeholders filled."""
        return in_language(self.title if template == "title" else self.option(template), language).format(**values)


@dataclass(frozen=True)
class InitRule:
    """A PyTorch nn.init function as a MindSpore initializer."""

    initializer: str  # class in mindspore.common.initializer
    params: Tuple[str, ...]  # PyTorch's parameters after the tensor, in order
    defaults: Tuple[Tuple[str, str], ...] = ()  # PyTorch's defaults, as source text
    map: Tuple[Tuple[str, str], ...] = ()  # PyTorch parameter -> initializer parameter
    symmetric: Tuple[str, ...] = ()  # (low, high): a fix only when low is -high


@dataclass(frozen=True)
class Helper:
    name: str
    code: str
    imports: Tuple[str, ...]
    params: Tuple[str, ...]  # of the helper's definition, in order: how positional arguments bind
    unsupported: Tuple[Tuple[str, str], ...] = ()  # keyword -> why the helper cannot serve it
    random: Tuple[Tuple[str, RuleText], ...] = ()  # keyword -> why a non-zero value makes the fix unsafe


@dataclass(frozen=True)
class ImportRules:
    """MS104, imports of PyTorch nothing uses: the texts, and the names a freed import may rebind."""

    message: RuleText = RuleText("")
    title: RuleText = RuleText("")
    rebind_title: RuleText = RuleText("")
    rebind: Tuple[Tuple[str, str], ...] = ()  # local name -> MindSpore module


@dataclass(frozen=True)
class ParameterRules:
    """MS105, a layer parameter read by its PyTorch name: the texts."""

    message: RuleText = RuleText("")
    title: RuleText = RuleText("")
    mixed_message: RuleText = RuleText("")
    # A subclass of a layer handing PyTorch's keywords to the base's __init__ ([parameters]).
    init_message: RuleText = RuleText("")
    init_title: RuleText = RuleText("")
    init_renamed: RuleText = RuleText("")
    init_dropped: RuleText = RuleText("")
    init_tuple: RuleText = RuleText("")
    layers_tuple_first: Tuple[str, ...] = ()  # MindSpore layers whose first parameter is a tuple


@dataclass(frozen=True)
class InplaceDataRules:
    """MS106, an in-place method called through `.data`: what each method does on MindSpore, the
    out-of-place replacements, the texts."""

    backends: Tuple[str, ...] = ()  # where the outcomes were measured
    unchanged: Tuple[str, ...] = ()  # methods that return the result and leave the tensor as it was
    no_kernel: Tuple[str, ...] = ()  # methods with no kernel on those backends
    replacements: Tuple[Tuple[str, str], ...] = ()  # method -> out-of-place template ({value}, {args})
    texts: Dict[str, RuleText] = field(default_factory=dict)

    def text(self, key: str, language: str, **values) -> str:
        return in_language(self.texts[key], language).format(**values)


@dataclass(frozen=True)
class PortFixRules:
    fixes: Tuple[PortFix, ...] = ()
    init: Dict[str, InitRule] = field(default_factory=dict)
    helpers: Dict[str, Helper] = field(default_factory=dict)
    imports: ImportRules = ImportRules()
    parameters: ParameterRules = ParameterRules()
    inplace_data: InplaceDataRules = InplaceDataRules()
    problems: Tuple[RuleProblem, ...] = ()

    def for_api(self, name: Optional[str]) -> Optional[PortFix]:
        """The fix of the PyTorch API *name*: an exact listing first, then a pattern."""
        if not name:
            return None
        exact, patterns, _ = self._index()
        if name in exact:
            return exact[name]
        return next((fix for pattern, fix in patterns if fnmatch.fnmatchcase(name, pattern)), None)

    @property
    def short_names(self) -> frozenset:
        """Last parts of the listed names: findings on no other API need a look."""
        return self._index()[2]

    def _index(self):
        index = self.__dict__.get("_by_name")
        if index is None:
            exact = {api: fix for fix in self.fixes for api in fix.apis if "*" not in api}
            patterns = [(api, fix) for fix in self.fixes for api in fix.apis if "*" in api]
            index = (exact, patterns, frozenset(api.rpartition(".")[2] for api in exact))
            object.__setattr__(self, "_by_name", index)
        return index


def load_port_fix_rules(directory: Optional[Path] = None) -> PortFixRules:
    directory = directory or rules_dir()
    problems: List[RuleProblem] = []
    try:
        data = read_toml(directory / FILE_NAME)
    except RuleFileError as exc:
        return PortFixRules(problems=(file_problem(FILE_NAME, exc),))
    fixes = []
    seen: Dict[str, str] = {}
    for entry in entries(data.get("fix", []), FILE_NAME, "fix", "builder", problems):
        builder = entry.text("builder", required=True, choices=BUILDERS)
        entry.unknown_fields(_COMMON + _OPTIONS.get(builder or "", ()))
        safety = entry.text("safety", required=True, choices=SAFETIES)
        title = read_text(entry.table, "title", entry.file, entry.entry, problems, required=True)
        apis = entry.strings("apis")
        if not apis:
            entry.problem("apis", "expected at least one PyTorch API")
        for api in apis:
            if api in seen:
                entry.problem("apis", f"{api} already has a fix ({seen[api]})")
            seen[api] = entry.entry
        for name in _REQUIRED.get(builder or "", ()):
            if name not in entry.table:
                entry.problem(name, "is required")
        if builder and safety and title and apis:
            texts = {k: read_text(entry.table, k, entry.file, entry.entry, problems) for k in _TEXTS[1:] if k in entry.table}
            options = tuple((k, texts.get(k, v)) for k, v in entry.table.items() if k not in _COMMON and not k.endswith(_TRANSLATED))
            fixes.append(PortFix(tuple(apis), builder, safety, title, options))
    init = _init_rules(data.get("init", {}), problems)
    helpers = _helpers(data.get("helpers", {}), problems)
    for fix in fixes:
        helper = fix.option("helper")
        if helper is not None and helper not in helpers:
            problems.append(RuleProblem(FILE_NAME, f"fix ({fix.builder})", "helper", f"no [helpers.{helper}] table"))
    table = data.get("parameters", {})
    parameters = read_texts(table, FILE_NAME, "[parameters]", ("message", "title", "mixed_message", "init_message", "init_title", "init_renamed",
                                                                "init_dropped", "init_tuple"), problems, others=("layers_tuple_first",))
    tuple_first = tuple(table.get("layers_tuple_first", ())) if isinstance(table, Mapping) else ()
    return PortFixRules(tuple(fixes), init, helpers, _import_rules(data.get("imports", {}), problems),
                        ParameterRules(**parameters, layers_tuple_first=tuple_first), _inplace_data(data.get("inplace_data", {}), problems),
                        tuple(problems))


def _inplace_data(table: Any, problems: List[RuleProblem]) -> InplaceDataRules:
    lists = ("backends", "unchanged", "no_kernel")
    texts = read_texts(table, FILE_NAME, "[inplace_data]", ("unchanged_effect", "no_kernel_effect", "message", "instead", "instead_initializer",
                                                              "title"), problems, others=lists + ("replacements",))
    if not isinstance(table, Mapping):
        return InplaceDataRules()
    replacements = table.get("replacements", {})
    known = set(table.get("unchanged", ())) | set(table.get("no_kernel", ()))
    for method in replacements:
        if method not in known:
            problems.append(RuleProblem(FILE_NAME, "[inplace_data]", "replacements", f"{method} is in neither unchanged nor no_kernel"))
    return InplaceDataRules(*(tuple(table.get(name, ())) for name in lists), tuple(replacements.items()), texts)


def _import_rules(table: Any, problems: List[RuleProblem]) -> ImportRules:
    texts = read_texts(table, FILE_NAME, "[imports]", ("message", "title", "rebind_title"), problems, others=("rebind",))
    if len(texts) < 3:
        return ImportRules()
    rebind = table.get("rebind", {})
    if not isinstance(rebind, Mapping) or not all(isinstance(v, str) and v.startswith("mindspore") for v in rebind.values()):
        problems.append(RuleProblem(FILE_NAME, "imports", "rebind", "expected a table of name = \"mindspore module\""))
        rebind = {}
    return ImportRules(**texts, rebind=tuple(sorted(rebind.items())))


def _init_rules(table: Any, problems: List[RuleProblem]) -> Dict[str, InitRule]:
    rules = {}
    if not isinstance(table, Mapping):
        problems.append(RuleProblem(FILE_NAME, "init", "", "expected a table"))
        return rules
    for name, item in table.items():
        def problem(field: str, message: str) -> None:
            problems.append(RuleProblem(FILE_NAME, f"init.{name}", field, message))

        if not isinstance(item, Mapping):
            problem("", "expected an inline table")
            continue
        for key in item:
            if key not in _INIT_FIELDS:
                problem(key, f"unknown field; expected one of {', '.join(_INIT_FIELDS)}")
        params = item.get("params", [])
        tables = {key: item.get(key, {}) for key in ("defaults", "map")}
        if not isinstance(item.get("class"), str) or not isinstance(params, list):
            problem("class", "expected a class name and a list of params")
            continue
        if any(not isinstance(t, Mapping) or not set(t) <= set(params) for t in tables.values()):
            problem("map", "expected tables keyed by the entry's params")
            continue
        for key, value in tables["defaults"].items():
            try:
                pyast.parse(str(value), mode="eval")
            except SyntaxError:
                problem("defaults", f"{key}: not a Python expression: {value!r}")
        rules[name] = InitRule(item["class"], tuple(params), tuple(sorted(tables["defaults"].items())),
                               tuple(sorted(tables["map"].items())), tuple(item.get("symmetric", ())))
    return rules


def _helpers(table: Any, problems: List[RuleProblem]) -> Dict[str, Helper]:
    helpers = {}
    if not isinstance(table, Mapping):
        problems.append(RuleProblem(FILE_NAME, "helpers", "", "expected a table"))
        return helpers
    for name, item in table.items():
        label = f"helpers.{name}"
        if not isinstance(item, Mapping):
            problems.append(RuleProblem(FILE_NAME, label, "", "expected a table"))
            continue
        for key in item:
            if key not in _HELPER_FIELDS:
                problems.append(RuleProblem(FILE_NAME, label, key, f"unknown field; expected one of {', '.join(_HELPER_FIELDS)}"))
        code = item.get("code", "")
        try:
            tree = pyast.parse(code)
        except SyntaxError as exc:
            problems.append(RuleProblem(FILE_NAME, label, "code", f"does not parse: {exc.msg} (line {exc.lineno})"))
            continue
        if [type(n) for n in tree.body] != [ast.FunctionDef] or tree.body[0].name != name:
            problems.append(RuleProblem(FILE_NAME, label, "code", f"expected exactly one function named {name}"))
            continue
        imports = item.get("imports", [])
        if not isinstance(imports, list) or not all(isinstance(i, str) for i in imports):
            problems.append(RuleProblem(FILE_NAME, label, "imports", "expected a list of import statements"))
            continue
        params = tuple(a.arg for a in tree.body[0].args.args)
        helpers[name] = Helper(name, code.strip("\n") + "\n", tuple(imports), params, tuple(sorted(item.get("unsupported", {}).items())),
                               _reasons(item, "random", label, problems))
    return helpers


def _reasons(item: Mapping[str, Any], field: str, label: str, problems: List[RuleProblem]) -> Tuple[Tuple[str, RuleText], ...]:
    """A table of keyword = "why", with its translations in tables beside it (random_zh-CN = {...})."""
    table = item.get(field, {})
    found = []
    for key in table if isinstance(table, Mapping) else ():
        texts = {field: table[key]}
        for _, suffix in SUFFIXES:
            translated = item.get(field + suffix)
            if isinstance(translated, Mapping) and key in translated:
                texts[field + suffix] = translated[key]
        text = read_text(texts, field, FILE_NAME, f"{label}, {field}.{key}", problems)
        if text is not None:
            found.append((key, text))
    return tuple(sorted(found))


default_port_fix_rules = load_once(load_port_fix_rules)
