"""MindSpore's side of tests/knowledge/test_audit6.py: run in a child process, prints JSON.

Each value is what mindspore 2.10 computes for a claim of rules/curated/audit6.toml, on the inputs
of audit6_inputs.py."""

import json

import numpy as np

import mindspore as ms
import mindspore.dataset as ds
from mindspore import Tensor, ops

from audit6_inputs import AMINMAX_FORMS, GRID, ORDER, ROWS  # noqa: E402  (shared with the torch side)

out = {}
grid = Tensor(GRID)
out["aminmax"] = {f"{dim} {keep}": [r.asnumpy().tolist() for r in ops.aminmax(grid, axis=dim, keepdims=keep)]
                  for dim, keep in AMINMAX_FORMS}
out["aminmax_default"] = [r.asnumpy().tolist() for r in ops.aminmax(grid)]
out["aminmax_flat"] = [r.asnumpy().tolist() for r in ops.aminmax(grid.reshape(-1), axis=0)]
try:
    ops.aminmax(grid, 1)
    out["aminmax_positional"] = "ran"
except TypeError:
    out["aminmax_positional"] = "raised TypeError"


def outcome(fn):
    try:
        value = fn()
    except TypeError:
        return "raised TypeError"
    return [v.asnumpy().tolist() for v in value] if isinstance(value, tuple) else value.asnumpy().tolist()


out["axis_alias"] = {name: [outcome(lambda n=name: getattr(grid, n)(axis=1)),
                            outcome(lambda n=name: getattr(grid, n)(axis=1, keepdim=True)),
                            outcome(lambda n=name: getattr(grid, n)(dim=1, keepdim=True))] for name in ("max", "min")}

other = Tensor(GRID[0])
out["device_compare"] = [grid.device == other.device, grid.device != other.device, type(grid.device).__name__]

generator = ms.default_generator
out["generator_methods"] = [hasattr(generator, name) for name in ("get_state", "set_state", "manual_seed")]


def replays(reset, draw):
    reset()
    first = draw().asnumpy().tolist()
    reset()
    return first == draw().asnumpy().tolist()


state = generator.get_state()
draws = {"rand": lambda: ops.rand(5), "randn": lambda: ops.randn(5),
         "multinomial": lambda: ops.multinomial(Tensor(np.array([0.2, 0.3, 0.5], np.float32)), 4)}
out["generator_state_replays"] = {name: replays(lambda: generator.set_state(state), draw) for name, draw in draws.items()}
out["generator_seed_replays"] = {name: replays(lambda: generator.manual_seed(3), draw) for name, draw in draws.items()}
out["set_seed_replays"] = {name: replays(lambda: ms.set_seed(3), draw) for name, draw in draws.items()}


class Source:
    def __getitem__(self, index):
        return (np.array(index, np.int32),)

    def __len__(self):
        return ROWS


def rows(sampler):
    data = ds.GeneratorDataset(Source(), ["i"], sampler=sampler)
    return [int(row[0]) for row in data.create_tuple_iterator(output_numpy=True)]


out["sampler_iterable"] = rows(list(ORDER))
drawn = rows(ds.RandomSampler())
out["sampler_random"] = [len(drawn), sorted(drawn)]
out["sampler_num_samples"] = len(rows(ds.RandomSampler(num_samples=3)))
print(json.dumps(out))
