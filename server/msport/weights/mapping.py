"""The torch-name -> MindSpore-name and shape map of one ported model, read from the model itself.

The cells of the MindSpore model are walked from the root. Each cell has a PyTorch prefix (its
path in the PyTorch model); a cell whose class rules/weights.toml lists names its own parameters
and children the PyTorch way through that rule (``gamma`` <- ``weight``), any other cell keeps
PyTorch's names. So the map follows what the port actually uses: ``mint.nn.LayerNorm`` keeps
``weight``/``bias``, ``nn.LayerNorm`` has ``gamma``/``beta``.

The plan says, for every MindSpore parameter, which PyTorch tensor fills it and how it is
reshaped, and for every PyTorch tensor left over, why: dropped on purpose, tied to a converted
one, the same value as a plain tensor the model builds, or a problem.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple

from ..knowledge.weights import LayerWeights, WeightRules
from .errors import message


@dataclass(frozen=True)
class Slot:
    """One parameter of the MindSpore model and where its value comes from in PyTorch."""

    path: str  # structural path in the MindSpore model ("blocks.0.norm.gamma")
    parameter: Any  # the mindspore.Parameter (its .name is what the checkpoint stores)
    torch_key: str
    layer: Optional[LayerWeights]
    cell: str  # path of the cell holding it

    @property
    def attribute(self) -> str:
        return self.path.rpartition(".")[2]

    @property
    def reshape(self) -> Optional[str]:
        return self.layer.reshape_of(self.attribute) if self.layer else None

    @property
    def unused(self) -> bool:
        return bool(self.layer) and self.attribute in self.layer.unused

    @property
    def frozen(self) -> bool:
        """Built not trainable by the MindSpore layer (affine=False): its initial value is the one to keep."""
        return bool(self.layer) and self.attribute in self.layer.frozen and not self.parameter.requires_grad


@dataclass(frozen=True)
class Value:
    slot: Slot
    array: Any  # numpy, in the parameter's shape
    torch_shape: Tuple[int, ...]


@dataclass
class Plan:
    values: List[Value] = field(default_factory=list)
    kept: List[Slot] = field(default_factory=list)  # parameters left at their initial value, on purpose
    problems: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    prefix: str = ""  # stripped from every PyTorch key


@dataclass(frozen=True)
class _Cell:
    path: str
    torch_prefix: str
    cell: Any
    layer: Optional[LayerWeights]


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix and name else prefix or name


class ModelMap:
    """The slots of a MindSpore model, under the rules of rules/weights.toml."""

    def __init__(self, net, rules: WeightRules) -> None:
        self.rules = rules
        self._classes = _rule_classes(rules)
        self.cells: List[_Cell] = list(self._walk(net, "", "", set()))
        self.slots: List[Slot] = []
        seen = set()
        for item in self.cells:
            for attribute, parameter in item.cell.parameters_and_names(expand=False):
                if id(parameter) in seen:
                    continue  # a parameter shared by two cells is stored once, under its first path
                seen.add(id(parameter))
                torch_key = _join(item.torch_prefix, item.layer.torch_key(attribute) if item.layer else attribute)
                self.slots.append(Slot(_join(item.path, attribute), parameter, torch_key, item.layer, item.path))
        self.by_torch_prefix = {item.torch_prefix: item for item in self.cells}

    def shared_names(self) -> Dict[str, List[str]]:
        """Parameter names several parameters carry (name -> their paths): cells appended to a
        CellList after it was assigned are named relative to the list ("0.weight")."""
        paths: Dict[str, List[str]] = {}
        for slot in self.slots:
            paths.setdefault(slot.parameter.name, []).append(slot.path)
        return {name: found for name, found in paths.items() if len(found) > 1}

    def name_by_path(self) -> None:
        """Each parameter named by its path in the model, so that names are unique."""
        for slot in self.slots:
            slot.parameter.name = slot.path

    def _walk(self, cell, path: str, torch_prefix: str, seen: set) -> Iterator[_Cell]:
        if id(cell) in seen:
            return
        seen.add(id(cell))
        layer = self.layer_of(cell)
        yield _Cell(path, torch_prefix, cell, layer)
        for name, child in cell.name_cells().items():
            if child is None:
                continue
            torch_name = layer.torch_child(name) if layer else name
            yield from self._walk(child, _join(path, name), _join(torch_prefix, torch_name), seen)

    def layer_of(self, cell) -> Optional[LayerWeights]:
        for cls in type(cell).__mro__:
            layer = self._classes.get(cls)
            if layer is not None:
                return layer
        return None


def _rule_classes(rules: WeightRules) -> Dict[type, LayerWeights]:
    """The class objects of the rules' MindSpore names (a name this release lacks is skipped)."""
    import importlib

    classes = {}
    for name, layer in rules.layers.items():
        module_name, _, class_name = name.rpartition(".")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError):
            continue
        classes[cls] = layer
    return classes


