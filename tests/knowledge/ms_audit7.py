"""MindSpore's side of tests/knowledge/test_audit7.py: run in a child process, prints JSON.

Each value is what mindspore 2.10 computes (or raises) for a claim the round-7 dev audit (seed 2612)
led to, on the inputs of audit7_inputs.py."""

import inspect
import json

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import Tensor, mint
from mindspore.common.initializer import Uniform, initializer

from ms_outcome import outcome  # noqa: E402
from audit7_inputs import BATCH, CUBE, GRID, GRID_FORMS, IMAGE, MATRIX, NORM_CALLS, ROWS, SCALE, TYPE_CLASSES  # noqa: E402

ms.set_context(pynative_synchronize=True)
out = {}


def batches(drop):
    data = ds.GeneratorDataset([(row,) for row in ROWS], ["x"], shuffle=False).batch(BATCH, drop_remainder=drop)
    return [item["x"].asnumpy().tolist() for item in data.create_dict_iterator()]


out["batches"] = batches(False)
out["batches_dropped"] = batches(True)
out["norm"] = {f"{a.ndim} {call}": outcome(lambda a=a, call=call: eval(f"Tensor(a).norm({call.replace('p=', 'ord=')})"))  # noqa: S307
               for a in (MATRIX, CUBE) for call in NORM_CALLS}
out["norm_fro_one_dim"] = outcome(lambda: Tensor(MATRIX).norm("fro", dim=1))
out["astype"] = {name: [str(Tensor(ROWS).astype(getattr(ms, dtype)).dtype), Tensor(ROWS).astype(getattr(ms, dtype)).asnumpy().tolist()]
                 for name, dtype in TYPE_CLASSES.items()}
out["grid_sample"] = {f"{mode} {corners}": outcome(lambda m=mode, c=corners: mint.nn.functional.grid_sample(
    Tensor(IMAGE), Tensor(GRID), mode=m, align_corners=c)) for mode, corners in GRID_FORMS}
out["mint_topk_cpu"] = outcome(lambda: mint.topk(Tensor(ROWS[0]), 2))
out["mint_topk_signature"] = [[p.name, repr(p.default)] for p in inspect.signature(mint.topk).parameters.values()]
out["dim_for_axis"] = {"cat": outcome(lambda: mint.cat([Tensor(MATRIX), Tensor(MATRIX)], dim=1)),
                       "sum": outcome(lambda: mint.sum(Tensor(MATRIX), dim=0)), "mean": outcome(lambda: mint.mean(Tensor(CUBE), dim=2))}
drawn = initializer(Uniform(SCALE), (4000,), ms.float32).init_data().asnumpy()
out["uniform_range"] = [float(drawn.min()), float(drawn.max())]
print(json.dumps(out))
