"""An API on a second-order path whose mapped MindSpore counterpart fails there, while another
measured counterpart of the same torch API works (torch.nn.Conv2d: mindspore.mint.nn.Conv2d has
no second-order bprop, mindspore.nn.Conv2d and ops.conv2d are measured right): the line gets no
MS50x finding, and the gradient call's summary names the counterpart to port it with. An API
with no working counterpart (elu) is still reported. The support entries this rests on
are re-run on the real packages by test_support_table.py (its working-counterpart controls)."""

import textwrap

from snippets import line_of

TEXT = textwrap.dedent('''
    import torch
    from torch import nn
    import torch.nn.functional as F
    from torch import autograd


    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3)

        def forward(self, x):
            return F.elu(self.conv(x))


    def r1(critic, real):
        real.requires_grad_()
        pred = critic(real)
        grad = autograd.grad(pred.sum(), real, create_graph=True)[0]
        return grad.pow(2).sum()


    def step(real):
        return r1(Critic(), real)
''')


def test_a_layer_whose_mapped_counterpart_fails_but_another_works_is_not_flagged(analyze):
    findings = analyze(TEXT, backend="ascend")  # maps torch.nn.Conv2d to mindspore.mint.nn.Conv2d
    lines = {f.span.start_line: f.code for f in findings if f.code in ("MS501", "MS502", "MS503")}
    assert line_of(TEXT, "self.conv = nn.Conv2d(3, 8, 3)") not in lines
    assert lines.get(line_of(TEXT, "F.elu(")) == "MS501"  # no counterpart works: reported
    (site,) = [f for f in findings if f.code == "MS504"]
    assert "`torch.nn.Conv2d` to `mindspore.nn.Conv2d` (not `mindspore.mint.nn.Conv2d`" in site.message


def test_the_summary_says_so_in_chinese_too(analyze):
    (site,) = [f for f in analyze(TEXT, backend="ascend", language="zh-CN") if f.code == "MS504"]
    assert "`torch.nn.Conv2d` 改用 `mindspore.nn.Conv2d`" in site.message
