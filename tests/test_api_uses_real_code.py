"""API-mapping findings (MS1xx) on patterns taken from real model code (timm, torchvision).

Each snippet reproduces a resolution error found by auditing msport's findings on timm and
torchvision's models: the exact findings are asserted, so a wrong API, a duplicate or a miss
fails the test.
"""

from msport.analysis.api_uses import api_uses
from msport.analysis import Analyzer, Settings
from msport.knowledge import default_knowledge


def found(analyze, text):
    """(torch API, line, column) of every MS1xx finding, in source order."""
    return [(f.torch_api, f.span.start_line, f.span.start_col) for f in analyze(text) if f.code.startswith("MS1")]


def uses(knowledge, text):
    """(torch API, line, column) of every torch use the migration report counts."""
    settings = Settings()
    result = Analyzer().analyze(text, settings, None)
    return [(u.torch_api, u.span.start_line, u.span.start_col) for u in api_uses(result, knowledge, settings)]


# torchvision/models/detection/fcos.py:476, timm/models/naflexvit.py:598
NAMEDTUPLE = (
    "import torch\n"
    "def f(x: torch.Tensor):\n"
    "    a = x.max(dim=2).values\n"
    "    b = torch.min(x, 1).indices\n"
    "    c = x.topk(3).values.to(torch.float32)\n"
    "    d = x.coalesce().values()\n"  # a sparse tensor's values(): the real torch.Tensor.values
    "    return a, b, c, d\n"
)


def test_fields_of_a_named_tuple_result_are_not_tensor_methods(analyze):
    apis = found(analyze, NAMEDTUPLE)
    assert ("torch.Tensor.values", 2, 21) not in apis and ("torch.Tensor.indices", 3, 24) not in apis
    assert ("torch.Tensor.values", 4, 18) not in apis
    # The field is still a tensor: its own methods resolve.
    assert ("torch.Tensor.to", 4, 25) in apis
    assert [a for a in apis if a[0] in ("torch.Tensor.values", "torch.Tensor.indices")] == [("torch.Tensor.values", 5, 21)]


def test_named_tuple_fields_in_the_report(knowledge):
    names = [u for u in uses(knowledge, NAMEDTUPLE) if u[0] in ("torch.Tensor.values", "torch.Tensor.indices")]
    assert names == [("torch.Tensor.values", 5, 21)]


# torchvision/models/resnet.py:198 (norm_layer), timm/models/vgg.py:139 (pool_layer)
LOCAL_ALIAS = (
    "import torch.nn as nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self, norm_layer=None):\n"
    "        super().__init__()\n"
    "        if norm_layer is None:\n"
    "            norm_layer = nn.BatchNorm2d\n"
    "        pool_layer = nn.MaxPool2d\n"
    "        self.bn1 = norm_layer(3)\n"
    "        self.pool = pool_layer(2)\n"
    "        self.body = make(norm_layer=norm_layer)\n"
    "    def forward(self, x):\n"
    "        return self.bn1(x).size()\n"
)


def test_a_local_name_holding_a_torch_class_is_reported_where_the_class_is_named(analyze):
    apis = found(analyze, LOCAL_ALIAS)
    assert [a for a in apis if a[0] in ("torch.nn.BatchNorm2d", "torch.nn.MaxPool2d")] == [
        ("torch.nn.BatchNorm2d", 5, 25),
        ("torch.nn.MaxPool2d", 6, 21),
    ]
    # The value still flows: norm_layer(3) builds a layer, calling it yields a tensor.
    assert ("torch.Tensor.size", 11, 27) in apis


def test_local_torch_class_names_in_the_report(knowledge):
    names = [u for u in uses(knowledge, LOCAL_ALIAS) if u[0] in ("torch.nn.BatchNorm2d", "torch.nn.MaxPool2d")]
    assert names == [("torch.nn.BatchNorm2d", 5, 25), ("torch.nn.MaxPool2d", 6, 21)]


