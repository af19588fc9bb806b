"""MS419 through helpers and setattr, MS421 through locals and methods, MS422 (a branch setting
its own flag), MS423 (print in compiled code) and MS410 on a tensor's metadata: each finding at
its line, its message in English and Chinese, and the look-alike next to it that must stay
silent. The code is reduced from patterns of the dev projects (a first-call flag in a feature
layer, a warm-up counter in a regulariser, a box assigner sizing from .item(), a matcher
computing sizes with NumPy). What each rule rests on is proven on mindspore 2.10 by
test_graph_mode_ground_truth.py (cases first-call-guard, new-attribute, attribute-handoff,
host-value, print-graph, third-party)."""

from msport.analysis import Analyzer, Settings

CODES = ("MS410", "MS418", "MS419", "MS421", "MS422", "MS423")

SOURCE = """import math

import numpy as np
import torch
import torch.nn as nn


class ContextWindow(nn.Module):
    def __init__(self, left=2):
        super().__init__()
        self.first_call = True
        self.left = left
        self.warm = 0
        self.kernel = torch.eye(5)

    def forward(self, x):
        if self.first_call is True:
            self.first_call = False
            self.left = 3
        if self.warm < 10:
            self.warm += 1
        return x * self.left


class FineMatching(nn.Module):
    def __init__(self):
        super().__init__()

    def setup(self, feat):
        self.width = feat.shape[1]

    def forward(self, feat):
        self.setup(feat)
        setattr(self, "scale", 2)
        count = self.count_boxes(feat)
        if count > 0:
            feat = feat * self.width * self.scale
        peak = feat.max().item()
        limit = peak * 2
        if limit > 1:
            feat = feat + 1
        print("matched", feat.sum())
        return feat / np.prod(feat.shape) / math.sqrt(feat.size(-1))

    def count_boxes(self, feat):
        return (feat > 0).sum().item()
"""


def _findings(text, language="en"):
    result = Analyzer().analyze(text, Settings(language=language), "layers.py")
    return {(f.span.start_line + 1, f.code): f for f in result.findings if f.code in CODES}


def test_each_finding_at_its_line_with_what_why_and_instead():
    found = _findings(SOURCE)
    assert set(found) == {
        (18, "MS422"), (21, "MS422"),  # the flag and the counter, each set in its own branch
        (30, "MS419"),  # created by the helper forward calls, read by forward
        (34, "MS419"),  # created by setattr, read back
        (35, "MS421"),  # from a method returning .item()
        (38, "MS421"),  # through the local computed from it
        (42, "MS423"),
    }, sorted(found)
    flag = found[(18, "MS422")]
    assert "`self.first_call`" in flag.message and "`if self.first_call is True`" in flag.message
    assert "every call" in flag.message and "__init__" in flag.message and flag.severity.value == "warning"
    assert "`self.warm`" in found[(21, "MS422")].message and "`if self.warm < 10`" in found[(21, "MS422")].message
    helper = found[(30, "MS419")]
    assert "`self.width`" in helper.message and "`FineMatching.forward`" in helper.message and helper.severity.value == "error"
    assert "`self.scale`" in found[(34, "MS419")].message
    method = found[(35, "MS421")].message
    assert ".item() in `count_boxes`" in method and "`count`" in method and "if count > 0" in method
    derived = found[(38, "MS421")].message
    assert "`peak`" in derived and "if limit > 1" in derived
    printed = found[(42, "MS423")]
    assert "sys.stdout" in printed.message and "f-string" in printed.message and printed.severity.value == "warning"


def test_the_new_messages_are_in_chinese_when_asked():
    found = _findings(SOURCE, "zh-CN")
    for key in ((18, "MS422"), (30, "MS419"), (42, "MS423")):
        assert "替代方案" in found[key].message, found[key].message
    assert "每次调用" in found[(18, "MS422")].message
    assert "sys.stdout" in found[(42, "MS423")].message and "f-string" in found[(42, "MS423")].message


def test_look_alikes_stay_silent():
    text = SOURCE
    # the flag flipped outside any branch that tests it (measured to agree)
    text = text.replace("        if self.first_call is True:\n            self.first_call = False\n            self.left = 3\n",
                        "        left = 3 if self.first_call else self.left\n        self.first_call = False\n")
    text = text.replace("        return x * self.left\n", "        return x * left\n")
    # a counter read, never set under its own test
    text = text.replace("        if self.warm < 10:\n            self.warm += 1\n", "        self.warm += 1\n")
    # the helper returns the width instead of handing it over through self; no setattr
    text = text.replace("    def setup(self, feat):\n        self.width = feat.shape[1]\n",
                        "    def setup(self, feat):\n        return feat.shape[1]\n")
    text = text.replace("        self.setup(feat)\n        setattr(self, \"scale\", 2)\n",
                        "        width = self.setup(feat)\n")
    text = text.replace("feat * self.width * self.scale", "feat * width * 2")
    # the numbers only divide, and one f-string is printed
    text = text.replace("        if count > 0:\n            feat = feat * width * 2\n", "        feat = feat * width / (count + 1)\n")
    text = text.replace("        if limit > 1:\n            feat = feat + 1\n", "        feat = feat + limit\n")
    text = text.replace("print(\"matched\", feat.sum())", "print(f\"matched {feat.sum()}\")")
    assert _findings(text) == {}, [(k, f.message) for k, f in _findings(text).items()]


