"""``msport port-check``: the ported MindSpore model and its PyTorch reference, built side by side,
given the same weights and the same random inputs, and their outputs compared.

The PyTorch model's weights come from ``--checkpoint`` or, without one, from its own
initialisation (with BatchNorm running statistics drawn at random, so that their conversion is
checked too); they reach the MindSpore model through the converter, as a user's checkpoint would.
Both run in inference mode (``eval()`` / ``set_train(False)``); the MindSpore model runs in
PyNative and in graph mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

from .checkpoint import load_state_dict
from .convert import map_model, parameters_for
from .errors import WeightsError, describe, fail, message
from .modelfile import Arguments, ImportedFiles, model_from_file

MODES = ("pynative", "graph")
_DTYPES = ("float32", "float16", "float64", "int64", "int32", "bool")


@dataclass(frozen=True)
class InputSpec:
    shape: Tuple[int, ...]
    dtype: str = "float32"
    high: int = 2  # integer inputs are drawn from [0, high)


def parse_input(text: str) -> InputSpec:
    parts = text.split(":")
    try:
        if len(parts) > 3 or not parts[0].strip():
            raise ValueError("too many ':' parts" if len(parts) > 3 else "no shape")
        shape = tuple(int(d) for d in parts[0].split(",") if d.strip())
        if any(d < 0 for d in shape):
            raise ValueError("negative dimension")
        dtype = parts[1].strip() if len(parts) > 1 and parts[1].strip() else "float32"
        if dtype not in _DTYPES:
            raise ValueError(f"dtype {dtype!r} is not one of {', '.join(_DTYPES)}")
        high = int(parts[2]) if len(parts) > 2 else 2
        if high < 1:
            raise ValueError("HIGH must be at least 1")
    except ValueError as exc:
        raise fail("bad_input_spec", value=text, reason=str(exc)) from None
    return InputSpec(shape, dtype, high)


@dataclass
class Row:
    output: str  # "output 0", "output 1.logits"
    shape: Tuple[int, ...]
    mode: str
    difference: float
    ok: bool


@dataclass
class PortCheck:
    model_name: str
    reference_name: str
    rows: List[Row] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)  # structure differences, runs that failed

    @property
    def ok(self) -> bool:
        return not self.problems and all(row.ok for row in self.rows)


def port_check(model_path: Path, reference_path: Path, inputs: Sequence[InputSpec], *, class_name: Optional[str] = None,
               arguments: Arguments = Arguments(), reference_class: Optional[str] = None,
               reference_arguments: Optional[Arguments] = None, checkpoint: Optional[Path] = None, trust: bool = False,
               modes: Sequence[str] = MODES, atol: float = 1e-5, rtol: float = 0.0, seed: int = 0,
               stage=lambda text: None) -> PortCheck:
    import numpy as np
    import torch

    files = ImportedFiles()
    stage(f"building the PyTorch reference of {reference_path}")
    reference_name, reference = model_from_file(
        reference_path, "torch", files, reference_class or class_name, reference_arguments or arguments,
        "--reference-class", "--reference-args")
    reference.eval()
    notes: List[str] = []
    if checkpoint is not None:
        state = load_state_dict(checkpoint, trust)
        notes.extend(state.notes)
        _load_reference(reference, state.tensors, checkpoint, reference_path)
    else:
        _draw_running_statistics(reference, seed)
    stage(f"building the MindSpore model of {model_path}")
    import mindspore as ms

    name, net = model_from_file(model_path, "mindspore", files, class_name, arguments)
    conversion = map_model(net, name, dict(reference.state_dict()), checkpoint or reference_path, model_path, partial=False,
                           rename_shared=True)
    notes.extend(n for n in conversion.notes + conversion.plan.notes if n not in notes)
    try:
        ms.load_param_into_net(net, parameters_for(conversion), strict_load=True)
    except (RuntimeError, ValueError, TypeError) as exc:
        raise fail("verify_failed", output="the converted weights", name=name, reason=describe(exc)) from None
    net.set_train(False)
    result = PortCheck(name, reference_name, notes=notes)

    rng = np.random.default_rng(seed)
    arrays = [_draw(rng, spec) for spec in inputs]
    stage("running the PyTorch reference")
    with torch.no_grad():
        try:
            expected = _leaves(reference(*[torch.from_numpy(a) for a in arrays]))
        except Exception as exc:
            raise fail("port_check_run_failed", side=f"the PyTorch reference {reference_name}", mode="eval", reason=describe(exc)) from None
    for mode in modes:
        stage(f"running {name} in {mode} mode")
        ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
        try:
            actual = _leaves(net(*[ms.Tensor(a) for a in arrays]))
        except Exception as exc:
            result.problems.append(message("port_check_run_failed", side=name, mode=mode, reason=describe(exc)))
            continue
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        if [label for label, _ in actual] != [label for label, _ in expected] or any(
                a.shape != e.shape for (_, a), (_, e) in zip(actual, expected)):
            result.problems.append(message("port_check_structure", torch_outputs=_structure(expected), ms_outputs=_structure(actual)))
            continue
        for (label, want), (_, got) in zip(expected, actual):
            difference = _max_difference(want, got)
            bound = atol + rtol * float(np.max(np.abs(want))) if want.size else atol
            result.rows.append(Row(label, tuple(want.shape), mode, difference, difference <= bound))
    return result


def _load_reference(reference, tensors, checkpoint: Path, reference_path: Path) -> None:
    missing, unexpected = reference.load_state_dict(tensors, strict=False)
    if missing or unexpected:
        details = [f"{reference_path}: the reference has no {key}" for key in unexpected[:10]]
        details += [f"{checkpoint}: no value for the reference's {key}" for key in missing[:10]]
        raise WeightsError("\n".join(details + [message(
            "mismatch_summary", checkpoint=checkpoint, model=reference_path, count=len(missing) + len(unexpected))]))


def _draw_running_statistics(reference, seed: int) -> None:
    """Fresh BatchNorm statistics are zeros and ones, which a wrong conversion would not show."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    for module in reference.modules():
        if isinstance(module, torch.nn.modules.batchnorm._NormBase) and module.track_running_stats and module.running_mean is not None:
            with torch.no_grad():
                module.running_mean.copy_(torch.randn(module.running_mean.shape, generator=generator) * 0.1)
                module.running_var.copy_(torch.rand(module.running_var.shape, generator=generator) + 0.5)


