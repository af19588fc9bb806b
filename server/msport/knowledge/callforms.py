"""Verdicts per call form (rules/callforms.toml) and the forms proven by running them
(rules/proven_callforms.toml).

A verdict on an API name says what its usual call becomes; a call form refines it for the
call as written: ``nn.ReLU()`` is a rename, ``nn.ReLU(inplace=True)`` needs ``inplace``
dropped, ``torch.zeros(2, 3)`` needs its sizes in one tuple, ``torch.zeros(n, out=buf)`` has
no counterpart. Each form is data: the APIs and targets it concerns, a condition on the call
(matcher kinds are interpreted by analysis/call_forms.py), a verdict, the rewrite that makes
the call equivalent, and a message template. Validated on load like every rule file.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Tuple

from .loader import RuleFileError, RuleProblem, entries, file_problem, read_toml, rules_dir
from .rule_texts import RuleText, read_text, read_texts, with_translations
from .shared import load_once

FILE_NAME = "callforms.toml"
PROVEN_FILE = "proven_callforms.toml"

#: What a form makes of the call: nothing to change beyond the rename, a rewrite that makes it
#: equivalent, a difference the user must handle, or no counterpart for this form at all.
VERDICTS = ("equivalent", "rewrite", "divergent", "missing")
#: Conditions on a call; analysis/call_forms.py interprets each (all given must hold).
MATCHERS = ("keyword", "absent", "value", "equals", "lacking", "varargs", "inside", "dtype",
            "unused_result", "kind", "target_has", "renamed", "backend", "result_attribute", "at_default", "present", "first")
VALUE_KINDS = ("true", "false", "bool", "int", "float", "number", "str", "none", "list", "tuple",
               "sequence", "literal", "variable", "generator", "dtype", "device", "tensor")
INSIDE = ("torch-container",)
DTYPES = ("int", "bool", "complex", "float")
API_KINDS = ("class", "function", "method")
#: Rewrites; analysis/call_forms.py builds the edits.
REWRITES = ("drop", "rename", "tuple", "float", "as_tuple", "set", "retarget", "to_keyword",
            "value_map", "legacy_reduction", "cast_input", "rule_rename", "wrap_float", "wrap_tuple", "complement", "as_list")
#: The call shapes the prover runs (PaConvert's five, and the literal/variable variation).
SHAPES = ("positional", "keyword", "shuffled", "defaults", "variables")

#: The templates every finding and fix title of MS101-MS103 is written from.
MESSAGES = ("equivalent", "equivalent_note", "divergent", "divergent_measured", "missing", "missing_elsewhere",
            "call", "call_divergent", "call_divergent_api", "call_equivalent", "call_rewritten", "fix_rename", "fix_rewrite", "reason_version",
            "reason_form_unproven", "where", "defaults_passed", "defaults_agree", "defaults_differ", "defaults_unrun",
            "defaults_differ_pass")
#: Why-unsafe clauses shared with the other fixes are in the message catalogue (rules/messages/fixes.toml).
_TEXT_FIELDS = ("message", "title", "unsafe")
_FORM_FIELDS = ("id", "torch", "targets", "when", "verdict", "rewrite", "example", *with_translations(_TEXT_FIELDS))


@dataclass(frozen=True)
class Rewrite:
    op: str
    args: Tuple[Any, ...]  # the op's operands, as written in the rule


@dataclass(frozen=True)
class CallForm:
    id: str
    torch: Tuple[str, ...]  # qualified torch names; "*" for any API
    targets: Tuple[str, ...]  # fnmatch patterns of MindSpore targets; empty for any
    when: Tuple[Tuple[str, Any], ...]
    verdict: str
    message: RuleText  # in every language
    rewrites: Tuple[Rewrite, ...] = ()
    title: str = ""  # what the fix does, for its title ("drop inplace="): a RuleText where given
    example: Tuple[Tuple[str, Any], ...] = ()  # for the prover: call, input, ...
    origin: str = ""
    #: Why the rewrite stays unsafe whatever was proven (it assumes what the code does not say,
    #: such as a variable holding an int): the fix's reason, with {value}.
    unsafe: str = ""

    @property
    def generic(self) -> bool:
        return "*" in self.torch

    def condition(self, name: str, default: Any = None) -> Any:
        return dict(self.when).get(name, default)

    def concerns(self, torch: str, target: Optional[str]) -> bool:
        if not self.generic and torch not in self.torch:
            return False
        if self.targets and (target is None or not any(fnmatch.fnmatchcase(target, p) for p in self.targets)):
            return False
        return True


@dataclass(frozen=True)
class DtypeHints:
    """Where code says an expression's dtype class (analysis/dtype_hints.py reads these)."""

    functions: Dict[str, str] = field(default_factory=dict)  # qualified -> dtype class of the result
    methods: Dict[str, str] = field(default_factory=dict)  # x.long() -> int
    dtype_names: Dict[str, str] = field(default_factory=dict)  # torch.long -> int
    integer_when_int_args: FrozenSet[str] = frozenset()  # torch.arange(5) -> int
    same_as_input: FrozenSet[str] = frozenset()