def test_import_aliases_are_still_reported_at_each_use(analyze):
    text = "from torch import masked_select as msel\ndef f(a, m):\n    return msel(a, m), msel(m, a)\n"
    assert found(analyze, text) == [("torch.masked_select", 2, 11), ("torch.masked_select", 2, 23)]


# timm/models/_hub.py:91: `from torch.hub import HASH_REGEX` then `HASH_REGEX.search(name)`
def test_a_method_of_a_torch_constant_is_not_a_torch_api(analyze):
    text = "from torch.hub import HASH_REGEX\ndef f(name):\n    return HASH_REGEX.search(name)\n"
    assert found(analyze, text) == [("torch.hub.HASH_REGEX", 2, 11)]


def test_enum_members_and_capitalised_classes_keep_their_names(analyze):
    text = (
        "import torch.nn as nn\n"
        "from torchvision.models.resnet import ResNet18_Weights\n"
        "w = ResNet18_Weights.IMAGENET1K_V1\n"
        "rnn = nn.GRU(3, 3)\n"
    )
    apis = [a[0] for a in found(analyze, text)]
    assert apis == ["torchvision.models.resnet.ResNet18_Weights.IMAGENET1K_V1", "torch.nn.GRU"]


# torchvision/models/quantization/utils.py:25: `torch.backends.quantized.engine = backend`
def test_setting_a_torch_flag_reports_the_flag(analyze, knowledge):
    text = "import torch\ntorch.backends.cudnn.benchmark = True\nprint(torch.backends.cudnn.enabled)\n"
    assert found(analyze, text) == [("torch.backends.cudnn.benchmark", 1, 0), ("torch.backends.cudnn.enabled", 2, 6)]
    assert uses(knowledge, text) == [("torch.backends.cudnn.benchmark", 1, 0), ("torch.backends.cudnn.enabled", 2, 6)]


def test_setting_an_attribute_of_a_tensor_or_of_self_stays_silent(analyze):
    text = (
        "import torch\n"
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.scale = 2\n"
        "def f(x: torch.Tensor):\n"
        "    x.requires_grad = False\n"
    )
    assert [a[0] for a in found(analyze, text)] == ["torch.nn.Module", "torch.Tensor"]


# timm/models/vision_transformer.py:763: `self.cls_token = nn.Parameter(...) if class_token else None`
def test_an_optional_parameter_is_a_tensor(analyze):
    text = (
        "import torch\n"
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, class_token=True):\n"
        "        super().__init__()\n"
        "        self.cls_token = nn.Parameter(torch.zeros(1, 1, 8)) if class_token else None\n"
        "    def forward(self, x):\n"
        "        if self.cls_token is not None:\n"
        "            x = torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), dim=1)\n"
        "        return x\n"
    )
    assert ("torch.Tensor.expand", 8, 42) in found(analyze, text)


def test_a_conditional_value_of_unrelated_kinds_is_unknown(analyze):
    text = (
        "import torch\n"
        "def f(x: torch.Tensor, flag, items):\n"
        "    y = x if flag else items\n"
        "    return y.to('cpu')\n"
    )
    assert [a for a in found(analyze, text) if a[0] == "torch.Tensor.to"] == []


# timm/models/levit.py:61 (`m = nn.Conv2d(...)`, `m.weight.data.copy_(w)`), xcit.py:51
def test_the_weight_and_bias_of_a_torch_layer_are_tensors(analyze):
    text = (
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Conv2d(3, 3, 1)\n"
        "    def fuse(self, w):\n"
        "        m = nn.Linear(3, 3)\n"
        "        m.weight.data.copy_(w)\n"
        "        return self.proj.weight.device, self.proj.stride.index(1)\n"
    )
    apis = [a for a in found(analyze, text) if a[0].startswith("torch.Tensor.")]
    assert apis == [("torch.Tensor.device", 8, 32)]
    # .data is equivalent (it reads and assigns as in PyTorch, measured: tests/knowledge/
    # test_audit_facts.py), so no finding, but still the use of a tensor's attribute.
    assert ("torch.Tensor.data", 7, 17) in uses(default_knowledge(), text)
