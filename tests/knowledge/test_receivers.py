"""A tensor-method verdict needs a receiver that may be a tensor: one the code shows is something
else (a NumPy array or call, a builtin container or scalar, a literal) gets no MS101/102/103 from
the method's name alone, while an unknown receiver and a real tensor keep theirs."""

from msport.analysis import Analyzer, Settings

SOURCE = '''import typing
from typing import List, Optional
import numpy as np
import torch


def shown(arr: np.ndarray, items: list, names: List[str], maybe: Optional[np.ndarray], n: int):
    a = arr.flip(0)
    b = np.zeros(3).repeat(2)
    c = items.index(3)
    d = names.count("a")
    e = maybe.flip(0)
    f = [1, 2].index(2)
    g = n.bit_length()
    return a, b, c, d, e, f, g


def unknown(y):
    return y.flip(0)


def tensor(x: torch.Tensor):
    return x.flip(0)
'''


def test_receivers_shown_not_to_be_tensors_get_no_tensor_method_verdict():
    findings = [f for f in Analyzer().analyze(SOURCE, Settings()).findings if f.code in ("MS101", "MS102", "MS103")
                and (f.torch_api or "").startswith("torch.Tensor.")]
    lines = sorted(f.span.start_line + 1 for f in findings)
    text = SOURCE.splitlines()
    assert [text[line - 1].strip() for line in lines] == ["return y.flip(0)", "return x.flip(0)"]


# Reduced from dev code: an attribute of a config read without a call (speechbrain's
# `self.hparams.log_softmax`), fields of a named-tuple result kept in a name (kornia's
# `max0 = x.max(dim=1)` ... `max0.indices`, learn2learn's `sort.indices`), and `to_dense` on an
# unknown receiver (gpytorch's LinearOperator). Look-alikes keep their findings.
NOT_TENSORS = '''import torch


class Model:
    def __init__(self, hparams):
        self.hparams = hparams

    def build(self):
        self.ctc = self.hparams.log_softmax
        return self.ctc


def fields(x: torch.Tensor, y):
    max0 = x.max(dim=1)
    top = torch.topk(y, 2)
    m0 = max0.indices
    kept = top.values
    return m0, kept


def operator(covar):
    return covar.to_dense()


def tensors(x: torch.Tensor, z):
    a = z.log_softmax(-1)
    b = x.to_dense()
    c = x.indices()
    return a, b, c
'''


def test_config_attributes_result_fields_and_operators_are_no_tensor_receivers():
    findings = [f for f in Analyzer().analyze(NOT_TENSORS, Settings()).findings if f.code in ("MS101", "MS102", "MS103")
                and (f.torch_api or "").startswith("torch.Tensor.")]
    text = NOT_TENSORS.splitlines()
    judged = sorted((text[f.span.start_line].strip(), f.torch_api) for f in findings)
    assert judged == [("a = z.log_softmax(-1)", "torch.Tensor.log_softmax"), ("b = x.to_dense()", "torch.Tensor.to_dense"),
                      ("c = x.indices()", "torch.Tensor.indices"), ("max0 = x.max(dim=1)", "torch.Tensor.max")]


# Reduced from dev code: an image's mode (torchvision's img.mode), a NumPy array's size in the
# branch that is no tensor's, fields of two named-tuple results unpacked at once (kornia's
# lightglue), a module's private dictionaries (learn2learn's module._parameters) and a Tensor
# subclass's own fields (torch_geometric's EdgeIndex _indptr). Calls of the same names keep theirs.
FIELDS = '''import torch


def image(img, output):
    return output, img.mode


def count(sample):
    return sample.nelement() if isinstance(sample, torch.Tensor) else sample.size


def matches(scores: torch.Tensor):
    max0, max1 = scores.max(2), scores.max(1)
    return max0.indices, max1.values


def update(module: torch.Tensor, data: torch.Tensor):
    keys = [k for k in module._parameters]
    return keys, data._indptr


def calls(x: torch.Tensor):
    return x.mode(), x.size(0), x.indices()
'''


def test_fields_read_off_other_objects_are_no_tensor_api():
    findings = [f for f in Analyzer().analyze(FIELDS, Settings()).findings if f.code in ("MS101", "MS102", "MS103")
                and (f.torch_api or "").startswith("torch.Tensor.")]
    text = FIELDS.splitlines()
    judged = sorted({(text[f.span.start_line].strip(), f.torch_api) for f in findings})
    assert judged == [("max0, max1 = scores.max(2), scores.max(1)", "torch.Tensor.max"),
                      ("return x.mode(), x.size(0), x.indices()", "torch.Tensor.indices"),
                      ("return x.mode(), x.size(0), x.indices()", "torch.Tensor.mode"),
                      ("return x.mode(), x.size(0), x.indices()", "torch.Tensor.size")]