def plan(model: ModelMap, state: Dict[str, Any], checkpoint: str, model_name: str) -> Plan:
    """Which PyTorch tensor (a ``torch.Tensor`` of *state*) fills each MindSpore parameter."""
    result = Plan()
    prefix = _wrapper_prefix(model, state)
    if prefix:
        state = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
        result.prefix = prefix
        result.notes.append(message("prefix_stripped", path=checkpoint, prefix=prefix))
    lazy = [key for key, tensor in state.items() if _is_lazy(tensor)]
    for key in lazy:
        result.problems.append(message("lazy_value", torch_key=key))
    state = {key: tensor for key, tensor in state.items() if key not in lazy}
    used: Dict[str, str] = {}
    missing: List[Slot] = []
    for slot in model.slots:
        tensor = state.get(slot.torch_key)
        if tensor is None:
            if slot.unused:
                result.kept.append(slot)
                result.notes.append(message("unused_param", name=slot.path, layer=_short(slot.layer.mindspore)))
            elif slot.frozen:
                result.kept.append(slot)
                result.notes.append(message("frozen_param", name=slot.path, layer=_short(slot.layer.mindspore)))
            else:
                missing.append(slot)
            continue
        used[slot.torch_key] = slot.path
        value = _fit(tensor, slot)
        if value is None:
            result.problems.append(message("shape_mismatch", torch_key=slot.torch_key, torch_shape=_shape(tensor.shape),
                                           name=slot.path, ms_shape=_shape(slot.parameter.shape)))
            continue
        result.values.append(Value(slot, value, tuple(tensor.shape)))
    unmapped = _explain_leftovers(model, state, used, result)
    paired = _by_order(missing, unmapped, state) if used else None
    if paired is None:
        result.problems += [message("missing_value", name=slot.path, torch_key=slot.torch_key) for slot in missing]
        result.problems += [problem for _, problem in unmapped]
    else:
        for slot, key, value in paired:
            result.values.append(Value(slot, value, tuple(state[key].shape)))
            result.notes.append(message("order_matched", torch_key=key, name=slot.path, shape=_shape(value.shape)))
    if state and not used and model.slots:
        result.problems[:] = [message(
            "nothing_matches", checkpoint=checkpoint, model=model_name, count=len(state), name=model_name,
            torch_sample=", ".join(list(state)[:3]), ms_sample=", ".join(s.torch_key for s in model.slots[:3]),
        )]
    return result


def _wrapper_prefix(model: ModelMap, state: Dict[str, Any]) -> str:
    """A first key part every key shares and no parameter path has ('module.' of DataParallel)."""
    expected = {slot.torch_key for slot in model.slots}
    if not state or expected & set(state):
        return ""
    first = {key.split(".", 1)[0] for key in state}
    if len(first) != 1 or any("." not in key for key in state):
        return ""
    prefix = first.pop() + "."
    return prefix if expected & {key[len(prefix):] for key in state} else ""


def _fit(tensor, slot: Slot):
    """The tensor's values as a numpy array of the parameter's shape, or None when they do not fit."""
    array = _numpy(tensor)
    target = tuple(slot.parameter.shape)
    if slot.reshape == "insert-axis-2" and array.ndim == 3:
        array = array.reshape(array.shape[:2] + (1,) + array.shape[2:])
    if tuple(array.shape) != target:
        return None
    return array


