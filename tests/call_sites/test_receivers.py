"""Receivers typed within one module (issue 13), from patterns of real projects: each case names a
call that must get a tensor-method verdict in the migration report's API uses, beside a look-alike
(same method name) whose receiver is not a tensor and must get none."""

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.api_uses import api_uses


def judged(knowledge, text):
    """{(1-based line, method)} of every tensor method the report counts."""
    settings = Settings()
    result = Analyzer().analyze(text, settings, None)
    return {(u.span.start_line + 1, u.torch_api.rpartition(".")[2]) for u in api_uses(result, knowledge, settings)
            if u.torch_api.startswith("torch.Tensor.")}


CASES = {
    # kornia losses: the log-probabilities come from a helper of the same module.
    "helper result": (
        "import torch\n"
        "def _log_probs(pred):\n"
        "    return pred.log_softmax(1)\n"
        "def _names(n):\n"
        "    return ['a'] * n\n"
        "def focal(pred, n):\n"
        "    log_p = _log_probs(pred)\n"
        "    names = _names(n)\n"
        "    names.sort()\n"  # 9: a list
        "    return log_p.exp()\n",  # 10
        (10, "exp"), (9, "sort"),
    ),
    # pytorch_metric_learning: a tuple element of a helper's result, the others not tensors.
    "tuple element": (
        "import torch\n"
        "def split(x: torch.Tensor):\n"
        "    return x[:, 0], {'n': 1}\n"
        "def use(t: torch.Tensor):\n"
        "    rows, meta = split(t)\n"
        "    meta.values()\n"  # 6: a dict
        "    return rows.flatten()\n",  # 7
        (7, "flatten"), (6, "values"),
    ),
    # kornia subpix: the parameters are tensors at every call of the module.
    "parameters from callers": (
        "import torch\n"
        "def det3(dxx, dyy, names):\n"
        "    names.copy()\n"  # 3: a list at the call
        "    det = dxx * dyy\n"
        "    return det.abs()\n"  # 5
        "def solve(h: torch.Tensor):\n"
        "    return det3(h[0], h[1], ['xx', 'yy'])\n",
        (5, "abs"), (3, "copy"),
    ),
    # mmdet BaseBoxes: `self.tensor = data` after data is made a tensor in steps.
    "self attribute assigned in steps": (
        "import torch\n"
        "class Boxes:\n"
        "    def __init__(self, data, names):\n"
        "        if isinstance(data, list):\n"
        "            data = torch.as_tensor(data)\n"
        "        data = data.to(dtype=torch.float32)\n"
        "        self.tensor = data\n"
        "        self.names = names\n"
        "    def chunk(self, n):\n"
        "        self.names.index('a')\n"  # 10: unknown, not a tensor
        "        return self.tensor.chunk(n)\n",  # 11
        (11, "chunk"), (10, "index"),
    ),
    # kornia ALIKEDFeatures: dataclass fields annotated as tensors.
    "dataclass field": (
        "import torch\n"
        "from dataclasses import dataclass\n"
        "from typing import List\n"
        "@dataclass\n"
        "class Features:\n"
        "    keypoints: torch.Tensor\n"
        "    names: List[str]\n"
        "    def to(self, device):\n"
        "        self.names.copy()\n"  # 9
        "        return self.keypoints.to(device)\n",  # 10
        (10, "to"), (9, "copy"),
    ),
    # speechbrain RNN: hx: Optional[torch.Tensor].
    "optional annotation": (
        "import torch\n"
        "from typing import List, Optional\n"
        "def step(x, hx: Optional[torch.Tensor] = None, order: Optional[List[int]] = None):\n"
        "    order.sort()\n"  # 4
        "    return hx.reshape(2, -1)\n",  # 5
        (5, "reshape"), (4, "sort"),
    ),
    # torch_geometric QM9: a module-level tensor constant used in a function.
    "module-level tensor": (
        "import numpy as np\n"
        "import torch\n"
        "conversion = torch.tensor([1.0, 2.0])\n"
        "table = np.array([1.0, 2.0])\n"
        "def scale(y):\n"
        "    t = table.reshape(1, -1)\n"  # 6: NumPy
        "    return y * conversion.view(1, -1)\n",  # 7
        (7, "view"), (6, "reshape"),
    ),
    # torch_geometric convs: a method annotated to return a tensor.
    "return annotation": (
        "from typing import List\n"
        "import torch\n"
        "from torch import Tensor\n"
        "class Conv:\n"
        "    def propagate(self, x) -> Tensor:\n"
        "        return helper(x)\n"
        "    def keys(self) -> List[str]:\n"
        "        return helper(None)\n"
        "    def run(self, x):\n"
        "        self.keys().sort()\n"  # 10
        "        out = self.propagate(x)\n"
        "        return out.mean(dim=1)\n",  # 12
        (12, "mean"), (10, "sort"),
    ),
    # ultralytics SAM encoder: the layers of a ModuleList, each called on a tensor.
    "layers of a ModuleList": (
        "from torch import nn\n"
        "class Encoder(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layers = nn.ModuleList([nn.Linear(4, 4)])\n"
        "        self.names = ['a', 'b']\n"
        "    def forward(self, x):\n"
        "        for layer in self.layers:\n"
        "            x = layer(x)\n"
        "        for name in self.names:\n"
        "            name.split('_')\n"  # 11: str.split
        "        return x.transpose(0, 1)\n",  # 12
        (12, "transpose"), (11, "split"),
    ),
    # speechbrain ResNet: sub-layers built by a helper method, called on the input.
    "sub-layer built by a helper": (
        "from torch import nn\n"
        "class ResNet(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.layer1 = self._make_layer(4)\n"
        "    def _make_layer(self, n):\n"
        "        return nn.Sequential(nn.Linear(n, n))\n"
        "    def forward(self, x):\n"
        "        x = self.layer1(x)\n"
        "        return x.transpose(2, 3)\n"  # 10
        "class Runner:\n"  # a plain class: its attributes' calls say nothing
        "    def __init__(self, fn):\n"
        "        self.fn = fn\n"
        "    def run(self, x):\n"
        "        return self.fn(x).transpose(2, 3)\n",  # 15
        (10, "transpose"), (15, "transpose"),
    ),
    # ultralytics loss: rows of tensors in a loop (zip, enumerate).
    "loop over tensors": (
        "import torch\n"
        "def per_image(preds: torch.Tensor, targets: torch.Tensor, names):\n"
        "    for i, (p, t) in enumerate(zip(preds, targets)):\n"
        "        p.float()\n"  # 4
        "    for name in names:\n"
        "        name.split('_')\n"  # 6
        "    return t.sum()\n",  # 7
        (4, "float"), (6, "split"),
    ),
    # open_clip / speechbrain: comprehensions over the chunks of a tensor; a comprehension over
    # strings with the same variable name stays a string.
    "comprehension over tensors": (
        "import torch\n"
        "def chunks(x: torch.Tensor, names):\n"
        "    parts = [t.float() for t in x.split(2)]\n"  # 3
        "    keys = [t.split('_') for t in names]\n"  # 4
        "    rows = {i: t.cpu() for i, t in enumerate(x)}\n"  # 5
        "    return parts, keys, rows\n",
        (3, "float"), (4, "split"),
    ),
    "comprehension variable does not leak": (
        "import torch\n"
        "def f(x: torch.Tensor, t):\n"
        "    rows = [t.cpu() for t in x]\n"  # 3
        "    return t.cpu(), rows\n",  # 4: the parameter, not the row
        (3, "cpu"), (4, "cpu"),
    ),
    # mmdet corner heads: a heatmap read from a dict of targets, shown to be a tensor by the
    # chain of tensor methods ending in unsqueeze; a dict's chain ending elsewhere stays silent.
    "receiver shown by a chain of tensor methods": (
        "import torch\n"
        "def offsets(targets, opts):\n"
        "    hm = targets['heat']\n"
        "    m = hm.eq(1).sum(1).gt(0).unsqueeze(1)\n"  # 4
        "    keys = opts['names'].copy()\n"  # 5: copy() shows nothing
        "    return m, keys\n",
        (4, "eq"), (5, "copy"),
    ),
    # ultralytics predictors: a score tensor of a result dict brought to NumPy.
    "chain ending in numpy": (
        "import torch\n"
        "def scores(out, meta):\n"
        "    s = out['scores'].float().cpu().numpy()\n"  # 3
        "    t = meta['size'].float()\n"  # 4: nothing after float
        "    return s, t\n",
        (3, "float"), (4, "float"),
    ),
    # open_clip weight conversion: an in-place copy into an attribute chain of a block.
    "in-place method": (
        "import torch\n"
        "def load(block, w, cfg):\n"
        "    block.attn.proj.weight.copy_(w)\n"  # 3
        "    cfg.items.copy()\n"  # 4: copy (not in place) shows nothing
        "    block.attn.requires_grad_(False)\n"  # 5: layers have requires_grad_ too
        "    return cfg\n",
        (3, "copy_"), (5, "requires_grad_"),
    ),
    # yolov5 bias init: view with sizes is a tensor's; NumPy's view takes a dtype.
    "view with a size": (
        "import torch\n"
        "import numpy as np\n"
        "def init(layers, arr):\n"
        "    for conv in layers:\n"
        "        b = conv.bias.view(3, -1)\n"  # 5
        "    v = arr.view(np.float32)\n"  # 6
        "    return b, v\n",
        (5, "view"), (6, "view"),
    ),
    # size called on a comprehension variable over a list of tensors (sentence_transformers).
    "size called": (
        "import torch\n"
        "def widest(embeddings, images):\n"
        "    n = max(e.size(1) for e in embeddings)\n"  # 3
        "    w = [im.size for im in images]\n"  # 4: PIL's size is a property
        "    return n, w\n",
        (3, "size"), (4, "size"),
    ),
    # speechbrain quantizers: a buffer registered in __init__ and read in forward.
    "registered buffer": (
        "import torch\n"
        "from torch import nn\n"
        "class Q(nn.Module):\n"
        "    def __init__(self, n):\n"
        "        super().__init__()\n"
        "        self.register_buffer('codebook', torch.zeros(n, 4))\n"
        "        self.register_buffer('spare', None)\n"
        "        self.names = {'a': 1}\n"
        "    def forward(self, x):\n"
        "        self.names.values()\n"  # 10: a dict attribute
        "        return x @ self.codebook.float().t()\n",  # 11
        (11, "float"), (10, "values"),
    ),
    # torch_geometric / kornia: a value past an isinstance guard is a tensor; a guard that lets
    # lists through says nothing.
    "isinstance guard": (
        "from typing import Any\n"
        "import torch\n"
        "def split(x: Any, y: Any, n: int):\n"
        "    if not isinstance(x, torch.Tensor):\n"
        "        raise TypeError('x')\n"
        "    if not isinstance(y, (torch.Tensor, list)):\n"
        "        return [y] * n\n"
        "    return x.chunk(n), y.sort()\n",  # 8
        (8, "chunk"), (8, "sort"),
    ),
    # yolov5 / ultralytics heads: outputs gathered in a list literal, read by index and by a
    # loop; a list of names (strings) read the same way is no tensor.
    "list of tensors": (
        "import torch\n"
        "def heads(x: torch.Tensor, names):\n"
        "    outs = [x, x.flip(1)]\n"
        "    labels = [names[0], 'bg']\n"
        "    labels[0].split(',')\n"  # 5: a string
        "    for o in outs:\n"
        "        o.float()\n"  # 7
        "    return outs[-1].float(), outs[:1].count(x)\n",  # 8; outs[:1] is a list
        (8, "float"), (5, "split"),
    ),
    "loop over a list of tensors": (
        "import torch\n"
        "def heads(x: torch.Tensor, names):\n"
        "    outs = (x, x.flip(1))\n"
        "    for o in outs:\n"
        "        o.float()\n"  # 5
        "    for n in (names, 'bg'):\n"
        "        n.split(',')\n"  # 7: strings
        "    return outs\n",
        (5, "float"), (7, "split"),
    ),
    # torch_geometric's reversible GNN frees the storage behind a tensor: the storage's resize_
    # is no tensor method, though in-place tensor methods are evidence elsewhere.
    "storage of a tensor": (
        "import torch\n"
        "def free(inputs, w):\n"
        "    inputs[0].storage().resize_(0)\n"  # 3: a storage
        "    w.copy_(inputs[1])\n"  # 4
        "    return w\n",
        (4, "copy_"), (3, "resize_"),
    ),
    # denoising_diffusion_pytorch: einops keeps a tensor a tensor; given a list, a list.
    "einops rearrange": (
        "import torch\n"
        "from einops import rearrange\n"
        "def embed(t: torch.Tensor, names):\n"
        "    freqs = rearrange(t, 'b -> b 1') * 2\n"
        "    tags = rearrange(names, 'a -> a')\n"
        "    tags.count('x')\n"  # 6: a list
        "    return freqs.sin()\n",  # 7
        (7, "sin"), (6, "count"),
    ),
    # higher's optimizers: a branch that lets only tensors in (the other side is any value).
    "isinstance branch": (
        "import torch as _torch\n"
        "def apply(replacement, target):\n"
        "    if isinstance(replacement, _torch.Tensor) and isinstance(target, _torch.Tensor):\n"
        "        replacement = replacement.to(target.device)\n"  # 4
        "        return replacement\n"
        "    return replacement.count(1)\n",  # 6: any value
        (4, "to"), (6, "count"),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_receiver_typed_and_look_alike_not(knowledge, name):
    text, wanted, look_alike = CASES[name]
    found = judged(knowledge, text)
    assert wanted in found, f"{name}: no verdict on line {wanted[0]} .{wanted[1]}(): {sorted(found)}"
    assert look_alike not in found, f"{name}: line {look_alike[0]} .{look_alike[1]}() is not a tensor's"
