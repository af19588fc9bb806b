"""MS104 (torch imports nothing uses) and MS105 (layer parameters read by their PyTorch names), and
where the port fixes attach: what they report and the text their fixes write. Their results are
run on the real packages in tests/equivalence/test_port_fixes.py and tests/port/."""

from msport.analysis import Settings
from msport.analysis.fixes import fix_all

CPU = Settings().merged({"backend": "cpu"}, "test")
ASCEND = Settings()


def codes(analyze, text, settings=CPU):
    return [(f.code, f.span.start_line + 1) for f in analyze(text, settings) if f.code in ("MS104", "MS105")]


def test_an_unused_torch_import_is_reported_with_a_safe_fix(analyze):
    text = "import torch\nimport torch.nn.functional as F\nimport os\n\n\ndef f(x):\n    return os.path.join(x)\n"
    found = [f for f in analyze(text, CPU) if f.code == "MS104"]
    assert [(f.span.start_line, f.message) for f in found] == [
        (0, "`import torch` is no longer used: nothing in this file refers to `torch`; delete it"),
        (1, "`import torch.nn.functional as F` is no longer used: nothing in this file refers to `F`; delete it"),
    ]
    assert all(f.fixes[0].safety.value == "safe" and "unnecessary" in f.tags for f in found)
    assert fix_all(text, CPU).text == "import os\n\n\ndef f(x):\n    return os.path.join(x)\n"


def test_a_used_name_keeps_its_import_even_in_a_string_annotation(analyze):
    text = "import torch\nfrom torch import nn\n\n\ndef f(x: 'torch.Tensor'):\n    return x\n\n\n__all__ = ['nn']\n"
    assert codes(analyze, text) == []


def test_one_unused_name_of_a_from_import_is_dropped_alone():
    text = "from torch import nn, Tensor\n\n\ndef f(x: Tensor):\n    return x\n"
    assert fix_all(text, CPU).text.startswith("from torch import Tensor\n")


def test_a_freed_nn_is_rebound_to_the_mindspore_module_the_file_spells_out():
    text = ("import mindspore as ms\nfrom torch import nn\n\n\nclass Net(ms.nn.Cell):\n"
            "    def __init__(self):\n        super().__init__()\n        self.act = ms.nn.ReLU()\n")
    ported = fix_all(text, CPU).text
    assert ported == ("import mindspore as ms\nfrom mindspore import nn\n\n\nclass Net(nn.Cell):\n"
                      "    def __init__(self):\n        super().__init__()\n        self.act = nn.ReLU()\n")


def test_a_file_that_does_not_parse_reports_no_unused_import(analyze):
    assert codes(analyze, "import torch\n\ndef f(:\n    torch.cat(x)\n") == []


MODEL = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.norm = nn.LayerNorm(4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.emb.weight
        for m in self.modules():
            if isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
            elif isinstance(m, (nn.BatchNorm2d, nn.Linear)):
                m.bias = None
'''


def test_layer_parameters_are_named_as_the_backends_layer_names_them(analyze):
    found = {(f.span.start_line + 1, f.message.split(":")[0]): f for f in analyze(MODEL, CPU) if f.code == "MS105"}
    assert sorted(found) == [(11, "`self.emb.weight` of a self.emb"), (14, "`m.weight` of a nn.BatchNorm2d"),
                             (16, "`m.bias` under isinstance((nn.BatchNorm2d, nn.Linear))")]
    assert found[(11, "`self.emb.weight` of a self.emb")].fixes[0].edits[0].new_text == "embedding_table"
    assert found[(14, "`m.weight` of a nn.BatchNorm2d")].fixes[0].edits[0].new_text == "gamma"
    assert not found[(16, "`m.bias` under isinstance((nn.BatchNorm2d, nn.Linear))")].fixes  # no one name serves both


def test_on_ascend_the_mint_layers_keep_pytorchs_names(analyze):
    # On Ascend nn.LayerNorm ports to mint.nn.LayerNorm, which keeps weight/bias: nothing to rename.
    text = "from torch import nn\n\n\nclass N(nn.LayerNorm):\n    def forward(self, x):\n        return x * self.weight\n"
    assert codes(analyze, text, ASCEND) == []
    assert codes(analyze, text, CPU) == [("MS105", 6)]


def test_port_fixes_attach_only_where_the_check_offers_none(analyze):
    text = "import torch\n\n\ndef f(x: torch.Tensor):\n    return x.size(0), torch.cat([x, x])\n"
    size = next(f for f in analyze(text, CPU) if f.torch_api == "torch.Tensor.size")
    cat = next(f for f in analyze(text, CPU) if f.torch_api == "torch.cat")
    assert [fix.title for fix in size.fixes] == ["Replace .size(0) with .shape[0] (a MindSpore tensor's size is its element count)"]
    assert len(cat.fixes) == 1 and cat.fixes[0].title.startswith("Replace with mindspore")  # the rename, alone


def test_the_attention_helper_is_added_once_whatever_the_number_of_calls():
    text = ("import torch.nn.functional as F\n\n\ndef f(q, k, v):\n    a = F.scaled_dot_product_attention(q, k, v)\n"
            "    return F.scaled_dot_product_attention(a, k, v, dropout_p=0.1)\n")
    outcome = fix_all(text, CPU, unsafe=True)
    assert outcome.text.count("def scaled_dot_product_attention(") == 1
    assert outcome.text.count("scaled_dot_product_attention(q, k, v)") == 1
    safeties = sorted((a.safety.value, a.title) for a in outcome.applied if "helper" in a.title)
    assert [s for s, _ in safeties] == ["safe", "unsafe"], safeties
    assert safeties[1][1].endswith("(unsafe: attention dropout is random, so no run can show it equal)")
    assert "import torch" not in outcome.text
