"""Dynamic-shape trigger rules (rules/dynamic_shape.toml): loaded, validated, indexed.

The check family MS2xx holds only the matcher kinds (a call whose output is always
data-dependent, an argument whose value or length comes from data, subscripts, branches);
which APIs, Primitive classes, argument positions and texts belong to each kind is data, read
here. Every problem names the file, the entry and the field; a bad entry is skipped.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Tuple

from .loader import RuleFileError, RuleProblem, _Entry, entries, file_problem, read_toml
from .messages import DEFAULT_LANGUAGE
from .rule_texts import RuleText, in_language, read_text, read_texts, with_translations

TESTS = ("always", "single-argument", "value", "shape")
SYNTAX_KINDS = ("mask_index", "slice", "index", "slice_store", "branch", "loop")
SEVERITY_TEXTS = (
    "error", "error_deprecated", "warning", "warning_deprecated", "warning_no_sinking", "info", "info_deprecated", "info_no_sinking",
    "unseen", "eager",
)
FILE_NAME = "dynamic_shape.toml"

#: The fields of a trigger a person reads, each in English and Simplified Chinese (_zh-CN).
_TRIGGER_TEXTS = ("construct", "role", "why", "workaround")
_TRIGGER_FIELDS = (
    "id", "code", "test", "apis", "primitives", "positions", "names", "rest", "sequences",
    "tensors", "outputs", "optional_outputs", *with_translations(_TRIGGER_TEXTS),
)
OUTPUT_KINDS = ("data", "input")
_SYNTAX_TEXTS = ("construct", "why", "workaround")
_PROVENANCE_FIELDS = (
    "data_methods", "shape_methods", "shape_attributes", "shape_functions", "shape_primitives", "reductions",
    "mask_functions", "mask_methods", "bool_reductions", "index_tuple_keywords", "mask_preserving_methods", "cast_methods", "cast_functions",
    "cast_primitives", "bool_dtypes", "shape_preserving_methods", "shape_preserving_functions", "concat_functions", "value_modules",
    "mask_parameter_names", "scalar_parameter_names", "mask_preserving_functions", "loss_functions",
    "fixed_count_methods", "transpose_methods", "transpose_attributes",
)
BRANCH_REASONS = (
    "size_guard", "runs_dynamic", "calls_dynamic", "appends", "stops", "skips", "loop_dynamic", "iterates_dynamic", "exits_before_dynamic", "loop_grows", "loop_appends", "side_dynamic", "sides_differ",
    "branch_dynamic_if", "branch_dynamic_else", "branches_differ", "return_dynamic", "returns_differ",
)
#: The frames of a finding's message ([messages]): the sentence that says what was found, by the
#: matcher that found it, and the paragraph around it (what it costs, the static alternative).
MESSAGES = (
    "finding", "unseen", "this_code", "origin", "returns", "related", "always", "argument_value", "argument_shape", "mask_index", "slice",
    "slice_sized", "index", "branch", "helper",
)
_GRAPH_FIELDS = (
    "decorators", "set_context", "graph_mode", "pynative_mode", "build_methods", "backward_methods",
    "gradient_functions", "gradient_transforms",
)
_PIPELINE_FIELDS = (
    "bases", "base_modules", "methods", "keywords", "class_words", "function_words", "directories", "files", "call_methods",
    "call_parameters",
)


@dataclass(frozen=True)
class Trigger:
    """One construct whose output shape can depend on data, in all its spellings."""

    id: str
    code: str
    test: str
    construct: RuleText
    why: RuleText
    workaround: RuleText
    role: RuleText = RuleText("")
    apis: Tuple[str, ...] = ()
    primitives: Tuple[str, ...] = ()
    positions: Tuple[int, ...] = ()
    names: Tuple[str, ...] = ()
    rest: bool = False
    tensors: bool = True
    outputs: Tuple[str, ...] = ()  # tuple outputs: "data" (length follows the data) or "input"
    optional_outputs: Tuple[Tuple[str, str], ...] = ()  # (keyword, kind): an output when keyword=True
    #: Only positional arguments written as a tuple or list are tested: randint(low, high, size)
    #: takes its size as a sequence at the position where randint(high, size) has a bound.
    sequences: bool = False


@dataclass(frozen=True)
class SyntaxRule:
    """Code and texts for a matcher on Python syntax (x[mask], x[:k], if/while)."""

    code: str
    construct: RuleText
    why: RuleText
    workaround: RuleText


@dataclass(frozen=True)
class Vocabulary:
    """Named sets of API names and words from one table of the rules file."""

    sets: Tuple[Tuple[str, FrozenSet[str]], ...] = ()

    def __post_init__(self) -> None:
        # The lists become attributes (read on every expression the checks evaluate).
        for name, values in self.sets:
            object.__setattr__(self, name, values)

    def __getattr__(self, name: str) -> FrozenSet[str]:
        # Only called for lists the file does not define: they are empty.
        if name.startswith("_"):
            raise AttributeError(name)
        return frozenset()

    def matches(self, list_name: str, word: str) -> bool:
        """Whether *word* matches one of the glob patterns of list *list_name* (cached)."""
        cache = self.__dict__.setdefault("_matches", {})
        key = (list_name, word)
        if key not in cache:
            cache[key] = any(fnmatch.fnmatchcase(word, p) for p in getattr(self, list_name))
        return cache[key]


@dataclass(frozen=True)
class TriggerRules:
    triggers: Tuple[Trigger, ...] = ()
    syntax: Tuple[Tuple[str, SyntaxRule], ...] = ()
    aliases: Tuple[Tuple[str, str], ...] = ()
    consequence: Tuple[Tuple[str, RuleText], ...] = ()
    branch_reasons: Tuple[Tuple[str, RuleText], ...] = ()
    helper_call: Tuple[Tuple[str, RuleText], ...] = ()  # why, workaround
    messages: Tuple[Tuple[str, RuleText], ...] = ()  # the frames of a message ([messages])
    provenance: Vocabulary = Vocabulary()
    graph: Vocabulary = Vocabulary()
    pipeline: Vocabulary = Vocabulary()
    _by_api: Dict[str, Trigger] = field(default_factory=dict, compare=False, repr=False)
    _by_primitive: Dict[str, Trigger] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for trigger in self.triggers:
            for name in trigger.apis:
                self._by_api.setdefault(name, trigger)
            for name in trigger.primitives:
                self._by_primitive.setdefault(name, trigger)

    def canonical(self, qualified: str) -> str:
        """``mindspore.ops.operations.Unique`` -> ``mindspore.ops.Unique`` (see [aliases])."""
        cache = self.__dict__.setdefault("_canonical", {})
        found = cache.get(qualified)
        if found is None:
            found = qualified
            for prefix, target in self.aliases:
                if qualified == prefix or qualified.startswith(prefix + "."):
                    found = target + qualified[len(prefix):]
                    break
            cache[qualified] = found
        return found

    def for_api(self, qualified: str) -> Optional[Trigger]:
        return self._by_api.get(self.canonical(qualified))

    def for_primitive(self, qualified: str) -> Optional[Trigger]:
        return self._by_primitive.get(self.canonical(qualified))

    def syntax_rule(self, kind: str) -> SyntaxRule:
        return dict(self.syntax)[kind]

    def consequence_text(self, severity: str, language: str = DEFAULT_LANGUAGE) -> str:
        return in_language(dict(self.consequence).get(severity), language)

    def helper_text(self, key: str, language: str = DEFAULT_LANGUAGE, **values: str) -> str:
        return in_language(dict(self.helper_call).get(key), language).format(**values)

    def branch_reason(self, key: str, language: str = DEFAULT_LANGUAGE, **values: str) -> str:
        return (in_language(dict(self.branch_reasons).get(key), language) or key).format(**values)

    def message(self, key: str, language: str = DEFAULT_LANGUAGE, **values: str) -> str:
        """The frame *key* of [messages] in *language*, filled in (an unknown key is a bug: KeyError)."""
        return in_language(dict(self.messages)[key], language).format(**values)

    def api_names(self) -> Iterable[str]:
        """Every API and Primitive name the rules mention (for validation against snapshots)."""
        for trigger in self.triggers:
            yield from trigger.apis
            yield from trigger.primitives
        for _, names in self.provenance.sets:
            yield from (n for n in names if "." in n and n.split(".", 1)[0] in ("torch", "mindspore"))


def load_triggers(path: Path, problems: List[RuleProblem], codes: Iterable[str] = ()) -> TriggerRules:
    """Read *path*; a missing file gives no triggers (a rules directory without this family)."""
    if not path.is_file():
        return TriggerRules()
    try:
        data = read_toml(path)
    except RuleFileError as exc:
        problems.append(file_problem(path.name, exc))
        return TriggerRules()
    known_codes = set(codes)
    file = path.name
    aliases = _string_table(data.get("aliases", {}), file, "[aliases]", problems)
    consequence = tuple(read_texts(data.get("consequence", {}), file, "[consequence]", SEVERITY_TEXTS, problems).items())
    branch_reasons = tuple(read_texts(data.get("branch_reasons", {}), file, "[branch_reasons]", BRANCH_REASONS, problems).items())
    helper_call = tuple(read_texts(data.get("helper_call", {}), file, "[helper_call]", ("why", "workaround"), problems).items())
    messages = tuple(read_texts(data.get("messages", {}), file, "[messages]", MESSAGES, problems).items())
    triggers = _triggers(data.get("trigger", []), file, problems, known_codes, dict(aliases))
    syntax = _syntax(data.get("syntax", {}), file, problems, known_codes)
    return TriggerRules(
        triggers=triggers,
        syntax=syntax,
        aliases=tuple(sorted(aliases, key=lambda item: -len(item[0]))),
        consequence=consequence,
        branch_reasons=branch_reasons,
        helper_call=helper_call,
        messages=messages,
        provenance=_vocabulary(data.get("provenance", {}), file, "[provenance]", _PROVENANCE_FIELDS, problems),
        graph=_vocabulary(data.get("graph", {}), file, "[graph]", _GRAPH_FIELDS, problems),
        pipeline=_vocabulary(data.get("pipeline", {}), file, "[pipeline]", _PIPELINE_FIELDS, problems),
    )


def _triggers(tables: Any, file: str, problems: List[RuleProblem], codes: set, aliases: Mapping[str, str]) -> Tuple[Trigger, ...]:
    if not isinstance(tables, list):
        problems.append(RuleProblem(file, "[[trigger]]", "", "expected an array of tables"))
        return ()
    triggers: List[Trigger] = []
    seen_ids: Dict[str, str] = {}
    seen_names: Dict[str, str] = {}
    for entry in entries(tables, file, "trigger", "id", problems):
        before = len(problems)
        entry.unknown_fields(_TRIGGER_FIELDS)
        trigger_id = entry.text("id", required=True)
        code = entry.text("code", required=True)
        if code and codes and code not in codes:
            entry.problem("code", f"{code} is not defined in rules/codes/")
        test = entry.text("test", required=True, choices=TESTS)
        construct, why, workaround = (read_text(entry.table, name, file, entry.entry, problems, required=True)
                                      for name in ("construct", "why", "workaround"))
        apis = _names(entry, "apis", aliases)
        primitives = _names(entry, "primitives", aliases)
        if not apis and not primitives:
            entry.problem("apis", "a trigger needs at least one API or Primitive name ('apis' or 'primitives')")
        positions = _positions(entry)
        names = entry.strings("names")
        if test in ("value", "shape") and not positions and not names:
            entry.problem("positions", f"a '{test}' trigger needs the argument it tests ('positions' and/or 'names')")
        role = read_text(entry.table, "role", file, entry.entry, problems) or RuleText("")
        if test in ("value", "shape") and not role:
            entry.problem("role", f"is required for a '{test}' trigger: name the argument in messages")
        rest = _flag(entry, "rest", False)
        sequences = _flag(entry, "sequences", False)
        tensors = _flag(entry, "tensors", True)
        outputs = entry.strings("outputs")
        if any(kind not in OUTPUT_KINDS for kind in outputs):
            entry.problem("outputs", f"expected a list drawn from {', '.join(OUTPUT_KINDS)}, got {list(outputs)!r}")
        optional = _optional_outputs(entry)
        if trigger_id in seen_ids:
            entry.problem("id", f"duplicate id {trigger_id!r} (also {seen_ids[trigger_id]})")
        for name in (*apis, *primitives):
            if name in seen_names:
                entry.problem("apis", f"{name} is also listed in {seen_names[name]}")
        if len(problems) != before or not (trigger_id and code and test and construct and why and workaround):
            continue
        seen_ids[trigger_id] = entry.entry
        for name in (*apis, *primitives):
            seen_names[name] = entry.entry
        triggers.append(Trigger(trigger_id, code, test, construct, why, workaround, role, apis, primitives, positions, names, rest, tensors, outputs, optional, sequences))
    return tuple(triggers)


def _names(entry: _Entry, field_name: str, aliases: Mapping[str, str]) -> Tuple[str, ...]:
    names = entry.strings(field_name)
    for name in names:
        if not name.startswith(("torch.", "torchvision.", "mindspore.")):
            entry.problem(field_name, f"expected a qualified torch, torchvision or mindspore name, got {name!r}")
        for prefix, target in aliases.items():
            if name == prefix or name.startswith(prefix + "."):
                entry.problem(field_name, f"{name} uses the alias prefix {prefix}; write {target}{name[len(prefix):]}")
    return names


def _optional_outputs(entry: _Entry) -> Tuple[Tuple[str, str], ...]:
    value = entry.table.get("optional_outputs", [])
    pairs = []
    if isinstance(value, list):
        for item in value:
            if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and item[1] in OUTPUT_KINDS:
                pairs.append((item[0], item[1]))
            else:
                break
        else:
            return tuple(pairs)
    entry.problem("optional_outputs", f"expected a list of [keyword, kind] pairs with kind one of {', '.join(OUTPUT_KINDS)}, got {value!r}")
    return ()


def _positions(entry: _Entry) -> Tuple[int, ...]:
    value = entry.table.get("positions", [])
    if isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        return tuple(value)
    entry.problem("positions", f"expected a list of argument positions (integers from 0), got {value!r}")
    return ()


def _flag(entry: _Entry, field_name: str, default: bool) -> bool:
    value = entry.table.get(field_name, default)
    if isinstance(value, bool):
        return value
    entry.problem(field_name, f"expected true or false, got {value!r}")
    return default


def _syntax(tables: Any, file: str, problems: List[RuleProblem], codes: set) -> Tuple[Tuple[str, SyntaxRule], ...]:
    if not isinstance(tables, dict):
        problems.append(RuleProblem(file, "[syntax]", "", "expected a table of tables"))
        return ()
    rules = []
    for kind in tables:
        if kind not in SYNTAX_KINDS:
            problems.append(RuleProblem(file, f"[syntax.{kind}]", "", f"unknown syntax kind; expected one of {', '.join(SYNTAX_KINDS)}"))
    for kind in SYNTAX_KINDS:
        table = tables.get(kind)
        if not isinstance(table, dict):
            problems.append(RuleProblem(file, f"[syntax.{kind}]", "", "is required"))
            continue
        entry = _Entry(table, file, f"[syntax.{kind}]", problems)
        entry.unknown_fields(("code", *with_translations(_SYNTAX_TEXTS)))
        values = [entry.text("code", required=True), *(read_text(table, name, file, entry.entry, problems, required=True) for name in _SYNTAX_TEXTS)]
        if values[0] and codes and values[0] not in codes:
            entry.problem("code", f"{values[0]} is not defined in rules/codes/")
        if all(values):
            rules.append((kind, SyntaxRule(*values)))
    return tuple(rules)


def _string_table(table: Any, file: str, label: str, problems: List[RuleProblem], required: Tuple[str, ...] = ()) -> Tuple[Tuple[str, str], ...]:
    if not isinstance(table, dict):
        problems.append(RuleProblem(file, label, "", "expected a table of strings"))
        return ()
    items = []
    for key, value in table.items():
        if isinstance(value, str) and value.strip():
            items.append((key, value))
        else:
            problems.append(RuleProblem(file, label, key, f"expected a non-empty string, got {value!r}"))
    for key in required:
        if key not in table:
            problems.append(RuleProblem(file, label, key, "is required"))
    return tuple(items)


def _vocabulary(table: Any, file: str, label: str, allowed: Tuple[str, ...], problems: List[RuleProblem]) -> Vocabulary:
    if not isinstance(table, dict):
        problems.append(RuleProblem(file, label, "", "expected a table of lists"))
        return Vocabulary()
    entry = _Entry(table, file, label, problems)
    entry.unknown_fields(allowed)
    return Vocabulary(tuple((name, frozenset(entry.strings(name))) for name in allowed if name in table))
