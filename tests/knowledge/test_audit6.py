"""Facts found by the round-6 dev audit (seed 2512), re-measured: MindSpore 2.10 in one child
process (ms_audit6.py), torch 2.13 here, on the same seeded inputs (audit6_inputs.py). Each claim
a note of rules/curated/audit6.toml makes is an assertion below; then msport says it for the call."""

import numpy as np
import pytest
import torch

from msport.analysis.engine import Analyzer
from msport.analysis.settings import Settings

from .audit6_inputs import AMINMAX_FORMS, GRID, ORDER, ROWS
from .child import measured


@pytest.fixture(scope="module")
def ms_facts():
    return measured("ms_audit6.py")


def test_aminmax_takes_dim_as_the_keyword_axis(ms_facts):
    grid = torch.tensor(GRID)
    for dim, keep in AMINMAX_FORMS:
        expected = torch.aminmax(grid, dim=dim, keepdim=keep)
        got = ms_facts["aminmax"][f"{dim} {keep}"]
        assert all(np.allclose(g, e.numpy()) for g, e in zip(got, expected)), (dim, keep)
    # PyTorch's default reduces every element, MindSpore's axis 0; a flattened input agrees
    every = torch.aminmax(grid)
    assert np.asarray(ms_facts["aminmax_default"][0]).shape == (5, 3) != tuple(every.min.shape)
    assert ms_facts["aminmax_flat"] == [every.min.item(), every.max.item()]
    assert ms_facts["aminmax_positional"] == "raised TypeError"  # axis is keyword-only, as dim in torch


def test_max_min_axis_is_no_alias_of_dim(ms_facts):
    grid = torch.tensor(GRID)
    for name in ("max", "min"):
        values_only, with_keepdim, by_dim = ms_facts["axis_alias"][name]
        expected = getattr(grid, name)(axis=1, keepdim=True)  # torch: the alias returns (values, indices)
        assert np.allclose(values_only, getattr(grid, name)(dim=1).values.numpy())
        assert with_keepdim == "raised TypeError"
        assert np.allclose(by_dim[0], expected.values.numpy()) and by_dim[1] == expected.indices.tolist()


def test_devices_compare_alike(ms_facts):
    grid = torch.tensor(GRID)
    assert ms_facts["device_compare"][:2] == [grid.device == grid[0].device, grid.device != grid[0].device] == [True, False]
    assert ms_facts["device_compare"][2] == "str"  # a string, so only a comparison with a device string differs


def test_default_generator_does_not_drive_ops_random_functions(ms_facts):
    assert ms_facts["generator_methods"] == [True, True, True]
    assert not any(ms_facts["generator_state_replays"].values())
    assert not any(ms_facts["generator_seed_replays"].values())
    assert all(ms_facts["set_seed_replays"].values())
    state = torch.default_generator.get_state()  # in PyTorch the state replays torch.rand
    first = torch.rand(5)
    torch.default_generator.set_state(state)
    assert torch.equal(first, torch.rand(5))


def test_a_python_sampler_is_an_iterable_of_indices(ms_facts):
    class Ordered(torch.utils.data.Sampler):
        def __iter__(self):
            return iter(ORDER)

        def __len__(self):
            return len(ORDER)

    loader = torch.utils.data.DataLoader(list(range(ROWS)), sampler=Ordered(), batch_size=None)
    assert ms_facts["sampler_iterable"] == [int(i) for i in loader] == list(ORDER)
    assert ms_facts["sampler_random"] == [ROWS, list(range(ROWS))]
    assert ms_facts["sampler_num_samples"] == len(list(torch.utils.data.RandomSampler(range(ROWS), num_samples=3)))


SOURCE = '''import torch
from torch.utils.data import RandomSampler


def extremes(x: torch.Tensor, state):
    low, high = torch.aminmax(x, dim=1)
    peak, where = x.abs().max(axis=1, keepdim=True)
    torch.default_generator.set_state(state)
    return low, high


class Reproducible(RandomSampler):
    pass


def same_place(pred: torch.Tensor, target: torch.Tensor):
    if not pred.device == target.device:
        target = target.to(pred.device)
    return pred.device.type == "cuda"
'''


def test_findings_say_the_measured_counterparts():
    findings = {f.torch_api: f for f in Analyzer().analyze(SOURCE, Settings()).findings if f.code in ("MS101", "MS102")}
    assert "pass axis=1" in findings["torch.aminmax"].message
    assert "has no parameter dim" not in findings["torch.aminmax"].message
    assert "write dim=1" in findings["torch.Tensor.max"].message
    assert "mindspore.set_seed" in findings["torch.default_generator"].message
    assert "sampler=" in findings["torch.utils.data.RandomSampler"].message
    lines = SOURCE.splitlines()
    devices = [lines[f.span.start_line].strip() for f in Analyzer().analyze(SOURCE, Settings()).findings
               if f.torch_api == "torch.Tensor.device"]
    assert devices == ['return pred.device.type == "cuda"']  # compared with a device or passed on: no finding
