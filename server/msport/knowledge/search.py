"""What msport says of a torch API no rule judges: where it searched MindSpore, and the way out.

The namespaces searched per torch module are data (rules/search.toml); the rule generator
infers a rule from a same-named API found there, so a torch API reaching this module has none
of the same kind. The note then names what exists under that name in another kind, or the
out-of-place API to assign from for an in-place name (``x.clamp_(...)``), or what was searched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from .signatures import mindspore_entry
from .loader import RuleFileError, RuleProblem, read_toml, rules_dir
from .messages import CHINESE, DEFAULT_LANGUAGE
from .rule_texts import SUFFIXES, RuleText, read_texts
from .shared import load_once
from .searched import SEARCHED_ON as SEARCHED_RELEASE

FILE_NAME = "search.toml"
#: The templates of [messages], each with its Simplified Chinese (messages_zh-CN beside it).
MESSAGES = ("inplace", "inplace_method", "other_kind", "searched", "searched_wide", "searched_equal",
            "searched_differs", "searched_differs_only", "searched_composed", "searched_keywords",
            "searched_keyword_call", "internal", "differs_call")


@dataclass(frozen=True)
class SearchRules:
    namespaces: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    messages: Dict[str, RuleText] = field(default_factory=dict)
    #: defining module -> public module (`torchvision.transforms.transforms` -> `torchvision.transforms`)
    reexports: Dict[str, str] = field(default_factory=dict)
    #: torch module -> the namespaces tools/search_counterparts.py searched and ran candidates of
    wide: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    #: An outcome of rules/searched.toml ("it raises") -> its Chinese.
    outcomes: Dict[str, str] = field(default_factory=dict)
    problems: Tuple[RuleProblem, ...] = ()

    def public_name(self, torch_name: str) -> Optional[str]:
        """*torch_name* spelt from its public module, where it was written from the defining one."""
        module, _, short = torch_name.rpartition(".")
        public = self.reexports.get(module)
        return f"{public}.{short}" if public else None

    def spaces_for(self, torch_name: str) -> Tuple[str, ...]:
        module = torch_name.rpartition(".")[0]
        while module:
            if module in self.namespaces:
                return self.namespaces[module] or ("mindspore",)
            module = module.rpartition(".")[0]
        return ("mindspore",)


def load_search(directory: Optional[Path] = None) -> SearchRules:
    path = (directory or rules_dir()) / FILE_NAME
    try:
        data = read_toml(path)
    except RuleFileError:
        return SearchRules()
    problems: List[RuleProblem] = []
    messages = read_texts(data.get("messages", {}), FILE_NAME, "messages", MESSAGES, problems)
    return SearchRules({k: tuple(v) for k, v in data.get("namespaces", {}).items()}, messages,
                       dict(data.get("reexports", {})),
                       {k: tuple(v) for k, v in data.get("wide", {}).get("namespaces", {}).items()},
                       dict(data.get("outcomes", {})), tuple(problems))


default_search = load_once(load_search)


class _Keep(dict):
    def __missing__(self, key):
        return "{" + key + "}"


def _run_in(items: Tuple[str, ...], language: str) -> str:
    """Namespaces as a run-in list with its last joint: "a, b and c" / "a、b 和 c"."""
    comma, last = ("、", " 和 ") if language == CHINESE else (", ", " and ")
    return comma.join(items[:-1]) + last + items[-1] if len(items) > 1 else "".join(items)


def _said(template: RuleText, **values) -> RuleText:
    """*template* filled in every language; a tuple value is a run-in list ("a, b and c" / "a、b 和 c")."""
    def text(language: str) -> str:
        filled = {k: _run_in(v, language) if isinstance(v, tuple) else v.get(language, v[DEFAULT_LANGUAGE]) if isinstance(v, dict) else v
                  for k, v in values.items()}
        return template.in_language(language).format_map(_Keep(filled))
    return RuleText(text(DEFAULT_LANGUAGE), [(language, text(language)) for language, _ in SUFFIXES])


def missing_note(torch_name: str, torch_kind: str, target_of: Callable[[str], Optional[str]]) -> RuleText:
    """The note of an MS101 for *torch_name* (a public torch API with no rule). *target_of*
    gives the MindSpore target msport ports another torch API to (for in-place names)."""
    rules = default_search()
    messages = rules.messages
    module, _, short = torch_name.rpartition(".")
    if short.endswith("_") and not short.endswith("__"):
        base = f"{module}.{short[:-1]}"
        target = target_of(base)
        if target:
            # `x.neg_()`: the out-of-place method on the same receiver, not torch.Tensor.neg(x, ...)
            key = "inplace_method" if module == "torch.Tensor" else "inplace"
            return _said(messages[key], short=short, base=base, target=target, torch=torch_name, method=short[:-1])
    spaces = rules.spaces_for(torch_name)
    wide = rules.wide.get(module)
    for space in spaces:
        found = f"{space}.{short}"
        entry = mindspore_entry(found)
        if entry is not None and entry[0] != "module":
            return _said(messages["other_kind"], found=found, kind=entry[0], torch=torch_name, torch_kind=torch_kind, short=short)
    if wide and torch_kind in ("function", "method"):
        # Searched and run by tools/search_counterparts.py: nothing found gave torch's results.
        return _said(messages["searched_wide"], searched=tuple(wide), short=short, torch=torch_name,
                     release=".".join(map(str, SEARCHED_RELEASE)))
    return _said(messages["searched"], searched=tuple(spaces), short=short, torch=torch_name)


def internal_note() -> RuleText:
    return default_search().messages["internal"]


def searched_note(found) -> RuleText:
    """The note of a verdict msport's search of MindSpore found and ran (knowledge/searched.py)."""
    rules = default_search()
    messages = rules.messages
    calls = ", ".join(found.call_text(shape) for shape in found.calls)
    values = dict(torch=found.torch, found=found.form(), calls=calls, fixed=found.fixed or "",
                  release=".".join(map(str, SEARCHED_RELEASE)))
    if found.verdict == "equivalent":
        note = _said(messages["searched_composed" if found.fixed else "searched_equal"], **values)
    else:
        differs = [_said(messages["differs_call"], call=found.call_text(shape), outcome=_outcome(rules, what))
                   for shape, _, what in (d.partition(":") for d in found.differs)]
        key = "searched_differs" if calls else "searched_differs_only"
        note = _said(messages[key], differs=_per_language(differs), **values)
    if found.keywords and any("=" not in shape for shape in found.calls):
        note = _said(messages["searched_keywords"], note=_per_language([note]), keywords=_keyword_runs(rules, found),
                     names=", ".join(found.keywords_not_served()))
    return note


