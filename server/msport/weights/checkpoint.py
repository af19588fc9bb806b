"""Reading a PyTorch checkpoint without running code stored in it.

``torch.load(weights_only=True)`` unpickles tensors, containers and plain values only; a file
that holds other objects (a whole pickled model, a custom class) is refused with a message that
says why and what to do. ``--trust-checkpoint`` is the explicit way past it.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping

from ..knowledge.weights import default_weight_rules
from .errors import fail, message


@dataclass
class StateDict:
    tensors: Dict[str, object]  # key -> torch.Tensor, in the file's order
    notes: List[str] = field(default_factory=list)


def check_readable(path: Path) -> None:
    """A missing checkpoint is named before seconds go into importing torch."""
    if not path.exists():
        raise fail("not_found", path=path)
    if not path.is_file():
        raise fail("not_a_file", path=path)


def load_state_dict(path: Path, trust: bool = False) -> StateDict:
    check_readable(path)
    import torch
    # torch.load raises the unpickler's own error for what weights_only refuses; msport itself
    # never unpickles, so it names the class through torch rather than importing pickle.
    refused = torch.serialization.pickle.UnpicklingError
    try:
        data = torch.load(path, map_location="cpu", weights_only=not trust)
    except refused as exc:
        if "Unsupported global" in str(exc):
            raise fail("not_pickle_safe", path=path, reason=_refused(exc)) from None
        raise fail("not_torch_file", path=path, reason=_first_line(exc)) from None
    except (RuntimeError, EOFError, zipfile.BadZipFile, ValueError, AttributeError, ModuleNotFoundError, OSError) as exc:
        raise fail("not_torch_file", path=path, reason=_first_line(exc)) from None
    notes = [message("trusted_load", path=path)] if trust else []
    state, container = _find_state(data, path)
    if not trust:
        notes.append(message("loaded_from", path=path, container=f", key '{container}'" if container else ""))
    return StateDict(state, notes)


def _find_state(data, path: Path):
    """(the state dict, the key of the container it was found under or None)."""
    import torch

    if isinstance(data, torch.nn.Module):  # only with --trust-checkpoint: a whole pickled model
        return dict(data.state_dict()), None
    if not isinstance(data, Mapping):
        raise fail("not_state_dict", path=path, kind=_kind(data), hint="")
    tensors = {k: v for k, v in data.items() if isinstance(v, torch.Tensor)}
    if tensors and len(tensors) == len(data) and all(isinstance(k, str) for k in tensors):
        return tensors, None
    for key in default_weight_rules().containers:
        inner = data.get(key)
        if isinstance(inner, torch.nn.Module):
            return dict(inner.state_dict()), key
        if isinstance(inner, Mapping) and inner and all(isinstance(v, torch.Tensor) for v in inner.values()):
            return {str(k): v for k, v in inner.items()}, key
    if not tensors:
        keys = ", ".join(repr(k) for k in list(data)[:8])
        raise fail("not_state_dict", path=path, kind=f"mapping with keys {keys}" if data else "empty mapping",
                   hint="; none of the keys where training scripts keep one (" + ", ".join(default_weight_rules().containers) + ") holds tensors")
    # Tensors beside other values (a step counter): the tensors are the state dict.
    return {str(k): v for k, v in tensors.items()}, None


def _kind(value) -> str:
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of {len(value)} items"
    return type(value).__name__


def _refused(exc: Exception) -> str:
    for line in str(exc).splitlines():
        if "Unsupported global" in line:
            return line.strip().rstrip(".")
    return _first_line(exc)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__).rstrip(".")