def _numpy(tensor):
    import torch

    value = tensor.detach().cpu()
    if value.dtype == torch.bfloat16:  # numpy has no bfloat16: carried as float32, cast when written
        value = value.float()
    return value.numpy()


def _explain_leftovers(model: ModelMap, state: Dict[str, Any], used: Dict[str, str], result: Plan) -> List[Tuple[str, str]]:
    """Notes on the PyTorch tensors no parameter took by name (dropped on purpose, tied, a plain
    tensor of the model); the others, in checkpoint order, with the problem each would be."""
    unmapped: List[Tuple[str, str]] = []
    converted = {_storage(state[key]): key for key in used}
    for key, tensor in state.items():
        if key in used:
            continue
        cell_prefix, _, leaf = key.rpartition(".")
        owner = model.by_torch_prefix.get(cell_prefix)
        if owner is not None and owner.layer is not None and leaf in owner.layer.dropped:
            result.notes.append(message("dropped_key", torch_key=key, layer=_short(owner.layer.mindspore)))
            continue
        twin = converted.get(_storage(tensor))
        if twin is not None:
            result.notes.append(message("tied_key", torch_key=key, other=twin))
            continue
        plain = _plain_tensor(owner, leaf)
        if plain is not None:
            difference = _difference(_numpy(tensor), plain)
            if difference == 0:
                result.notes.append(message("plain_tensor_same", torch_key=key))
            else:
                result.problems.append(message("plain_tensor_differs", torch_key=key, difference=difference))
            continue
        if leaf == "bias" and owner is not None and not any(s.cell == owner.path and s.attribute == "bias" for s in model.slots):
            unmapped.append((key, message("unmapped_bias_hint", torch_key=key, torch_shape=_shape(tensor.shape), cell=owner.path or "the root")))
            continue
        unmapped.append((key, message("unmapped_key", torch_key=key, torch_shape=_shape(tensor.shape))))
    return unmapped


def _by_order(missing: List[Slot], unmapped: List[Tuple[str, str]], state: Dict[str, Any]):
    """The parameters no name matched paired with the tensors no parameter took, in model order
    and checkpoint order, when there are as many of each and every pair has one shape (a layer
    renamed or regrouped by the port: mmdet's FPN built with other attribute names). None when
    they do not line up: then no pairing is certain, and each is reported."""
    if not missing or len(missing) != len(unmapped):
        return None
    paired = []
    for slot, (key, _) in zip(missing, unmapped):
        value = _fit(state[key], slot)
        if value is None:
            return None
        paired.append((slot, key, value))
    return paired


def _is_lazy(tensor) -> bool:
    """A lazy layer's parameter before its first forward pass (nn.LazyLinear): no value, no shape."""
    from torch.nn.parameter import is_lazy

    return is_lazy(tensor)


def _storage(tensor) -> Tuple:
    """Identifies the memory a tensor views: tied weights share it."""
    try:
        return (tensor.untyped_storage().data_ptr(), tensor.storage_offset(), tuple(tensor.shape), tuple(tensor.stride()))
    except RuntimeError:
        return (id(tensor),)


def _plain_tensor(owner: Optional[_Cell], leaf: str):
    """The value of a MindSpore tensor attribute (not a Parameter) at the key's place, as numpy."""
    if owner is None:
        return None
    import mindspore as ms

    value = getattr(owner.cell, leaf, None)
    if isinstance(value, ms.Tensor) and not isinstance(value, ms.Parameter):
        return value.asnumpy()
    return None


def _difference(a, b) -> float:
    import numpy as np

    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))


def _shape(shape) -> str:
    return "(" + ", ".join(str(int(d)) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _short(qualified: str) -> str:
    """``mindspore.nn.BatchNorm2d`` -> ``nn.BatchNorm2d``."""
    return qualified[len("mindspore."):] if qualified.startswith("mindspore.") else qualified