def test_the_same_code_outside_compiled_code_stays_silent():
    """A training loop and an export helper: no construct reaches them."""
    text = """import numpy as np
import torch


def train(model, loader, optimizer):
    first = True
    for batch in loader:
        loss = model(batch)
        value = loss.item()
        if value > 10:
            print("loss", value)
        if first:
            first = False
        print("step", loss.detach())
        cw = np.prod(batch.cpu().numpy())
        loss.backward()
        optimizer.step()


def export(model, im):
    y = model(im)
    print("exported", y.shape)
    return y.cpu().numpy()
"""
    found = Analyzer().analyze(text, Settings(), "train.py").findings
    assert not [f for f in found if f.code.startswith("MS4")], [f.message for f in found if f.code.startswith("MS4")]


def test_a_host_number_used_on_the_spot_as_a_size_and_attributes_set_as_a_tuple():
    """kornia's DKD (`is_max[i, :, ih.item() - r:] = False`), ultralytics' losses
    (`masks.new_zeros(bs, int(n.max()), ...)`) and LoFTR's fine matching
    (`self.M, self.W = M, W` read by a helper): reduced."""
    text = """import torch
import torch.nn as nn


class Matching(nn.Module):
    def forward(self, feat, counts, image_size, is_max):
        batched = feat.new_zeros(feat.shape[0], int(counts.max()), 4)
        ih = image_size[0]
        is_max[0, :, ih.item() - 2:, :] = False
        rows = feat.new_zeros(int(feat.shape[0]), 4)
        self.M, self.W = feat.shape[0], feat.shape[1]
        return self.fine(batched) + rows.sum() + is_max.sum()

    def fine(self, x):
        return x * self.W
"""
    found = _findings(text)
    assert set(found) == {(7, "MS421"), (9, "MS421"), (11, "MS419")}, sorted(found)
    size = found[(7, "MS421")].message
    assert "int()" in size and "size or a bound" in size and "dynamic shape" in size and "x.shape[0]" in size
    assert ".item()" in found[(9, "MS421")].message
    assert "`self.W`" in found[(11, "MS419")].message and "`Matching.fine`" in found[(11, "MS419")].message
    chinese = _findings(text, "zh-CN")[(7, "MS421")].message
    assert "动态 shape" in chinese and "替代方案" in chinese


def test_host_side_code_no_compiled_code_reaches_stays_silent_and_is_judged_when_reached():
    """yolov5's non_max_suppression (a clock and .item() in it), an evaluator's __call__: code
    msport sees no caller of is judged only as a guess, and not at all when its name says it
    post-processes, plots, exports or evaluates ([unseen] host_functions / host_classes). The
    same post-processing called from a forward is compiled and judged."""
    text = """import time
import torch
import torch.nn as nn


def non_max_suppression(prediction, conf=0.25):
    t = time.time()
    n = prediction.sum().item()
    if n > 3:
        prediction = prediction * 2
    if (time.time() - t) > 1.0:
        print("slow", n)
    return torch.cat([prediction, prediction])


def decode(prediction):
    n = prediction.sum().item()
    if n > 3:
        prediction = prediction * 2
    return torch.cat([prediction, prediction])


class Evaluator:
    def __call__(self, model, data):
        scores = torch.sigmoid(model(data))
        if scores.mean().item() > 0.5:
            print("score", scores.mean())
        return scores
"""
    found = _findings(text)
    assert {line for line, _ in found} == {17}, sorted(found)  # decode: a guess, at hint level
    assert found[(17, "MS421")].severity.value == "hint"
    reached = text + """

class Head(nn.Module):
    def forward(self, x):
        return non_max_suppression(x)
"""
    found = _findings(reached)
    assert (8, "MS421") in found and (12, "MS423") in found, sorted(found)


def test_a_plain_loss_class_is_judged_and_a_plain_predictor_is_not():
    """ultralytics' losses are plain classes the training step calls (`self.criterion(preds,
    batch)`): judged as a guess, at hint level ([unseen] loss_classes). A plain predictor's
    method runs in Python."""
    text = """import torch


class SegmentationLoss:
    def __init__(self, overlap=True):
        self.overlap = overlap

    def __call__(self, preds, batch):
        n = torch.bincount(batch["batch_idx"])
        gt = preds.new_zeros((preds.shape[0], int(n.max()), 4))
        return (preds - gt.sum()).abs().mean()


class Predictor:
    def postprocess(self, preds):
        n = torch.bincount(preds.argmax(-1))
        return preds.new_zeros((preds.shape[0], int(n.max()), 4))
"""
    found = _findings(text)
    assert set(found) == {(10, "MS421")}, sorted(found)
    assert found[(10, "MS421")].severity.value == "hint"
