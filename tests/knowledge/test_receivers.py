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