def searched_keyword_note(found) -> RuleText:
    """The note for a call passing by keyword an argument the found counterpart was run with and
    did not serve under torch's name (`x.f(dim=1)` where only `x.f(1)` was equal)."""
    rules = default_search()
    calls = ", ".join(found.call_text(shape) for shape in found.calls)
    return _said(rules.messages["searched_keyword_call"], found=found.form(), calls=calls,
                 keywords=_keyword_runs(rules, found), names=", ".join(found.keywords_not_served()),
                 release=".".join(map(str, SEARCHED_RELEASE)))


def _outcome(rules: SearchRules, what: str) -> Dict[str, str]:
    """An outcome of rules/searched.toml ("it raises") in every language."""
    return {DEFAULT_LANGUAGE: what.strip(), CHINESE: rules.outcomes.get(what.strip(), what.strip())}


def _per_language(texts: List[RuleText]) -> Dict[str, str]:
    """*texts* joined as clauses, in every language."""
    return {language: ("；" if language == CHINESE else "; ").join(t.in_language(language) for t in texts)
            for language in (DEFAULT_LANGUAGE, *(lang for lang, _ in SUFFIXES))}


def _keyword_runs(rules: SearchRules, found) -> Dict[str, str]:
    """What each keyword call gave when run ("x.f(i, index=j) raises"), in every language."""
    runs = [(found.call_text(shape), _outcome(rules, what)) for shape, _, what in (k.partition(":") for k in found.keywords)]
    return {DEFAULT_LANGUAGE: "; ".join(f"{call} {said[DEFAULT_LANGUAGE].removeprefix('it ')}" for call, said in runs),
            CHINESE: "；".join(f"{call} {said[CHINESE]}" for call, said in runs)}