def _draw(rng, spec: InputSpec):
    import numpy as np

    if spec.dtype == "bool":
        return rng.random(spec.shape) > 0.5
    if spec.dtype.startswith("int"):
        return rng.integers(0, spec.high, spec.shape).astype(spec.dtype)
    return rng.standard_normal(spec.shape).astype(spec.dtype)


def _leaves(value, label: str = "output") -> List[Tuple[str, Any]]:
    """(label, numpy array) of every tensor in a (nested) tuple, list or dict of outputs."""
    import numpy as np

    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in _leaves(item, f"{label}.{key}")]
    if isinstance(value, (tuple, list)):
        return [leaf for index, item in enumerate(value) for leaf in _leaves(item, f"{label}[{index}]")]
    if hasattr(value, "detach"):  # torch.Tensor
        return [(label, value.detach().cpu().float().numpy() if value.is_floating_point() else value.detach().cpu().numpy())]
    if hasattr(value, "asnumpy"):  # mindspore.Tensor
        return [(label, value.asnumpy())]
    if isinstance(value, (int, float, bool)):
        return [(label, np.asarray(value))]
    return []


def _structure(leaves) -> str:
    return ", ".join(f"{label} {tuple(array.shape)}" for label, array in leaves) or "nothing"


def _max_difference(a, b) -> float:
    import numpy as np

    if a.size == 0:
        return 0.0
    if a.dtype == bool or b.dtype == bool:
        return float(np.count_nonzero(a.astype(bool) != b.astype(bool)))
    return float(np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64))))
