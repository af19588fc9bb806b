"""MindSpore's side of tests/knowledge/test_audit_facts3.py: run in a child process, prints JSON.

Each value is what mindspore 2.10 computes (or raises) for a fact of rules/curated/audit3.toml,
on inputs fixed by a seed so that the torch side can recompute them."""

import json
import math

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import Tensor, mint, ops

from audit3_inputs import (  # noqa: E402  (shared with the torch side)
    CROSS_A, CROSS_B, GRID, IMAGE, KERNEL, MATRIX, OTHER, POOL_INPUT, QUERY, RHS, SIGNAL, SQUARE, WITH_NAN,
)
out = {}


def value(result):
    if isinstance(result, Tensor):
        return result.asnumpy().tolist()
    if isinstance(result, (tuple, list)):
        return [value(r) for r in result]
    return result


def outcome(fn):
    try:
        return value(fn())
    except Exception as error:  # the fact is the exception's kind
        return f"raised {type(error).__name__}"


@ms.jit
def meshgrid_jit(a, b):
    return mint.meshgrid(a, b, indexing="ij")


@ms.jit
def solve_jit(a, b):
    return ops.matrix_solve(a, b)


grid = [Tensor(g) for g in GRID]
out["meshgrid_varargs_ij"] = outcome(lambda: mint.meshgrid(*grid, indexing="ij"))
out["meshgrid_list_ij"] = outcome(lambda: mint.meshgrid(grid, indexing="ij"))
out["meshgrid_xy"] = outcome(lambda: mint.meshgrid(*grid, indexing="xy"))
out["meshgrid_default"] = outcome(lambda: mint.meshgrid(*grid))
out["meshgrid_jit"] = outcome(lambda: meshgrid_jit(*grid))
out["solve"] = outcome(lambda: ops.matrix_solve(Tensor(SQUARE), Tensor(RHS)))
out["solve_batched"] = outcome(lambda: ops.matrix_solve(Tensor(np.stack([SQUARE, SQUARE.T.copy()])), Tensor(np.stack([RHS, RHS]))))
out["solve_jit"] = outcome(lambda: solve_jit(Tensor(SQUARE), Tensor(RHS)))
out["cosine_similarity"] = outcome(lambda: ops.cosine_similarity(Tensor(MATRIX), Tensor(OTHER), dim=-1))
out["nn_cosine_similarity_dim"] = outcome(lambda: ms.nn.CosineSimilarity(dim=-1))
out["has_convert_sync_batchnorm"] = hasattr(mint.nn.SyncBatchNorm, "convert_sync_batchnorm")
out["profiler_activity_cpu"] = str(ms.profiler.ProfilerActivity.CPU)

# optimizers and schedulers: one step, and the learning rates over five epochs
weight = ms.Parameter(Tensor(MATRIX.copy()), name="w")
rmsprop = ms.experimental.optim.RMSprop([weight])
rmsprop((Tensor(OTHER),))
out["rmsprop_step"] = weight.asnumpy().tolist()


def rates(make):
    optimizer = ms.experimental.optim.SGD([ms.Parameter(Tensor(MATRIX.copy()), name="s")], lr=0.1)
    scheduler = make(optimizer)
    seen = []
    for _ in range(6):
        seen.append(round(float(scheduler.get_last_lr()[0]), 8))
        scheduler.step()
    return seen


out["steplr"] = outcome(lambda: rates(lambda o: ms.experimental.optim.lr_scheduler.StepLR(o, 2, gamma=0.5)))
out["multisteplr"] = outcome(lambda: rates(lambda o: ms.experimental.optim.lr_scheduler.MultiStepLR(o, [1, 4], gamma=0.1)))

# data pipeline: samplers, subsets, concatenation, batches
source = [(np.array(i, np.int32),) for i in range(5)]


class Reversed(ds.Sampler):
    def __iter__(self):
        return iter([4, 2, 0])


def column(dataset):
    return [r[0].tolist() for r in dataset.create_tuple_iterator(output_numpy=True)]


