"""``msport convert-weights``: a PyTorch checkpoint converted for the ported MindSpore model.

Nothing is written unless every parameter of the model gets a value and every tensor of the
checkpoint is accounted for (``--partial`` writes anyway, naming what is left). The checkpoint is
written to a temporary file beside the output, loaded back into the model to prove it loads,
and only then renamed to the output: a failure at any step leaves no file behind.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

from ..knowledge.weights import default_weight_rules
from .checkpoint import check_readable, load_state_dict
from .errors import WeightsError, fail, message
from .mapping import ModelMap, Plan, plan
from .modelfile import Arguments, ImportedFiles, model_from_file, read_source


@dataclass
class Conversion:
    model_name: str
    plan: Plan
    notes: List[str] = field(default_factory=list)
    output: Optional[Path] = None
    size: int = 0  # bytes of parameter data

    def rows(self) -> List[Dict[str, Any]]:
        """The map, one row per MindSpore parameter."""
        rows = [{"torch": self.plan.prefix + v.slot.torch_key, "mindspore": v.slot.parameter.name, "torch_shape": list(v.torch_shape),
                 "shape": list(v.array.shape), "kept": False}
                for v in self.plan.values]
        rows += [{"torch": None, "mindspore": slot.parameter.name, "torch_shape": None, "shape": list(slot.parameter.shape), "kept": True}
                 for slot in self.plan.kept]
        return rows


def parameters_for(conversion: Conversion) -> Dict[str, Any]:
    """{parameter name: mindspore.Parameter} holding the converted values, ready for
    ``load_param_into_net`` or ``save_checkpoint``; kept parameters keep their initial values."""
    import mindspore as ms

    values = {}
    for value in conversion.plan.values:
        slot = value.slot
        tensor = ms.Tensor(value.array).astype(slot.parameter.dtype)
        values[slot.parameter.name] = ms.Parameter(tensor, name=slot.parameter.name, requires_grad=slot.parameter.requires_grad)
    for slot in conversion.plan.kept:
        values[slot.parameter.name] = ms.Parameter(slot.parameter.data.copy(), name=slot.parameter.name, requires_grad=slot.parameter.requires_grad)
    return values


def map_model(net, model_name: str, state: Dict[str, Any], checkpoint: Path, model_path: Path, partial: bool,
              rename_shared: bool = False) -> Conversion:
    """The conversion plan of *state* for *net*; raises when it leaves problems (unless *partial*).
    Parameters that share a name make a checkpoint ambiguous: an error, unless *rename_shared*
    (the port check, which loads the values in memory), which names them by their paths."""
    model = ModelMap(net, default_weight_rules())
    shared = model.shared_names()
    notes = []
    if shared and not rename_shared:
        raise WeightsError("\n".join(message("duplicate_names", name=name, count=len(paths), paths=", ".join(paths[:4]))
                                     for name, paths in list(shared.items())[:10]))
    if shared:
        name, paths = next(iter(shared.items()))
        notes.append(message("duplicate_names_checked", count=len(shared), name=name, paths=", ".join(paths[:4])))
        model.name_by_path()
    result = plan(model, state, str(checkpoint), f"{model_path} ({model_name})")
    conversion = Conversion(model_name, result, notes)
    if result.problems and not partial:
        summary = message("mismatch_summary", checkpoint=checkpoint, model=f"{model_path} ({model_name})", count=len(result.problems))
        raise WeightsError("\n".join(result.problems + [summary]))
    if result.problems:
        conversion.notes.append(message("partial_written", count=len(result.problems)))
    return conversion


def convert_weights(model_path: Path, checkpoint: Path, output: Path, class_name: Optional[str], arguments: Arguments,
                    trust: bool = False, partial: bool = False, stage=lambda text: None) -> Conversion:
    _check_output(checkpoint, output)
    check_readable(checkpoint)
    read_source(model_path)  # both files named before seconds go into importing the frameworks
    stage(f"reading {checkpoint}")
    state = load_state_dict(checkpoint, trust)
    stage(f"building the MindSpore model of {model_path}")
    import mindspore as ms

    name, net = model_from_file(model_path, "mindspore", ImportedFiles(), class_name, arguments)
    stage(f"mapping {len(state.tensors)} tensors onto {name}")
    conversion = map_model(net, name, state.tensors, checkpoint, model_path, partial)
    conversion.notes[:0] = state.notes + conversion.plan.notes
    parameters = parameters_for(conversion)
    conversion.size = sum(p.nbytes for p in parameters.values())
    stage(f"writing {output}")
    _write(ms, net, name, parameters, output, partial)
    conversion.output = output
    return conversion


def _check_output(checkpoint: Path, output: Path) -> None:
    if not output.parent.is_dir():
        raise fail("output_dir_missing", path=output)
    if output.exists() and checkpoint.exists() and output.resolve() == checkpoint.resolve():
        raise fail("output_is_input", path=output)


def _write(ms, net, name: str, parameters: Dict[str, Any], output: Path, partial: bool) -> None:
    directory = output.parent
    # save_checkpoint appends .ckpt to a name without it: the temporary name has it already.
    handle, temporary = tempfile.mkstemp(prefix=f".{output.name}.", suffix=".msport-tmp.ckpt", dir=directory)
    os.close(handle)
    try:
        ms.save_checkpoint([{"name": key, "data": value} for key, value in parameters.items()], temporary)
        try:
            loaded = ms.load_checkpoint(temporary)
            not_loaded, not_used = ms.load_param_into_net(net, loaded, strict_load=True)
        except (RuntimeError, ValueError, TypeError) as exc:
            raise fail("verify_failed", output=output, name=name, reason=str(exc).strip().splitlines()[0]) from None
        if partial:  # the parameters without a value are listed already; what was written must load
            not_loaded = [n for n in not_loaded if n in parameters]
        if not_loaded or not_used:
            reason = f"not loaded: {', '.join(not_loaded[:5]) or 'none'}; not used: {', '.join(not_used[:5]) or 'none'}"
            raise fail("verify_failed", output=output, name=name, reason=reason)
        os.replace(temporary, output)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
