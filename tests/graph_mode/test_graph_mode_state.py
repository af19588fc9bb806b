"""MS418, MS419 and MS421 (checks/graph_mode_state.py): what their messages say, in English and
Chinese, and where they stay silent. The behaviour each rule rests on is proven on the real
package by test_graph_mode_ground_truth.py (cases tensor-attribute, new-attribute,
attribute-handoff, host-value); the lines of the labelled corpus by test_graph_mode_labeled.py."""

from msport.analysis import Analyzer, Settings

TORCH = """import torch
import torch.nn as nn


class Restorer(nn.Module):
    def __init__(self, limit=10):
        super().__init__()
        self.limit = limit

    def forward(self, x, index):
        self.cpu_cache = x.size(1) > self.limit
        self.weights = torch.softmax(x, -1)
        dim_size = int(index.max()) + 1
        out = torch.zeros(dim_size, x.size(-1))
        return self.propagate(out)

    def propagate(self, x):
        if self.cpu_cache:
            return x.cpu()
        return x
"""


def _findings(text, language="en"):
    result = Analyzer().analyze(text, Settings(language=language), "restorer.py")
    return {(f.span.start_line + 1, f.code): f for f in result.findings if f.code in ("MS418", "MS419", "MS421")}


def test_each_finding_names_what_was_found_why_and_what_to_write():
    found = _findings(TORCH)
    assert set(found) == {(11, "MS419"), (12, "MS418"), (13, "MS421")}
    created = found[(11, "MS419")].message
    assert "`self.cpu_cache`" in created and "`Restorer.propagate`" in created and "no attribute" in created
    assert found[(11, "MS419")].severity.value == "error"
    kept = found[(12, "MS418")].message
    assert "`self.weights`" in kept and "first call" in kept and "ops.assign" in kept
    assert found[(12, "MS418")].severity.value == "warning"
    taken = found[(13, "MS421")].message
    assert "int()" in taken and "`dim_size`" in taken and "torch.zeros(dim_size" in taken and "fullgraph=True" in taken
    assert found[(13, "MS421")].severity.value == "info"


def test_the_messages_are_in_chinese_when_asked():
    found = _findings(TORCH, "zh-CN")
    assert set(found) == {(11, "MS419"), (12, "MS418"), (13, "MS421")}
    for finding in found.values():
        assert "替代方案" in finding.message, finding.message
    assert "`self.cpu_cache`" in found[(11, "MS419")].message and "首次创建" in found[(11, "MS419")].message


def test_look_alikes_stay_silent():
    text = TORCH.replace("        self.limit = limit\n", "        self.limit = limit\n        self.register_buffer('weights', torch.zeros(1))\n")
    text = text.replace("        dim_size = int(index.max()) + 1\n        out = torch.zeros(dim_size, x.size(-1))\n",
                        "        scale = int(index.max()) + 1\n        out = torch.zeros(4, x.size(-1)) / scale\n")
    text = text.replace("        return self.propagate(out)", "        return out.cpu() if self.cpu_cache else out")
    assert _findings(text) == {}, [f.message for f in _findings(text).values()]