out["sampler_subclass"] = outcome(lambda: column(ds.GeneratorDataset(source, ["x"], sampler=Reversed())))
out["subset_sampler"] = outcome(lambda: column(ds.GeneratorDataset(source, ["x"], sampler=ds.SubsetSampler([3, 1]))))
out["concat"] = outcome(lambda: column(ds.GeneratorDataset(source[:2], ["x"], shuffle=False) + ds.GeneratorDataset(source[3:], ["x"], shuffle=False)))
out["batch"] = outcome(lambda: column(ds.GeneratorDataset(source, ["x"], shuffle=False).batch(2, drop_remainder=False)))

# compositions named by the missing rules
out["ndtr"] = outcome(lambda: 0.5 * ops.erfc(-Tensor(MATRIX) / math.sqrt(2)))
out["inverse"] = outcome(lambda: ops.inverse(Tensor(SQUARE)))
q = Tensor(QUERY)
out["sdpa"] = outcome(lambda: ops.matmul(ops.softmax(ops.matmul(q, q.swapaxes(-1, -2)) / math.sqrt(q.shape[-1]), -1), q))
out["parameters_to_vector"] = outcome(lambda: ops.cat([Tensor(MATRIX).reshape(-1), Tensor(RHS).reshape(-1)]))
out["set_deterministic"] = outcome(lambda: ms.set_deterministic(True))

# Tensor.max, Tensor.diag, ops.cross as the notes state them
out["max_nan"] = outcome(lambda: Tensor(WITH_NAN).max())
out["max_dim"] = outcome(lambda: Tensor(MATRIX).max(dim=1))
out["max_axis"] = outcome(lambda: Tensor(MATRIX).max(axis=1))
out["diag_1d"] = outcome(lambda: Tensor(MATRIX[0]).diag())
out["diag_2d"] = outcome(lambda: Tensor(SQUARE).diag())
out["diagonal_2d"] = outcome(lambda: Tensor(SQUARE).diagonal())
out["cross_default"] = outcome(lambda: ops.cross(Tensor(CROSS_A), Tensor(CROSS_B)))
out["cross_last"] = outcome(lambda: ops.cross(Tensor(CROSS_A), Tensor(CROSS_B), dim=-1))

# mint targets whose only difference was the inplace parameter, called without it
image = Tensor(IMAGE)
out["dropout2d_eval"] = outcome(lambda: mint.nn.Dropout2d(0.5).set_train(False)(image))
out["hardsigmoid"] = outcome(lambda: mint.nn.functional.hardsigmoid(image))
out["hardswish"] = outcome(lambda: mint.nn.functional.hardswish(image))
out["silu"] = outcome(lambda: mint.nn.functional.silu(image))

# ops.conv2d (the CPU target of torch.nn.functional.conv2d): pad_mode is its fifth parameter
out["conv_padding_positional"] = outcome(lambda: ops.conv2d(image, Tensor(KERNEL), None, 1, 1, groups=2))
out["conv_padding_keyword"] = outcome(lambda: ops.conv2d(image, Tensor(KERNEL), None, 1, padding=1, pad_mode="pad", groups=2))
out["conv_padding_zero"] = outcome(lambda: ops.conv2d(image, Tensor(KERNEL), None, 1, padding=0, groups=2))
out["conv_padding_same"] = outcome(lambda: ops.conv2d(image, Tensor(KERNEL), None, 1, pad_mode="same", groups=2))
out["maxpool_stride_given"] = outcome(lambda: ms.nn.MaxPool2d(3, stride=2)(Tensor(POOL_INPUT)))
out["avgpool1d_padding"] = outcome(lambda: ms.nn.AvgPool1d(4, 2, padding=2)(Tensor(SIGNAL)))
out["avgpool1d_pad_mode"] = outcome(lambda: ms.nn.AvgPool1d(4, 2, pad_mode="pad", padding=2)(Tensor(SIGNAL)))
print(json.dumps(out))
