"""Counterparts msport found by searching MindSpore for torch APIs no rule maps, and ran.

tools/search_counterparts.py looks for every torch function or Tensor method reported missing
in the namespaces of rules/search.toml [wide] (normalised names, synonyms), runs each candidate
against torch on generated inputs, and writes rules/searched.toml. A counterpart equal for the
calls torch accepts becomes an equivalent verdict (MS103), one that runs but differs a
divergent one naming what differs (MS102), on the release and backends the search ran for.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from .loader import RuleFileError, read_toml, rules_dir
from .shared import load_once

FILE_NAME = "searched.toml"
#: The release the candidates were run on: what exists and behaves so in it.
SEARCHED_ON = (2, 10)


@dataclass(frozen=True)
class Found:
    torch: str
    mindspore: str
    verdict: str  # "equivalent" | "divergent"
    calls: Tuple[str, ...]  # call shapes with equal results ("x", "x, y", "i": int64)
    differs: Tuple[str, ...]  # "<shape>: <what differed>"
    backends: Tuple[str, ...]
    #: Arguments the counterpart is called with after the torch call's own (a composition:
    #: `mindspore.ops.svd(x, compute_uv=False)` for `torch.linalg.svdvals(x)`), or "".
    fixed: str = ""
    #: How the search found it: name, spelling, torch alias, MindSpore docstring, composition.
    via: str = ""
    #: Keyword calls that are not equal as written ("x, dim=1: it raises").
    keywords: Tuple[str, ...] = ()

    def form(self) -> str:
        """The proven call: `mindspore.ops.svd(x, compute_uv=False)`, or the API's name."""
        return f"{self.mindspore}(x, {self.fixed})" if self.fixed else self.mindspore

    def keywords_not_served(self) -> Tuple[str, ...]:
        """The keyword names whose calls were run and were not equal (`dim` of "x, dim=1: ...")."""
        names = []
        for item in self.keywords:
            shape = item.partition(":")[0]
            names.extend(part.partition("=")[0].strip() for part in shape.split(", ") if "=" in part)
        return tuple(dict.fromkeys(names))

    def call_text(self, shape: str) -> str:
        """`torch.clamp_max(x, y)` / `x.clamp_max(y)` for the call shape *shape*."""
        module, _, short = self.torch.rpartition(".")
        first, _, rest = shape.partition(", ")
        if module == "torch.Tensor":
            return f"{first}.{short}({rest})"
        return f"{self.torch}({shape})"


def load_searched(directory: Optional[Path] = None) -> Dict[str, Found]:
    try:
        data = read_toml((directory or rules_dir()) / FILE_NAME)
    except RuleFileError:
        return {}
    return {torch: Found(torch, entry["found"], entry["verdict"], tuple(entry.get("calls", ())),
                         tuple(entry.get("differs", ())), tuple(entry.get("backends", ())), entry.get("fixed", ""),
                         entry.get("via", ""), tuple(entry.get("keywords", ())))
            for torch, entry in data.items()}


default_searched = load_once(load_searched)


def searched_counterpart(torch: str, version, backend: str) -> Optional[Found]:
    """The counterpart found and run for *torch*, when it holds for *version* and *backend*."""
    found = default_searched().get(torch)
    if found is None or tuple(version) != SEARCHED_ON or backend not in found.backends:
        return None
    return found
