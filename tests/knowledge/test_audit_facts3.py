"""The facts the third audit of the development projects added (rules/curated/audit3.toml, the
Tensor.max note of rules/curated/measured.toml, the inplace-only targets of the generator),
measured again on torch 2.13 and mindspore 2.10 (one MindSpore child process for the module),
and checked against what msport says for the call as written."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from msport.knowledge import default_knowledge

from .audit3_inputs import (
    CROSS_A, CROSS_B, GRID, IMAGE, KERNEL, MATRIX, OTHER, POOL_INPUT, QUERY, RHS, SIGNAL, SQUARE, WITH_NAN,
)

HERE = Path(__file__).resolve().parent
T = torch.from_numpy


@pytest.fixture(scope="module")
def ms(tmp_path_factory):
    done = subprocess.run([sys.executable, str(HERE / "ms_audit_facts3.py")], cwd=tmp_path_factory.mktemp("ms3"),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def verdict(name, backend="ascend"):
    return default_knowledge().verdict(name, (2, 10), backend)


def close(ours, theirs, atol=1e-5):
    theirs = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    return np.asarray(ours).shape == theirs.shape and np.allclose(np.asarray(ours, dtype=float), theirs, atol=atol, equal_nan=True)


def test_meshgrid_is_mint_meshgrid_in_every_form_and_under_jit(ms):
    ij = torch.meshgrid(*map(T, GRID), indexing="ij")
    for key in ("meshgrid_varargs_ij", "meshgrid_list_ij", "meshgrid_default", "meshgrid_jit"):
        assert all(close(m, t) for m, t in zip(ms[key], ij)), key
    assert all(close(m, t) for m, t in zip(ms["meshgrid_xy"], torch.meshgrid(*map(T, GRID), indexing="xy")))
    v = verdict("torch.meshgrid")
    assert (v.status, v.mindspore) == ("equivalent", "mindspore.mint.meshgrid")


def test_linalg_solve_is_matrix_solve(ms):
    assert close(ms["solve"], torch.linalg.solve(T(SQUARE), T(RHS)))
    assert close(ms["solve_jit"], torch.linalg.solve(T(SQUARE), T(RHS)))
    batched = torch.linalg.solve(torch.stack([T(SQUARE), T(SQUARE.T.copy())]), torch.stack([T(RHS), T(RHS)]))
    assert close(ms["solve_batched"], batched)
    v = verdict("torch.linalg.solve", "cpu")
    assert (v.status, v.mindspore) == ("equivalent", "mindspore.ops.matrix_solve")


def test_cosine_similarity_layer_is_the_ops_function_not_the_metric(ms):
    assert close(ms["cosine_similarity"], torch.nn.CosineSimilarity(dim=-1)(T(MATRIX), T(OTHER)))
    assert ms["nn_cosine_similarity_dim"] == "raised TypeError"
    v = verdict("torch.nn.CosineSimilarity")
    assert v.mindspore == "mindspore.ops.cosine_similarity" and "metric" in v.note


def test_rmsprop_and_schedulers_are_the_experimental_ones(ms):
    weight = torch.nn.Parameter(T(MATRIX.copy()))
    optimizer = torch.optim.RMSprop([weight])
    weight.grad = T(OTHER.copy())
    optimizer.step()
    assert close(ms["rmsprop_step"], weight.detach())
    assert verdict("torch.optim.RMSprop").mindspore == "mindspore.experimental.optim.RMSprop"

    def rates(make):
        opt = torch.optim.SGD([torch.nn.Parameter(T(MATRIX.copy()))], lr=0.1)
        scheduler, seen = make(opt), []
        for _ in range(6):
            seen.append(round(scheduler.get_last_lr()[0], 8))
            opt.step()
            scheduler.step()
        return seen

    assert ms["steplr"] == rates(lambda o: torch.optim.lr_scheduler.StepLR(o, 2, gamma=0.5))
    assert ms["multisteplr"] == rates(lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [1, 4], gamma=0.1))
    for name in ("StepLR", "MultiStepLR"):
        v = verdict(f"torch.optim.lr_scheduler.{name}")
        assert (v.status, v.mindspore) == ("equivalent", f"mindspore.experimental.optim.lr_scheduler.{name}")


def test_data_pipeline_counterparts(ms):
    assert ms["sampler_subclass"] == [4, 2, 0]
    assert ms["subset_sampler"] == [3, 1]
    assert ms["concat"] == [0, 1, 3, 4]
    assert ms["batch"] == [[0, 1], [2, 3], [4]]
    assert [list(b) for b in torch.utils.data.BatchSampler(range(5), 2, drop_last=False)] == [[0, 1], [2, 3], [4]]
    assert verdict("torch.utils.data.Sampler").mindspore == "mindspore.dataset.Sampler"
    for name, named in (("Subset", "SubsetSampler"), ("ConcatDataset", "+"), ("BatchSampler", ".batch(")):
        v = verdict(f"torch.utils.data.{name}")
        assert v.status == "missing" and named in v.note, name


def test_compositions_named_by_missing_rules(ms):
    assert close(ms["ndtr"], torch.special.ndtr(T(MATRIX)), atol=1e-6)
    assert close(ms["inverse"], torch.linalg.inv_ex(T(SQUARE))[0])
    q = T(QUERY)
    assert close(ms["sdpa"], torch.nn.functional.scaled_dot_product_attention(q, q, q))
    assert close(ms["parameters_to_vector"], torch.nn.utils.parameters_to_vector([T(MATRIX), T(RHS)]))
    assert not str(ms["set_deterministic"]).startswith("raised")
    assert ms["has_convert_sync_batchnorm"] is False
    assert ms["profiler_activity_cpu"] == "ProfilerActivity.CPU"
    assert math.isclose(torch.nn.init.calculate_gain("relu"), math.sqrt(2))
    for name, named in (("torch.special.ndtr", "ops.erfc"), ("torch.linalg.inv_ex", "ops.inverse"),
                        ("torch.nn.functional.scaled_dot_product_attention", "ops.softmax"),
                        ("torch.nn.utils.parameters_to_vector", "ops.cat"), ("torch.nn.init.calculate_gain", "math.sqrt(2)"),
                        ("torch.backends.cudnn.deterministic", "set_deterministic(True)"),
                        ("torch.nn.SyncBatchNorm.convert_sync_batchnorm", "mint.nn.SyncBatchNorm")):
        v = verdict(name)
        assert v.status == "missing" and named in v.note, name
    v = verdict("torch.profiler.ProfilerActivity.CPU")
    assert (v.status, v.mindspore) == ("equivalent", "mindspore.profiler.ProfilerActivity.CPU")


def test_tensor_max_keeps_dim_and_skips_nan(ms):
    assert not math.isnan(ms["max_nan"]) and math.isnan(T(WITH_NAN).max().item())
    values, indices = T(MATRIX).max(dim=1)
    assert close(ms["max_dim"][0], values) and ms["max_dim"][1] == indices.tolist()
    assert close(ms["max_axis"], values)  # the values alone, no indices
    v = verdict("torch.Tensor.max")
    assert "keep dim=" in v.note and "keyword is axis" not in v.note


def test_diag_and_cross_notes_say_what_differs(ms):
    assert close(ms["diag_1d"], T(MATRIX[0]).diag())
    assert np.asarray(ms["diag_2d"]).shape == (3, 3, 3, 3)
    assert close(ms["diagonal_2d"], T(SQUARE).diag())
    assert "x.diagonal()" in verdict("torch.Tensor.diag").note
    expected = torch.linalg.cross(T(CROSS_A), T(CROSS_B))
    assert not close(ms["cross_default"], expected) and close(ms["cross_last"], expected, atol=1e-6)
    assert "dim=-1" in verdict("torch.linalg.cross").note


def test_targets_differing_only_by_inplace_are_equivalent_without_it(ms):
    image = T(IMAGE)
    assert close(ms["dropout2d_eval"], torch.nn.Dropout2d(0.5).eval()(image))
    assert close(ms["hardsigmoid"], torch.nn.functional.hardsigmoid(image))
    assert close(ms["hardswish"], torch.nn.functional.hardswish(image))
    assert close(ms["silu"], torch.nn.functional.silu(image))
    for name, target in (("torch.nn.Dropout2d", "mindspore.mint.nn.Dropout2d"),
                         ("torch.nn.functional.silu", "mindspore.mint.nn.functional.silu"),
                         ("torch.nn.functional.hardswish", "mindspore.mint.nn.functional.hardswish")):
        v = verdict(name)
        assert (v.status, v.mindspore) == ("equivalent", target), name


def test_names_spelt_from_their_defining_module_get_the_public_rule():
    # ultralytics: import torchvision.transforms.transforms as tvt; speechbrain: the GradScaler's module.
    for written, public in (("torchvision.transforms.transforms.Compose", "torchvision.transforms.Compose"),
                            ("torch.cuda.amp.grad_scaler.GradScaler", "torch.cuda.amp.GradScaler"),
                            ("torch.cuda.BoolTensor", "torch.BoolTensor")):
        ours, theirs = verdict(written), verdict(public)
        assert (ours.status, ours.mindspore, ours.note) == (theirs.status, theirs.mindspore, theirs.note), written
        assert ours.torch == written


def test_the_torch_defaults_snapshot_is_what_torch_says():
    import inspect

    snapshot = json.loads((HERE.parents[1] / "rules" / "snapshots" / "torch-defaults-2.13.0.json").read_text(encoding="utf-8"))
    assert snapshot["version"].split("+")[0] == torch.__version__.split("+")[0]
    checked = 0
    for name in ("torch.nn.functional.kl_div", "torch.nn.KLDivLoss", "torch.autograd.grad", "torch.nn.init.trunc_normal_"):
        owner, _, attr = name.rpartition(".")
        obj = getattr(eval(owner, {"torch": torch}), attr)
        signature = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
        for param, text in snapshot["apis"][name].items():
            assert eval(text) == signature.parameters[param].default, (name, param)
            checked += 1
    assert checked > 10


def test_functional_conv_on_cpu_says_pad_mode(ms):
    from msport.analysis import Analyzer, Settings
    from msport.analysis.fixes import apply_fix

    image, kernel = T(IMAGE), T(KERNEL)
    padded = torch.nn.functional.conv2d(image, kernel, None, 1, 1, groups=2)
    assert ms["conv_padding_positional"].startswith("raised")  # 1 lands in pad_mode
    assert close(ms["conv_padding_keyword"], padded)
    assert close(ms["conv_padding_zero"], torch.nn.functional.conv2d(image, kernel, None, 1, 0, groups=2))
    assert close(ms["conv_padding_same"], torch.nn.functional.conv2d(image, kernel, None, 1, "same", groups=2))
    settings = Settings().merged({"backend": "cpu"}, "test")
    head = "import torch.nn.functional as F\nx = w = conv = None\n"
    for call, says, fixed in (("F.conv2d(x, w, None, 1, 1)", "pad_mode='pad'", "padding=1, pad_mode='pad'"),
                              ("F.conv2d(x, w, padding='same')", "pad_mode='same'", "pad_mode='same'"),
                              ("F.conv2d(x, w, None, 1, 0)", "padding=0 by keyword", "padding=0"),
                              ("F.conv2d(x, w, None, 1, conv.padding)", "pad_mode='pad' if conv.padding", None)):
        text = head + f"y = {call}\n"
        (finding,) = [f for f in Analyzer().analyze(text, settings).findings if f.torch_api == "torch.nn.functional.conv2d"]
        assert says in finding.message, call
        if fixed:
            result = Analyzer().analyze(text, settings)
            after = apply_fix(text, result.complete(finding.fixes[0]))
            assert fixed in after and "ops.conv2d(" in after, after


def test_maxpool_given_its_stride_is_equivalent_as_written(ms):
    from msport.analysis import Analyzer, Settings

    pool_input = T(POOL_INPUT)
    assert close(ms["maxpool_stride_given"], torch.nn.MaxPool2d(3, stride=2)(pool_input))
    head = "import torch.nn as nn\n"
    # nn.MaxPool2d(3, 2, 1) is proven once rewritten with pad_mode='pad' (form maxpool-padding); without
    # its stride a padded or ceil_mode pool keeps the stride divergence.
    for call, code in (("nn.MaxPool2d(3, stride=2)", "MS103"), ("nn.MaxPool2d(3, 2, 1)", "MS103"), ("nn.MaxPool2d(2)", "MS102"),
                       ("nn.MaxPool2d(3, padding=1)", "MS102"), ("nn.MaxPool2d(3, ceil_mode=True)", "MS102")):
        (finding,) = [f for f in Analyzer().analyze(head + f"p = {call}\n", Settings().merged({"backend": "cpu"}, "test")).findings
                      if f.torch_api == "torch.nn.MaxPool2d"]
        assert finding.code == code, call


def test_foreach_chooses_an_implementation_not_a_result():
    from msport.analysis import Analyzer, Settings

    grads = [T(MATRIX.copy()), T(OTHER.copy())]
    clipped = {}
    for foreach in (False, True):
        params = [torch.nn.Parameter(torch.zeros(3, 4)) for _ in grads]
        for p, g in zip(params, grads):
            p.grad = g.clone()
        norm = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0, foreach=foreach)
        clipped[foreach] = (norm, [p.grad for p in params])
    assert torch.allclose(clipped[False][0], clipped[True][0])
    assert all(torch.allclose(a, b) for a, b in zip(clipped[False][1], clipped[True][1]))
    text = "import torch\nmodel = None\ntorch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0, foreach=False)\n"
    (finding,) = [f for f in Analyzer().analyze(text, Settings()).findings if f.torch_api == "torch.nn.utils.clip_grad_norm_"]
    assert "foreach=False only chooses between two implementations" in finding.message


def test_avgpool1d_pads_only_with_pad_mode_pad(ms):
    signal = T(SIGNAL)
    assert ms["avgpool1d_padding"] == "raised ValueError"
    assert close(ms["avgpool1d_pad_mode"], torch.nn.AvgPool1d(4, 2, padding=2)(signal))
    assert "pad_mode='pad'" in verdict("torch.nn.AvgPool1d").note
