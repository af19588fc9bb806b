"""Notes in msport's own words, built from structured facts (never from the tables' prose)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple

from .facts import DiffDetails, Row

#: note_category keyword of the official table -> what msport says about it.
CATEGORY_PHRASES = {
    "param_name": "some parameter names differ",
    "default_value": "a default value differs",
    "param_dtype": "the accepted input types differ",
    "param_count_or_order": "the number or order of parameters differs",
    "no_inplace": "there is no in-place variant (no inplace parameter)",
    "no_verbose": "there is no verbose parameter",
    "overload": "fewer call forms (overloads) are accepted",
    "missing_param_in_ms": "a parameter has no counterpart",
    "optimization_param": "the optimizer's parameters differ (check each hyper-parameter)",
}
#: Categories of a differences page that are not divergences by themselves: MindSpore-only
#: parameters left at their defaults, and the input tensor's parameter name.
NOT_DIVERGENT = {"extra_param_in_mindspore", "input_renamed_only"}


def _names(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _plural(items: Sequence[str], one: str, many: str) -> str:
    return one if len(items) == 1 else many


def rename_phrase(renamed: Sequence[Tuple[str, str]]) -> str:
    olds = [o for o, _ in renamed]
    news = [n for _, n in renamed]
    return f"{_plural(olds, 'parameter', 'parameters')} {_names(olds)} {_plural(olds, 'is', 'are')} named {_names(news)}"


def missing_phrase(missing: Sequence[str]) -> str:
    return f"MindSpore has no {_names(missing)} {_plural(missing, 'parameter', 'parameters')}"


def row_phrases(row: Row, details: Optional[DiffDetails], general: Iterable[str]) -> Tuple[List[str], Tuple[Tuple[str, str], ...]]:
    """What differs for one table row, and its parameter renames. No phrases: equivalent."""
    general = set(general)
    if row.status == "consistent":
        return [], ()
    if details is not None and row.status == "diff_page":
        phrases: List[str] = []
        renamed = tuple(details.renamed)
        if renamed:
            phrases.append(rename_phrase(renamed))
        missing = [p for p in details.missing if p not in general]
        if missing:
            phrases.append(missing_phrase(missing))
        if details.defaults:
            phrases.append(f"the default of {_names(details.defaults)} differs")
        if details.types:
            phrases.append(f"{_names(details.types)} {_plural(details.types, 'accepts', 'accept')} other types or shapes")
        if details.behaviour:
            phrases.append(f"{_names(details.behaviour)} {_plural(details.behaviour, 'behaves', 'behave')} differently")
        cats = set(details.categories)
        if "param_position_differs" in cats:
            phrases.append("parameters sit at other positions: pass them by keyword")
        if "input_differs" in cats:
            phrases.append("the inputs differ")
        if "output_differs" in cats:
            phrases.append("the return value differs")
        if "unstructured" in cats:
            phrases.append("the official differences page describes the difference in prose")
        # The table's keywords add what the page's structure did not already say.
        covered = {"param_name", "missing_param_in_ms"}
        if details.defaults:
            covered.add("default_value")
        if details.types:
            covered.add("param_dtype")
        if "param_position_differs" in cats:
            covered.add("param_count_or_order")
        for keyword in row.categories:
            phrase = CATEGORY_PHRASES.get(keyword)
            if phrase and keyword not in covered and phrase not in phrases:
                phrases.append(phrase)
        return _without_inplace_only(phrases), renamed
    phrases = [CATEGORY_PHRASES[k] for k in row.categories if k in CATEGORY_PHRASES]
    if "no_inplace" in row.categories or "no_verbose" in row.categories:
        phrases = [p for p in phrases if p != CATEGORY_PHRASES["missing_param_in_ms"]]
    if not phrases and row.categories == ("extra_ms_param",):
        return [], ()
    if not phrases:
        phrases = ["the official mapping table records a difference" + (" (see its differences page)" if row.diff_page else "")]
    return _without_inplace_only(phrases), ()


def _without_inplace_only(phrases: List[str]) -> List[str]:
    """No phrase where the missing inplace parameter is the only difference: that is a matter of
    the call (rules/callforms.toml drops inplace= where a call passes it, inplace-* forms), so a
    call without it is equivalent (nn.Dropout2d(0.5) -> mint.nn.Dropout2d(0.5), measured)."""
    return [] if phrases == [CATEGORY_PHRASES["no_inplace"]] else phrases


@dataclass(frozen=True)
class ParamDiff:
    """How two real signatures differ, position by position."""

    renamed: Tuple[Tuple[str, str], ...] = ()
    missing: Tuple[str, ...] = ()
    moved: Tuple[str, ...] = ()
    varargs: Tuple[str, ...] = ()  # torch takes these as *args, MindSpore as one value

    @property
    def same(self) -> bool:
        return not (self.renamed or self.missing or self.moved or self.varargs)

    def phrases(self) -> List[str]:
        out = []
        if self.renamed:
            out.append(rename_phrase(self.renamed))
        if self.missing:
            out.append(missing_phrase(self.missing))
        if self.moved:
            out.append(f"{_names(self.moved)} {_plural(self.moved, 'sits', 'sit')} at another position: pass {_plural(self.moved, 'it', 'them')} by keyword")
        if self.varargs:
            out.append(f"{_names(self.varargs)} {_plural(self.varargs, 'is', 'are')} separate arguments in PyTorch but one tuple in MindSpore")
        return out


OPAQUE = {"*args", "**kwargs"}


#: MindSpore's usual names for PyTorch's parameters: a parameter is paired with its synonym
#: wherever it sits, so that a reordered signature (torch.index_add(input, dim, index, source)
#: vs ops.index_add(x, indices, y, axis)) is not read as dim -> indices, index -> y, ...
SYNONYMS = {
    "input": ("x", "input_x"),
    "other": ("y", "x2"),
    "dim": ("axis",),
    "keepdim": ("keep_dims", "keepdims"),
    "index": ("indices",),
    "source": ("y", "updates", "src"),
    "src": ("updates", "y"),
}


def compare_params(torch_params: Optional[Sequence[str]], ms_params: Optional[Sequence[str]], general: Iterable[str]) -> Optional[ParamDiff]:
    """Compare two signatures from the snapshots; None when either cannot be compared.

    A PyTorch parameter is paired with the MindSpore parameter of the same name, else with a
    synonym (SYNONYMS), else with the one at its position, but only while the two signatures
    still line up (no parameter so far found elsewhere): past a reordering, position says
    nothing, and an unpaired parameter is reported as having no counterpart."""
    if torch_params is None or ms_params is None:
        return None
    general = set(general)
    # "Tensor" is an artifact of reading `-> Tensor` overload signatures, not a parameter.
    t = [p for p in torch_params if p not in ("self", "Tensor") and p.lstrip("*") not in general]
    m = [p for p in ms_params if p not in ("self", "Tensor")]
    if OPAQUE & set(t) or OPAQUE & set(m):
        return None
    t_names = [p.lstrip("*") for p in t]
    m_names = [p.lstrip("*") for p in m]
    taken = set(t_names) & set(m_names)
    renamed, missing, moved, varargs = [], [], [], []
    for index, name in enumerate(t_names):
        if name in m_names:
            j = m_names.index(name)
            if t[index].startswith("*") and not m[j].startswith("*"):
                varargs.append(name)
        else:
            j = next((m_names.index(s) for s in SYNONYMS.get(name, ()) if s in m_names and s not in taken), None)
            if j is None and not moved and index < len(m_names) and m_names[index] not in taken:
                j = index
            if j is None:
                missing.append(name)
                continue
            taken.add(m_names[j])
            renamed.append((name, m_names[j]))
        if j != index:
            moved.append(name)
    return ParamDiff(tuple(renamed), tuple(missing), tuple(moved), tuple(varargs))


def sentence(phrases: Sequence[str]) -> str:
    return "; ".join(dict.fromkeys(p for p in phrases if p))
