"""Run every ground-truth case under @jit with the real mindspore on CPU (one process for all).

Usage: python run_ground_truth.py WORKDIR; writes WORKDIR/shapes.json: per case, for inputs A
and B, the output shape or "error: <type>: <first line>"; for "-inside" cases a third entry: how
many values of the compiled graph have a data-dependent shape (-1 or -2 in the last IR file).
"""

import json
import re
import sys
from pathlib import Path

# A value of the compiled graph whose shape is not known when compiling: `(<Tensor[Float32], (-1)>`.
DYNAMIC_VALUE = re.compile(r"\(<Tensor\[\w+\], \([^)]*-[12]")


def dynamic_values(ir_dir: Path) -> int:
    """Values of data-dependent shape in the graph as it is handed to the kernels."""
    emitted = sorted(ir_dir.glob("*task_emit*.ir"), key=lambda p: int(p.name.split("_")[0]))
    return len(DYNAMIC_VALUE.findall(emitted[-1].read_text(errors="replace"))) if emitted else -1

HERE = Path(__file__).resolve().parent


def main(workdir: Path) -> None:
    sys.path.insert(0, str(HERE))
    import ground_truth_cases as cases

    import mindspore as ms
    import numpy as np  # noqa: F401 - used by the input expressions
    from mindspore import Tensor  # noqa: F401

    ms.set_device("CPU")
    # mindspore's jit reads the functions' source, so they must live in an importable module.
    (workdir / "gt_functions.py").write_text(cases.source())
    sys.path.insert(0, str(workdir))
    import gt_functions

    namespace = vars(gt_functions)
    results = []
    for index, case in enumerate(cases.CASES):
        inputs_a, inputs_b = case[5], case[6]
        inside = case[2].endswith("-inside")
        if inside:  # the graph compiled for inputs A is kept, to read its shapes
            ms.set_context(save_graphs=1, save_graphs_path=str(workdir / f"ir{index}"))
        shapes = []
        for inputs in (inputs_a, inputs_b):
            try:
                args = [eval(expression, namespace) for expression in inputs]  # test data only
                shapes.append(list(getattr(gt_functions, f"f{index}")(*args).shape))
            except Exception as exc:  # the compiler's refusal is a result, not a failure
                first = (str(exc).strip().splitlines() or [""])[0]
                shapes.append(f"error: {type(exc).__name__}: {first[:160]}")
            if inside:
                ms.set_context(save_graphs=0)
        if inside:
            shapes.append(dynamic_values(workdir / f"ir{index}"))
        results.append(shapes)
    (workdir / "shapes.json").write_text(json.dumps(results))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
