"""What msport says of a torch API no rule judges: where it searched MindSpore, and the way out.

The namespaces searched per torch module are data (rules/search.toml); the rule generator
infers a rule from a same-named API found there, so a torch API reaching this module has none
of the same kind. The note then names what exists under that name in another kind, or the
out-of-place API to assign from for an in-place name (``x.clamp_(...)``), or what was searched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

from .signatures import mindspore_entry
from .loader import RuleFileError, read_toml, rules_dir
from .shared import load_once
from .searched import SEARCHED_ON as SEARCHED_RELEASE

FILE_NAME = "search.toml"


@dataclass(frozen=True)
class SearchRules:
    namespaces: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    messages: Dict[str, str] = field(default_factory=dict)
    #: defining module -> public module (`torchvision.transforms.transforms` -> `torchvision.transforms`)
    reexports: Dict[str, str] = field(default_factory=dict)
    #: torch module -> the namespaces tools/search_counterparts.py searched and ran candidates of
    wide: Dict[str, Tuple[str, ...]] = field(default_factory=dict)

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
    return SearchRules({k: tuple(v) for k, v in data.get("namespaces", {}).items()}, dict(data.get("messages", {})),
                       dict(data.get("reexports", {})),
                       {k: tuple(v) for k, v in data.get("wide", {}).get("namespaces", {}).items()})


default_search = load_once(load_search)


class _Keep(dict):
    def __missing__(self, key):
        return "{" + key + "}"


def missing_note(torch_name: str, torch_kind: str, target_of: Callable[[str], Optional[str]]) -> str:
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
            key = "inplace_method" if module == "torch.Tensor" and "inplace_method" in messages else "inplace"
            return messages[key].format_map(_Keep(short=short, base=base, target=target, torch=torch_name, method=short[:-1]))
    spaces = rules.spaces_for(torch_name)
    wide = rules.wide.get(module)
    for space in spaces:
        found = f"{space}.{short}"
        entry = mindspore_entry(found)
        if entry is not None and entry[0] != "module":
            return messages["other_kind"].format_map(_Keep(found=found, kind=entry[0], torch=torch_name,
                                                           torch_kind=torch_kind, short=short))
    if wide and torch_kind in ("function", "method"):
        # Searched and run by tools/search_counterparts.py: nothing found gave torch's results.
        spaces = wide
    searched = ", ".join(spaces[:-1]) + (" and " if len(spaces) > 1 else "") + spaces[-1]
    if wide and torch_kind in ("function", "method"):
        return messages["searched_wide"].format_map(_Keep(searched=searched, short=short, torch=torch_name,
                                                          release=".".join(map(str, SEARCHED_RELEASE))))
    return messages["searched"].format_map(_Keep(searched=searched, short=short, torch=torch_name))


def internal_note() -> str:
    return default_search().messages["internal"]


def searched_note(found) -> str:
    """The note of a verdict msport's search of MindSpore found and ran (knowledge/searched.py)."""
    messages = default_search().messages
    calls = ", ".join(found.call_text(shape) for shape in found.calls)
    values = _Keep(torch=found.torch, found=found.form(), calls=calls, fixed=found.fixed,
                   release=".".join(map(str, SEARCHED_RELEASE)))
    if found.verdict == "equivalent":
        note = messages["searched_composed" if found.fixed else "searched_equal"].format_map(values)
    else:
        differs = "; ".join(f"for {found.call_text(shape)} {what.strip()}" for shape, _, what in (d.partition(":") for d in found.differs))
        key = "searched_differs" if calls else "searched_differs_only"
        note = messages[key].format_map(_Keep(values, differs=differs))
    if found.keywords and any("=" not in shape for shape in found.calls):
        note = messages["searched_keywords"].format_map(_Keep(values, note=note, keywords=_keyword_runs(found),
                                                              names=", ".join(found.keywords_not_served())))
    return note


def searched_keyword_note(found) -> str:
    """The note for a call passing by keyword an argument the found counterpart was run with and
    did not serve under torch's name (`x.f(dim=1)` where only `x.f(1)` was equal)."""
    messages = default_search().messages
    calls = ", ".join(found.call_text(shape) for shape in found.calls)
    return messages["searched_keyword_call"].format_map(_Keep(
        found=found.form(), calls=calls, keywords=_keyword_runs(found), names=", ".join(found.keywords_not_served()),
        release=".".join(map(str, SEARCHED_RELEASE))))


def _keyword_runs(found) -> str:
    return "; ".join(f"{found.call_text(shape)} {what.strip().removeprefix('it ')}" for shape, _, what in (k.partition(":") for k in found.keywords))