@dataclass(frozen=True)
class CallForms:
    forms: Tuple[CallForm, ...] = ()
    problems: Tuple[RuleProblem, ...] = ()
    dtype_hints: DtypeHints = DtypeHints()
    #: Torch classes a layer is placed in (nn.Sequential(...)): a MindSpore cell must not be.
    torch_containers: FrozenSet[str] = frozenset()
    #: Calls that only pass their arguments on into a container (OrderedDict([...]), dict(...)).
    container_builders: FrozenSet[str] = frozenset()
    #: Attributes that are equivalent where they are passed on to a call (x.device).
    passed_on: FrozenSet[str] = frozenset()
    #: Message and fix-title templates of the MS1xx findings ([messages]), in every language.
    messages: Dict[str, RuleText] = field(default_factory=dict)
    #: (form id, torch, MindSpore) -> the shapes the prover ran with equal results.
    proven: Dict[Tuple[str, str, str], FrozenSet[str]] = field(default_factory=dict)
    #: (form id, torch, MindSpore) -> (positional arguments, keywords) of the calls run.
    proven_calls: Dict[Tuple[str, str, str], FrozenSet[Tuple[int, FrozenSet[str]]]] = field(default_factory=dict)
    _by_api: Dict[str, Tuple[CallForm, ...]] = field(default_factory=dict, repr=False)
    _generic: Tuple[CallForm, ...] = ()

    def __post_init__(self) -> None:
        by_api: Dict[str, List[CallForm]] = {}
        for form in self.forms:
            for name in form.torch:
                if name != "*":
                    by_api.setdefault(name, []).append(form)
        object.__setattr__(self, "_by_api", {k: tuple(v) for k, v in by_api.items()})
        object.__setattr__(self, "_generic", tuple(f for f in self.forms if f.generic))

    def for_api(self, torch: str, target: Optional[str]) -> Tuple[CallForm, ...]:
        """The forms that may apply to a call of *torch* ported to *target*: the API's own
        first (in file order), then the generic ones."""
        own = self._by_api.get(torch, ())
        return tuple(f for f in own + self._generic if f.concerns(torch, target))

    def templates(self, language: str) -> Dict[str, str]:
        """The [messages] templates in *language*."""
        return {name: text.in_language(language) for name, text in self.messages.items()}

    def proven_shapes(self, form: str, torch: str, mindspore: Optional[str]) -> FrozenSet[str]:
        return self.proven.get((form, torch, mindspore or ""), frozenset())

    def proven_call_shapes(self, form: str, torch: str, mindspore: Optional[str]):
        """(positional arguments, keywords) of the calls run for the triple."""
        return self.proven_calls.get((form, torch, mindspore or ""), frozenset())

    def by_id(self, form_id: str) -> Optional[CallForm]:
        return next((f for f in self.forms if f.id == form_id), None)


def _form(entry, problems: List[RuleProblem]) -> Optional[CallForm]:
    entry.unknown_fields(_FORM_FIELDS)
    form_id = entry.text("id", required=True)
    verdict = entry.text("verdict", required=True, choices=VERDICTS)
    message = read_text(entry.table, "message", entry.file, entry.entry, problems, required=True)
    torch = entry.strings("torch")
    if not torch:
        entry.problem("torch", "name at least one torch API (or \"*\" for every API)")
    targets = entry.strings("targets")
    when = entry.table.get("when", {})
    if not isinstance(when, dict):
        entry.problem("when", f"expected an inline table of conditions, got {when!r}")
        when = {}
    for key, value in when.items():
        if key not in MATCHERS:
            entry.problem(f"when.{key}", f"unknown condition; expected one of {', '.join(MATCHERS)}")
        elif key == "value" and value not in VALUE_KINDS:
            entry.problem("when.value", f"expected one of {', '.join(VALUE_KINDS)}, got {value!r}")
        elif key == "inside" and value not in INSIDE:
            entry.problem("when.inside", f"expected one of {', '.join(INSIDE)}, got {value!r}")
        elif key == "dtype" and value not in DTYPES:
            entry.problem("when.dtype", f"expected one of {', '.join(DTYPES)}, got {value!r}")
        elif key == "kind" and value not in API_KINDS:
            entry.problem("when.kind", f"expected one of {', '.join(API_KINDS)}, got {value!r}")
    if ("value" in when or "equals" in when or "lacking" in when or "renamed" in when) and "keyword" not in when:
        entry.problem("when", "'value', 'equals' and 'lacking' need the 'keyword' they are about")
    rewrites: List[Rewrite] = []
    raw = entry.table.get("rewrite", [])
    if not isinstance(raw, list):
        entry.problem("rewrite", "expected a list of inline tables such as { drop = \"inplace\" }")
        raw = []
    for position, item in enumerate(raw):
        if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in REWRITES:
            entry.problem(f"rewrite[{position}]", f"expected one of {', '.join(REWRITES)} as the table's only key, got {item!r}")
            continue
        op, value = next(iter(item.items()))
        rewrites.append(Rewrite(op, tuple(value) if isinstance(value, list) else (value,)))
    if verdict == "rewrite" and not rewrites:
        entry.problem("rewrite", "a 'rewrite' verdict needs the rewrite")
    if verdict in ("equivalent", "missing") and rewrites:
        entry.problem("rewrite", f"a '{verdict}' verdict makes no rewrite")
    example = entry.table.get("example", {})
    if not isinstance(example, dict):
        entry.problem("example", f"expected an inline table, got {example!r}")
        example = {}
    title = read_text(entry.table, "title", entry.file, entry.entry, problems) or ""
    if verdict == "rewrite" and not title:
        entry.problem("title", "a rewrite needs a title saying what it changes (the fix's title)")
    unsafe = read_text(entry.table, "unsafe", entry.file, entry.entry, problems) or ""
    if unsafe and verdict != "rewrite":
        entry.problem("unsafe", "only a rewrite has a fix whose safety it can say")
    if not (form_id and verdict and message and torch):
        return None
    return CallForm(form_id, torch, targets, tuple(sorted(when.items())), verdict, message, tuple(rewrites),
                    title, tuple(sorted(example.items())), f"{entry.file}, {entry.entry}", unsafe)


