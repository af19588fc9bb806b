"""The equivalent replacements (rules/replacements.toml) and which MindSpore APIs lack a CPU kernel.

Loaded once and validated like every rule file: each problem names the file, the entry and
the field, and a bad entry is skipped without hiding the others.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Tuple

from .loader import RuleFileError, RuleProblem, file_problem, read_toml, rules_dir
from .messages import DEFAULT_LANGUAGE
from .rule_texts import RuleText, in_language, read_texts
from .shared import load_once

FILE_NAME = "replacements.toml"
BUILDERS = ("reshape", "pool-to-reduce", "drop-pool-indices", "sort-to-topk")
#: Builders whose fix may be unsafe: each has an unsafe_<builder> text saying why.
UNSAFE_BUILDERS = ("reshape", "sort-to-topk")
MESSAGES = (*BUILDERS, *(f"unsafe_{b}" for b in UNSAFE_BUILDERS), "no_counterpart", "not_direct", "not_direct_note", "no_kernel", "where",
            "held", "title_drop_indices", "title_replace_attribute", "title_replace")
WHEN = ("always", "no-direct-port")
SAFETIES = ("safe", "unsafe")
RESHAPE_OPS = ("squeeze", "flatten")
REDUCTIONS = ("mean", "amax")
#: The CPU probe of the newest MindSpore (tools/probe_cpu_kernels.py).
CPU_KERNELS = "cpu-kernels-2.10.0.json"

_ENTRY_FIELDS = ("code", "builder", "when", "apis", "reduce")
_API_FIELDS = ("name", "params", "keywords", "defaults", "op", "axes", "safety", "without_indices")


@dataclass(frozen=True)
class ReplacedApi:
    """One API a replacement applies to, with how to read its calls."""

    name: str
    code: str
    builder: str
    when: str
    params: Tuple[str, ...]
    keywords: Tuple[str, ...] = ()
    defaults: Tuple[Tuple[str, Any], ...] = ()
    op: Optional[str] = None  # reshape: squeeze / flatten
    reduce: Optional[str] = None  # pool-to-reduce: mean / amax
    axes: int = 0  # pool-to-reduce: how many trailing axes are pooled
    safety: str = "safe"
    without_indices: Optional[str] = None  # drop-pool-indices: the class to use instead

    @property
    def framework(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def is_method(self) -> bool:
        return ".Tensor." in self.name

    @property
    def is_class(self) -> bool:
        return self.name.rpartition(".")[2][:1].isupper()

    def default(self, name: str) -> Any:
        return dict(self.defaults).get(name)


@dataclass(frozen=True)
class StaticRewriteRules:
    """Which dynamic-shape findings get a static rewrite, and what counts as a full reduction."""

    selections: FrozenSet[str] = frozenset()  # trigger ids of rules/dynamic_shape.toml
    index_lists: FrozenSet[str] = frozenset()
    reductions: FrozenSet[str] = frozenset()  # Tensor methods
    reduction_functions: FrozenSet[str] = frozenset()


@dataclass(frozen=True)
class Replacements:
    apis: Dict[str, ReplacedApi] = field(default_factory=dict)
    static_rewrites: StaticRewriteRules = StaticRewriteRules()
    #: MindSpore APIs the CPU probe found without a kernel.
    no_cpu_kernel: FrozenSet[str] = frozenset()
    problems: Tuple[RuleProblem, ...] = ()
    #: The texts of the findings and fixes ([messages]), in every language.
    messages: Dict[str, RuleText] = field(default_factory=dict)

    def message(self, key: str, language: str = DEFAULT_LANGUAGE, **values: str) -> str:
        return in_language(self.messages[key], language).format(**values)

    def get(self, name: Optional[str]) -> Optional[ReplacedApi]:
        return self.apis.get(name) if name else None

    @property
    def short_names(self) -> FrozenSet[str]:
        """The last part of every API name: a chunk mentioning none of them needs no visit."""
        names = self.__dict__.get("_short_names")
        if names is None:
            names = frozenset(name.rpartition(".")[2] for name in self.apis)
            object.__setattr__(self, "_short_names", names)
        return names

    def has_kernel(self, name: str, backend: str) -> bool:
        return not (backend == "cpu" and name in self.no_cpu_kernel)


def load_replacements(directory: Optional[Path] = None) -> Replacements:
    directory = directory or rules_dir()
    problems: List[RuleProblem] = []
    apis: Dict[str, ReplacedApi] = {}
    try:
        data = read_toml(directory / FILE_NAME)
    except RuleFileError as exc:
        return Replacements(problems=(file_problem(FILE_NAME, exc),))
    for index, table in enumerate(data.get("replacement", [])):
        label = f"replacement #{index + 1} ({table.get('code', '?') if isinstance(table, dict) else '?'})"
        for api in _entry(table, label, problems):
            if api.name in apis:
                problems.append(RuleProblem(FILE_NAME, label, "apis", f"{api.name} is also listed under {apis[api.name].code}"))
                continue
            apis[api.name] = api
    rewrites = _static_rewrites(data.get("static_rewrites"), problems)
    messages = read_texts(data.get("messages", {}), FILE_NAME, "[messages]", MESSAGES, problems)
    return Replacements(apis, rewrites, _no_cpu_kernel(directory / "snapshots" / CPU_KERNELS), tuple(problems), messages)


def _static_rewrites(table: Any, problems: List[RuleProblem]) -> StaticRewriteRules:
    if table is None:
        return StaticRewriteRules()
    if not isinstance(table, Mapping):
        problems.append(RuleProblem(FILE_NAME, "static_rewrites", "", "expected a table"))
        return StaticRewriteRules()
    fields = StaticRewriteRules.__dataclass_fields__
    values = {}
    for key, value in table.items():
        if key not in fields:
            problems.append(RuleProblem(FILE_NAME, "static_rewrites", key, f"unknown field; expected one of {', '.join(fields)}"))
        elif not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            problems.append(RuleProblem(FILE_NAME, "static_rewrites", key, f"expected a list of names, got {value!r}"))
        else:
            values[key] = frozenset(value)
    return StaticRewriteRules(**values)


def _entry(table: Any, label: str, problems: List[RuleProblem]) -> List[ReplacedApi]:
    def problem(name: str, message: str) -> None:
        problems.append(RuleProblem(FILE_NAME, label, name, message))

    if not isinstance(table, dict):
        problem("", "expected a table")
        return []
    for key in table:
        if key not in _ENTRY_FIELDS:
            problem(key, f"unknown field; expected one of {', '.join(_ENTRY_FIELDS)}")
    code, builder, when = table.get("code"), table.get("builder"), table.get("when")
    if not isinstance(code, str) or not code.startswith("MS3"):
        problem("code", f"expected an MS3xx code, got {code!r}")
    if builder not in BUILDERS:
        problem("builder", f"expected one of {', '.join(BUILDERS)}, got {builder!r}")
    if when not in WHEN:
        problem("when", f"expected one of {', '.join(WHEN)}, got {when!r}")
    reduce = table.get("reduce")
    if builder == "pool-to-reduce" and reduce not in REDUCTIONS:
        problem("reduce", f"expected one of {', '.join(REDUCTIONS)}, got {reduce!r}")
    apis = table.get("apis")
    if not isinstance(apis, list) or not apis:
        problem("apis", "expected a non-empty list of inline tables")
        return []
    before = len(problems)
    found = []
    for position, item in enumerate(apis):
        api = _api(item, f"apis[{position}]", problem, code, builder, when, reduce)
        if api is not None:
            found.append(api)
    return found if len(problems) == before else []


def _api(item: Any, where: str, problem, code, builder, when, reduce) -> Optional[ReplacedApi]:
    if not isinstance(item, Mapping):
        problem(where, "expected an inline table")
        return None
    for key in item:
        if key not in _API_FIELDS:
            problem(f"{where}.{key}", f"unknown field; expected one of {', '.join(_API_FIELDS)}")
    name = item.get("name")
    if not isinstance(name, str) or "." not in name:
        problem(f"{where}.name", f"expected a qualified API name, got {name!r}")
        return None
    lists = {}
    for key in ("params", "keywords"):
        value = item.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            problem(f"{where}.{key}", f"expected a list of parameter names, got {value!r}")
            return None
        lists[key] = tuple(value)
    defaults = item.get("defaults", {})
    if not isinstance(defaults, Mapping) or any(k not in lists["params"] + lists["keywords"] for k in defaults):
        problem(f"{where}.defaults", "expected a table of defaults for parameters the entry lists")
        return None
    op, axes, safety = item.get("op"), item.get("axes", 0), item.get("safety", "safe")
    if builder == "reshape" and op not in RESHAPE_OPS:
        problem(f"{where}.op", f"expected one of {', '.join(RESHAPE_OPS)}, got {op!r}")
    if builder == "pool-to-reduce" and axes not in (1, 2, 3):
        problem(f"{where}.axes", f"expected 1, 2 or 3 pooled axes, got {axes!r}")
    if safety not in SAFETIES:
        problem(f"{where}.safety", f"expected one of {', '.join(SAFETIES)}, got {safety!r}")
    without = item.get("without_indices")
    if without is not None and not (isinstance(without, str) and "." in without):
        problem(f"{where}.without_indices", f"expected a qualified class name, got {without!r}")
    return ReplacedApi(
        name=name, code=code, builder=builder, when=when, params=lists["params"], keywords=lists["keywords"],
        defaults=tuple(sorted(defaults.items())), op=op, reduce=reduce, axes=axes, safety=safety, without_indices=without,
    )


def _no_cpu_kernel(path: Path) -> FrozenSet[str]:
    if not path.is_file():
        return frozenset()
    # "graph": the APIs that ran in PyNative, compiled by mindspore.jit; replacements are
    # written into graph code, so a kernel PyNative alone has does not count.
    data = json.loads(path.read_text(encoding="utf-8"))
    return frozenset(name for table in ("apis", "graph") for name, status in data.get(table, {}).items() if status == "no_kernel")


default_replacements = load_once(load_replacements)
