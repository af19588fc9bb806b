"""How PyTorch parameters are named and shaped in MindSpore layers (rules/weights.toml).

Loaded once and validated like every rule file: each problem names the file, the entry and the
field. The converter (``msport.weights``) reads it; nothing here imports torch or mindspore.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

from .loader import RuleFileError, RuleProblem, entries, file_problem, read_toml, rules_dir
from .messages import DEFAULT_LANGUAGE
from .rule_texts import SUFFIXES as _TRANSLATIONS, RuleText, in_language, read_texts
from .shared import load_once

#: The field-name endings of the translations of a text (message_zh-CN).
SUFFIXES = tuple(suffix for _, suffix in _TRANSLATIONS)

FILE_NAME = "weights.toml"
#: How a PyTorch value is reshaped into a MindSpore parameter (see ``msport.weights.mapping``).
RESHAPES = ("insert-axis-2",)
#: How a rule is proven on CPU: by the layer's outputs, or (no CPU kernel) by loading alone.
PROOFS = ("outputs", "load")
_FIELDS = ("mindspore", "torch", "names", "children", "reshape", "dropped", "unused", "frozen", "proof")


@dataclass(frozen=True)
class LayerWeights:
    """The naming of one MindSpore layer's parameters, relative to the layer."""

    mindspore: str
    torch: Tuple[str, ...] = ()
    names: Tuple[Tuple[str, str], ...] = ()  # MindSpore attribute -> PyTorch key
    children: Tuple[Tuple[str, str], ...] = ()  # MindSpore child -> PyTorch child ("" = the layer itself)
    reshape: Tuple[Tuple[str, str], ...] = ()  # MindSpore attribute -> reshape kind
    dropped: Tuple[str, ...] = ()
    unused: Tuple[str, ...] = ()
    #: parameters MindSpore builds frozen (not trainable, at their initial value) where the PyTorch
    #: layer has none: BatchNorm's gamma and beta with affine=False
    frozen: Tuple[str, ...] = ()
    proof: str = "outputs"

    def torch_key(self, attribute: str) -> str:
        return dict(self.names).get(attribute, attribute)

    def torch_child(self, child: str) -> str:
        return dict(self.children).get(child, child)

    def reshape_of(self, attribute: str) -> Optional[str]:
        return dict(self.reshape).get(attribute)


@dataclass(frozen=True)
class WeightRules:
    layers: Dict[str, LayerWeights] = field(default_factory=dict)  # by qualified MindSpore class
    containers: Tuple[str, ...] = ()
    messages: Dict[str, RuleText] = field(default_factory=dict)
    problems: Tuple[RuleProblem, ...] = ()

    def message(self, key: str, language: str = DEFAULT_LANGUAGE, **values) -> str:
        """The message *key* of rules/weights.toml in *language*, with its placeholders filled."""
        return in_language(self.messages[key], language).format(**values)


def load_weight_rules(directory: Optional[Path] = None) -> WeightRules:
    directory = directory or rules_dir()
    problems: List[RuleProblem] = []
    try:
        data = read_toml(directory / FILE_NAME)
    except RuleFileError as exc:
        return WeightRules(problems=(file_problem(FILE_NAME, exc),))
    layers: Dict[str, LayerWeights] = {}
    for entry in entries(data.get("layer", []), FILE_NAME, "layer", "mindspore", problems):
        entry.unknown_fields(_FIELDS)
        name = entry.text("mindspore", required=True)
        if name is None:
            continue
        if not name.startswith("mindspore."):
            entry.problem("mindspore", f"expected a qualified MindSpore class, got {name!r}")
            continue
        if name in layers:
            entry.problem("mindspore", f"duplicate layer {name}")
            continue
        tables = {key: _string_table(entry, key) for key in ("names", "children", "reshape")}
        for attribute, kind in tables["reshape"]:
            if kind not in RESHAPES:
                entry.problem("reshape", f"{attribute}: expected one of {', '.join(RESHAPES)}, got {kind!r}")
        layers[name] = LayerWeights(
            mindspore=name, torch=entry.strings("torch"), dropped=entry.strings("dropped"), unused=entry.strings("unused"), frozen=entry.strings("frozen"),
            proof=entry.text("proof", choices=PROOFS) or "outputs", **tables,
        )
    checkpoint = data.get("checkpoint", {})
    containers = checkpoint.get("containers", []) if isinstance(checkpoint, Mapping) else None
    if not isinstance(containers, list) or not all(isinstance(c, str) for c in containers):
        problems.append(RuleProblem(FILE_NAME, "checkpoint", "containers", "expected a list of key names"))
        containers = []
    table = data.get("messages", {})
    keys = [key for key in table if not key.endswith(SUFFIXES)] if isinstance(table, Mapping) else []
    messages = read_texts(table, FILE_NAME, "[messages]", keys, problems)
    return WeightRules(layers, tuple(containers), messages, tuple(problems))


def _string_table(entry, key: str) -> Tuple[Tuple[str, str], ...]:
    value = entry.table.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        entry.problem(key, f"expected a table of name = \"name\", got {value!r}")
        return ()
    return tuple(sorted(value.items()))


default_weight_rules = load_once(load_weight_rules)