def load_callforms(directory: Optional[Path] = None) -> CallForms:
    directory = directory or rules_dir()
    path = directory / FILE_NAME
    problems: List[RuleProblem] = []
    if not path.is_file():
        return CallForms()
    try:
        data = read_toml(path)
    except RuleFileError as exc:
        return CallForms(problems=(file_problem(FILE_NAME, exc),))
    forms: List[CallForm] = []
    seen = set()
    for entry in entries(data.get("form", []), FILE_NAME, "form", "id", problems):
        before = len(problems)
        form = _form(entry, problems)
        if form is not None and form.id in seen:
            entry.problem("id", f"duplicate form id {form.id}")
            continue
        if form is not None and len(problems) == before:
            seen.add(form.id)
            forms.append(form)
    hints = data.get("dtype_hints", {})
    dtype_hints = DtypeHints(
        functions=_string_map(hints.get("functions", {}), "dtype_hints.functions", problems),
        methods=_string_map(hints.get("methods", {}), "dtype_hints.methods", problems),
        dtype_names=_string_map(hints.get("dtype_names", {}), "dtype_hints.dtype_names", problems),
        integer_when_int_args=frozenset(hints.get("integer_when_int_args", [])),
        same_as_input=frozenset(hints.get("same_as_input", [])),
    )
    messages = read_texts(data.get("messages", {}), FILE_NAME, "[messages]", MESSAGES, problems)
    return CallForms(forms=tuple(forms), problems=tuple(problems), dtype_hints=dtype_hints,
                     torch_containers=frozenset(data.get("torch_containers", [])), messages=messages,
                     container_builders=frozenset(data.get("container_builders", [])),
                     passed_on=frozenset(data.get("passed_on", [])),
                     **_load_proven(directory / PROVEN_FILE))


def _string_map(table: Any, label: str, problems: List[RuleProblem]) -> Dict[str, str]:
    if not isinstance(table, dict) or not all(isinstance(v, str) and v in DTYPES for v in table.values()):
        problems.append(RuleProblem(FILE_NAME, label, "", f"expected a table of name = one of {', '.join(DTYPES)}"))
        return {}
    return dict(table)


def _load_proven(path: Path) -> Dict[str, Dict]:
    """{"proven": shapes per triple, "proven_calls": call shapes per triple}."""
    if not path.is_file():
        return {}
    try:
        data = read_toml(path)
    except RuleFileError:
        return {}  # an unreadable file proves nothing: every form rewrite stays unsafe
    from .proven import call_shape

    proven: Dict[Tuple[str, str, str], FrozenSet[str]] = {}
    calls: Dict[Tuple[str, str, str], FrozenSet] = {}
    for item in data.get("proven", []):
        if not isinstance(item, Mapping) or not all(isinstance(item.get(k), str) for k in ("form", "torch", "mindspore")):
            continue
        shapes = frozenset(s for s in item.get("shapes", []) if s in SHAPES)
        key = (item["form"], item["torch"], item["mindspore"])
        proven[key] = proven.get(key, frozenset()) | shapes
        found = {call_shape(c) for c in item.get("calls", []) if isinstance(c, str)}
        calls[key] = calls.get(key, frozenset()) | frozenset(s for s in found if s is not None)
    return {"proven": proven, "proven_calls": calls}


default_callforms = load_once(load_callforms)
