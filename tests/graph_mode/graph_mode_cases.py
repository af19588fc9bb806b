"""Cases for the graph-mode ground truth (test_graph_mode_ground_truth.py): for every rule of
rules/graph_mode.toml a positive (compiling it fails or differs from PyNative, as the rule says)
and a look-alike negative (compiles and gives the PyNative result), each a small module of its
own, run by run_graph_mode_cases.py with the real mindspore.

A case is a dict:
- rule: the rule id; positive: True / False;
- source: the module body (HEADER is prepended). A function case defines ``f``, a layer case
  ``Net``; ``make()`` may build the object to call instead (hooks registered on it); a script
  case defines ``attempt()``, run once;
- inputs: expressions for the arguments (evaluated in the module);
- observe: an expression read after the calls (``obj`` is the object called, ``module`` the
  module): state a silent difference lives in (a list attribute, a global, a hook's calls);
- summary: "changes" records whether two calls gave different results instead of the results
  (random numbers and clocks);
- grad: compare the value and the gradients of the layer's trainable parameters;
- modes: capture modes to run besides PyNative (default: ast, and for positives bytecode and
  bytecode with fullgraph=True);
- extra: other MS4 codes msport may report on the case;
- fixed: msport offers a quick fix here, and the fixed module is compiled too.
"""

HEADER = """import math
import random
import time

import numpy as np
import mindspore as ms
from mindspore import Parameter, Tensor, jit, mint, nn, ops

"""

X = "Tensor(np.arange(4, dtype=np.float32))"
M = "Tensor(np.array([[1, 2, 3], [3, 1, 2], [2, 3, 1]], np.float32))"
V = "Tensor(np.array([3.0, 1.0, 2.0], np.float32))"


#: An input that changes on every call (1, 2, ...), for state that should follow the calls.
NEXT_INPUT = """
CALLS = [0]


def next_input():
    CALLS[0] += 1
    return Tensor(np.full((2,), CALLS[0], np.float32))

"""


#: A layer base class that records, per call, the text printed through sys.stdout ("python")
#: and the text written to file descriptor 1 behind Python's back ("runtime").
PRINT_CAPTURE = """
import contextlib
import io
import os
import sys
import tempfile


class Captured(nn.Cell):
    def __call__(self, *args):
        if not hasattr(self, "printed"):
            object.__setattr__(self, "printed", [])
        python = io.StringIO()
        with tempfile.TemporaryFile() as runtime:
            sys.stdout.flush()
            saved = os.dup(1)
            os.dup2(runtime.fileno(), 1)
            try:
                with contextlib.redirect_stdout(python):
                    out = super().__call__(*args)
            finally:
                sys.stdout.flush()
                os.dup2(saved, 1)
                os.close(saved)
            runtime.seek(0)
            self.printed.append(f"python: {python.getvalue()!r} runtime: {runtime.read().decode()!r}")
        return out

"""


#: A module-level record of what logging and warnings emit, per module (each mode imports the
#: module afresh): the observed value is the list of messages after the two calls.
OUTPUT_RECORD = """
import logging
import sys
import warnings

RECORDS = []


class Keep(logging.Handler):
    def emit(self, record):
        RECORDS.append(record.getMessage())


log = logging.getLogger("msport_case_" + __name__)
log.handlers[:] = [Keep()]
log.propagate = False
log.setLevel(logging.INFO)
warnings.simplefilter("always")
warnings.showwarning = lambda message, *args, **kwargs: RECORDS.append(str(message))

"""


def case(rule, positive, source, inputs=(X,), **options):
    return dict(rule=rule, positive=positive, source=source.strip("\n") + "\n", inputs=list(inputs), **options)


CASES = [
    # MS401: statements
    case("try", True, """
def f(x):
    try:
        y = x + 1
    except ValueError:
        y = x
    return y
"""),
    case("try", False, """
def f(x):
    if x.shape[0] > 0:
        y = x + 1
    else:
        y = x
    return y
"""),
    case("delete", True, """
def f(x):
    y = x + 1
    del y
    return x * 2
""", fixed=True),
    case("delete", False, """
def f(x):
    y = x + 1
    y = None
    return x * 2
"""),
    case("import", True, """
def f(x):
    import cmath
    return x * cmath.pi
""", fixed=True),
    case("import", False, """
def f(x):
    return x * math.pi
"""),
    case("nonlocal", True, """
def f(x):
    n = 1

    def bump():
        nonlocal n
        n = 2

    bump()
    return x * n
"""),
    case("nonlocal", False, """
def f(x):
    n = 1

    def bump():
        return 2

    n = bump()
    return x * n
"""),
    case("match", True, """
def f(x):
    n = x.shape[0]
    match n:
        case 4:
            y = x * 2
        case _:
            y = x
    return y
"""),
    case("match", False, """
def f(x):
    n = x.shape[0]
    if n == 4:
        y = x * 2
    else:
        y = x
    return y
"""),
    case("for-else", True, """
def f(x):
    for _ in range(2):
        x = x + 1
    else:
        x = x * 2
    return x
"""),
    case("for-else", False, """
def f(x):
    for _ in range(2):
        x = x + 1
    x = x * 2
    return x
"""),
    case("while-else", True, """
def f(x):
    i = 0
    while i < 2:
        i += 1
    else:
        x = x * 2
    return x
"""),
    case("while-else", False, """
def f(x):
    i = 0
    while i < 2:
        i += 1
    x = x * 2
    return x
"""),
    case("yield", True, """
def f(x):
    yield x * 2
"""),
    case("yield", False, """
def f(x):
    return [x * 2]
"""),
    case("async", True, """
async def f(x):
    return x * 2
"""),
    case("async", False, """
def f(x):
    return x * 2
"""),
    # MS402: expressions
    case("walrus", True, """
def f(x):
    if (n := x.shape[0]) > 2:
        return x * n
    return x
"""),
    case("walrus", False, """
def f(x):
    n = x.shape[0]
    if n > 2:
        return x * n
    return x
"""),
    # A constant membership test is folded even under fullgraph=True; the set value below is not.
    case("set-literal", True, """
def f(x):
    if x.shape[0] in {3, 4}:
        return x + 1
    return x
""", fixed=True, modes=["ast", "bytecode"]),
    case("set-literal", True, """
def f(x):
    s = {1, 2}
    return x * len(s)
"""),
    case("set-literal", False, """
def f(x):
    if x.shape[0] in (3, 4):
        return x + 1
    return x
"""),
    case("set-comprehension", True, """
def f(x):
    s = {i for i in range(3)}
    return x * len(s)
"""),
    case("set-comprehension", False, """
def f(x):
    s = [i for i in range(3)]
    return x * len(s)
"""),
    case("nested-comprehension", True, """
def f(x):
    rows = [[1, 2], [3]]
    return x * sum([v for row in rows for v in row])
"""),
    case("nested-comprehension", False, """
def f(x):
    rows = [[1, 2], [3]]
    return x * sum([sum(row) for row in rows])
"""),
    case("complex-literal", True, """
def f(x):
    c = 1 + 2j
    return x * c.real
"""),
    case("complex-literal", False, """
def f(x):
    c = complex(1, 2)
    return x * c.real
"""),
    # MS403: built-ins
    case("iter-next", True, """
def f(x):
    it = iter([1, 2])
    return x * next(it)
"""),
    case("iter-next", False, """
def f(x):
    items = [1, 2]
    return x * items[0]
"""),
    case("reversed-cells", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([nn.ReLU(), nn.Tanh()])

    def construct(self, x):
        for block in reversed(self.blocks):
            x = block(x)
        return x
""", fixed=True),
    case("reversed-cells", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([nn.ReLU(), nn.Tanh()])

    def construct(self, x):
        for i in reversed(range(len(self.blocks))):
            x = self.blocks[i](x)
        return x
""", fixed=True),
    case("reversed-cells", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.blocks = nn.SequentialCell([nn.ReLU(), nn.Tanh()])

    def construct(self, x):
        for block in reversed(self.blocks):
            x = block(x)
        return x
"""),
    case("round-tensor-number", True, """
def f(x):
    v = x.mean().item()
    return x * round(v)
"""),
    case("round-tensor-number", False, """
def f(x):
    return x * round(x.shape[0] / 3)
"""),
    case("hash", True, """
def f(x):
    return x * (hash("ab") % 7 + 1)
"""),
    case("hash", False, """
def f(x):
    return x * (len("ab") % 7 + 1)
"""),
    # MS404: with
    case("with", True, """
def f(x):
    with ms._no_grad():
        y = x * 2
    return y
"""),
    case("with", False, """
def f(x):
    y = ops.stop_gradient(x * 2)
    return y
"""),
    # lightweight_gan's AugWrapper: the manager chosen into a local first
    case("with", True, """
import contextlib


def f(x, detach=True):
    context = ms._no_grad if detach else contextlib.nullcontext
    with context():
        y = x * 2
    return y
"""),
    # MS405: classmethod
    case("classmethod", True, """
class Net(nn.Cell):
    @classmethod
    def double(cls, t):
        return t * 2

    def construct(self, x):
        return self.double(x)
""", fixed=True),
    case("classmethod", False, """
class Net(nn.Cell):
    @staticmethod
    def double(t):
        return t * 2

    def construct(self, x):
        return self.double(x)
"""),
    # MS406: set_data
    case("set-data", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros(4, np.float32)))

    def construct(self, x):
        self.p.set_data(x)
        return self.p * 1
""", fixed=True),
    case("set-data", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros(4, np.float32)))

    def construct(self, x):
        ops.assign(self.p, x)
        return self.p * 1
"""),
    # MS407: cell introspection
    case("cell-introspection", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(4, np.float32)))

    def construct(self, x):
        return x * self.trainable_params()[0]
"""),
    case("cell-introspection", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(4, np.float32)))

    def construct(self, x):
        return x * self.w
"""),
    # MS417: an attribute __init__ creates only under a condition (mmdet's GHM-C loss)
    case("conditional-attribute", True, """
class Net(nn.Cell):
    def __init__(self, momentum=0.0):
        super().__init__()
        self.momentum = momentum
        if momentum > 0:
            self.acc = Parameter(Tensor(np.zeros(4, np.float32)), requires_grad=False)

    def construct(self, x):
        mmt = self.momentum
        if mmt > 0:
            self.acc[0] = x.sum()
        return x * 2
"""),
    case("conditional-attribute", False, """
class Net(nn.Cell):
    def __init__(self, momentum=0.0):
        super().__init__()
        self.momentum = momentum
        self.acc = Parameter(Tensor(np.zeros(4, np.float32)), requires_grad=False)

    def construct(self, x):
        mmt = self.momentum
        if mmt > 0:
            self.acc[0] = x.sum()
        return x * 2
"""),
    # MS408: state the graph does not keep
    case("self-container", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.features = []

    def construct(self, x):
        self.features.append(x)
        return x * 2
""", observe="len(obj.features)"),
    case("self-container", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def construct(self, x):
        self.cache["last"] = x
        return x * 2
""", observe="len(obj.cache)"),
    case("self-container", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.features = []

    def construct(self, x):
        features = []
        features.append(x)
        return x * len(features)
""", observe="len(obj.features)"),
    case("global-write", True, """
CALLS = 0


def f(x):
    global CALLS
    CALLS = CALLS + 1
    return x * 2
""", observe="module.CALLS"),
    case("global-write", False, """
SCALE = 2


def f(x):
    return x * SCALE
""", observe="module.SCALE"),
    # MS408: a module-level dict or list changed in compiled code
    case("global-container", True, """
CALLS = {"n": 0}


def f(x):
    CALLS["n"] = CALLS["n"] + 1
    return x * 2
""", observe="module.CALLS[\"n\"]"),
    case("global-container", True, """
SEEN = []


def f(x):
    SEEN.append(1)
    return x * 2
""", observe="len(module.SEEN)"),
    case("global-container", False, """
SCALE = {"k": 2}


def f(x):
    scale = {"k": 3}
    scale["k"] = 4
    return x * SCALE["k"] * scale["k"]
""", observe="module.SCALE"),
    # MS409: bare method statements
    case("statement-sort-remove", True, """
def f(x):
    order = [3, 1, 2]
    order.sort()
    return x * order[0]
""", fixed=True),
    case("statement-sort-remove", True, """
def f(x):
    order = [3, 1, 2]
    order.remove(3)
    return x * order[0]
"""),
    case("statement-sort-remove", True, """
def f(x):
    sizes = {"a": 1}
    sizes.setdefault("b", 5)
    return x * len(sizes)
"""),
    case("statement-sort-remove", False, """
def f(x):
    order = [3, 1, 2]
    order = sorted(order)
    order.append(4)
    return x * order[0] * len(order)
"""),
    case("extend-reads-itself", True, """
def f(x):
    y = [x]
    y.extend(y[-1] * 2 for _ in range(3))
    return y[-1]
""", fixed=True),
    case("extend-reads-itself", False, """
def f(x):
    y = [x]
    y.extend([y[-1] * 2 for _ in range(3)])
    y.extend(x * k for k in range(3))
    return y[-1] + y[1]
"""),
    case("dict-pop", True, """
def f(x):
    sizes = {"a": 1, "b": 2}
    sizes.pop("a")
    return x * len(sizes)
"""),
    case("dict-pop", False, """
def f(x):
    order = [3, 1, 2]
    order.pop()
    return x * len(order)
"""),
    # MS410: tensor data taken into NumPy / SciPy
    case("third-party", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)))

    def construct(self, x):
        y = x * self.w
        order = np.argsort(y.asnumpy())
        return y[Tensor(order)].sum()
""", inputs=(V,), grad=True),
    # Under bytecode capture this one keeps its gradients (the argsort one above does not).
    case("third-party", True, """
from scipy.optimize import linear_sum_assignment


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((3, 3), np.float32)))

    def construct(self, pred):
        cost = ops.matmul(pred, self.w)
        rows, cols = linear_sum_assignment(cost.asnumpy())
        return cost[Tensor(rows), Tensor(cols)].sum()
""", inputs=(M,), grad=True, modes=["ast", "fullgraph"]),
    case("third-party", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)))
        self.scale = float(np.sqrt(3.0))

    def construct(self, x):
        y = x * self.w
        order = ops.sort(y)[1]
        return y[order].sum() * self.scale
""", inputs=(V,), grad=True),
    # NumPy and math on a tensor's shape work on Python numbers: compiled, they agree
    case("third-party", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones(3, np.float32)))

    def construct(self, x):
        y = x * self.w
        count = np.prod(y.shape)
        return y.sum() / float(count) / math.sqrt(x.shape[-1])
""", inputs=(V,), grad=True),
    # MS411: frozen at compile time
    case("frozen-random-time", True, """
def f(x):
    return x * random.random()
""", summary="changes"),
    case("frozen-random-time", True, """
def f(x):
    return x * 0 + time.perf_counter() % 1.0
""", summary="changes"),  # % 1.0: float32 cannot tell two readings apart on a machine up for hours
    case("frozen-random-time", False, """
def f(x):
    return x * ops.rand(())
""", summary="changes"),
    # MS412 / MS413: branches on tensor data
    case("branch-join", True, """
def f(x):
    loss = 0
    if x.sum() > 3:
        loss = loss + x
    return loss
"""),
    case("branch-join", True, """
def f(x):
    if x.sum() > 3:
        return x, x
    return x
"""),
    case("branch-join", True, """
def f(x):
    if x.sum() > 3:
        return x
    return 0
"""),
    # speechbrain's layer-drop loop (ported): a list grows on one side of a data-dependent if.
    # Other uses of such a list fail otherwise (len(): "The pointer[seq_abs] is null") or return
    # a wrong value (returning the list itself). fullgraph=True captures this one whole.
    case("branch-join", True, """
def f(x):
    outs = []
    for i in range(3):
        if x[i] > 0:
            x = x + 1
            outs.append(x)
    return x, outs
""", modes=["ast", "bytecode"]),
    case("branch-join", False, """
def f(x):
    outs = []
    for i in range(3):
        if x[i] > 0:
            x = x + 1
            outs.append(x)
        else:
            outs.append(x * 0)
    return x, outs
""", extra=("MS413",)),
    case("branch-join", False, """
def f(x):
    loss = ops.zeros_like(x)
    if x.sum() > 3:
        loss = loss + x
    return loss
""", extra=("MS413",)),
    case("branch-join", False, """
def f(x):
    loss = 0
    if x.shape[0] > 3:
        loss = loss + x
    return loss
"""),
    # a data operand, then a Python value, joined by and/or (gpytorch's `not t.item() and not prior`)
    case("condition-join", True, """
def f(x, flag=True):
    if x.sum() > 3 and flag:
        x = x * 2
    return x
"""),
    case("condition-join", True, """
def f(x):
    n = 0
    while x.sum() < 100 and n < 5:
        x = x * 2
        n = n + 1
    return x
"""),
    case("condition-join", True, """
def f(x):
    return x * 2 if x.max() > 1 or x.shape[0] == 3 else x
"""),
    case("condition-join", False, """
def f(x, flag=True):
    if flag and x.sum() > 3:
        x = x * 2
    return x
""", extra=("MS413",)),
    case("condition-join", False, """
def f(x):
    if x.sum() > 3 and x.max() < 10:
        x = x * 2
    return x
""", extra=("MS413",)),
    case("data-branch", True, """
def f(x):
    if x.max() > 1:
        x = x / 2
    return x
"""),
    # a data-dependent while alone compiles and agrees on 2.10 (the loop a port evaluation saw
    # fail tested a Python counter after the tensor: condition-join above)
    case("data-branch", True, """
def f(x):
    while x.sum() < 100:
        x = x * 2
    return x
"""),
    case("data-branch", False, """
def f(x):
    if x.shape[0] > 1:
        x = x / 2
    return x
"""),
    # MS414: forward hooks
    case("forward-hook", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = nn.ReLU()
        self.calls = []
        self.inner.register_forward_hook(self.count)

    def count(self, cell, inputs, output):
        self.calls.append(1)

    def construct(self, x):
        return self.inner(x)
""", observe="len(obj.calls)", extra=("MS408",)),  # the append in the hook is lost too
    case("forward-hook", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = nn.ReLU()
        self.calls = []

    def construct(self, x):
        return self.inner(x)


def make():
    return Net()
""", observe="len(obj.calls)"),
    # MS415: views written in place
    case("view-inplace", True, """
def f(x):
    x = x * 1
    y = mint.reshape(x, (2, 2))
    y[0] = 5
    return x
"""),
    case("view-inplace", True, """
def f(x):
    x = x.reshape(2, 2) * 1
    y = mint.t(x)
    y[0] = 5
    return x
"""),
    case("view-inplace", True, """
def f(x):
    x = x * 1
    y = x.view(2, 2)
    y[0] = 5
    return x
"""),
    case("view-inplace", False, """
def f(x):
    x = x * 1
    y = mint.reshape(x, (2, 2))
    y[0] = 5
    return y
"""),
    # MS416: identity
    case("identity", True, """
def f(x):
    y = x
    if y is x:
        return x + 1
    return x - 1
"""),
    case("identity", False, """
def f(x, y=None):
    if y is None:
        return x + 1
    return x - 1
"""),
    # MS420: jit settings (run once, as a script)
    case("jit-level-o2-jit", True, """
def double(x):
    return x * 2


def attempt():
    return ms.jit(double, jit_level="O2")(Tensor(np.ones(2, np.float32))).asnumpy().tolist()
"""),
    case("jit-level-o2-jit", False, """
def double(x):
    return x * 2


def attempt():
    return ms.jit(double, jit_level="O1")(Tensor(np.ones(2, np.float32))).asnumpy().tolist()
"""),
    case("jit-level-o2-config", True, """
def attempt():
    return ms.JitConfig(jit_level="O2").jit_config_dict["backend"]
"""),
    case("jit-level-o2-config", False, """
def attempt():
    return ms.JitConfig(jit_level="O1").jit_config_dict["backend"]
"""),
    case("backend-ge", True, """
def double(x):
    return x * 2


def attempt():
    return ms.jit(double, backend="GE")(Tensor(np.ones(2, np.float32))).asnumpy().tolist()
"""),
    case("backend-ge", False, """
def double(x):
    return x * 2


def attempt():
    return ms.jit(double, backend="ms_backend")(Tensor(np.ones(2, np.float32))).asnumpy().tolist()
"""),
    # MS418: a tensor kept on a plain attribute keeps the first call's value (each call gets a
    # new input, so a stale value shows in the result and in the attribute read afterwards)
    case("tensor-attribute", True, NEXT_INPUT + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.last = None

    def construct(self, x):
        self.last = x * 2
        return x + self.last
""", inputs=("next_input()",), observe="obj.last"),
    case("tensor-attribute", False, NEXT_INPUT + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def construct(self, x):
        self.calls = self.calls + 1
        last = x * 2
        return x + last
""", inputs=("next_input()",), observe="obj.calls"),
    # cogdl's SIGN and PPNP: a tensor cached on the first call under `is None`
    case("tensor-attribute", False, NEXT_INPUT + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cache = None

    def construct(self, x):
        if self.cache is None:
            self.cache = x * 2
        return x + self.cache
""", inputs=("next_input()",), observe="obj.cache"),
    # MS419: an attribute construct creates, read by a method construct calls
    case("new-attribute", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = 2

    def construct(self, x):
        self.big = x.shape[0] > self.limit
        return self.scale(x)

    def scale(self, x):
        if self.big:
            return x * 2
        return x
"""),
    case("new-attribute", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = 2

    def construct(self, x):
        self.big = x.shape[0] > self.limit
        if self.big:
            return x * 2
        return x
"""),
    # MS419: a helper construct calls creates the attribute construct then reads
    case("new-attribute", True, """
class Net(nn.Cell):
    def setup(self, x):
        self.n = x.shape[0]

    def construct(self, x):
        self.setup(x)
        return x * self.n
"""),
    # MS419: a helper creates it and another method construct calls afterwards reads it, in a
    # subclass whose base (in the same module) never creates it (speechbrain's beam searcher)
    case("new-attribute", True, """
class Searcher(nn.Cell):
    def __init__(self):
        super().__init__()
        self.beam = 2


class Net(Searcher):
    def init_data(self, x):
        self.batch = x.shape[0]

    def step(self, x):
        return x * self.batch * self.beam

    def construct(self, x):
        self.init_data(x)
        return self.step(x)
"""),
    # the look-alike: the helper returns the value and construct passes it on
    case("new-attribute", False, """
class Searcher(nn.Cell):
    def __init__(self):
        super().__init__()
        self.beam = 2


class Net(Searcher):
    def init_data(self, x):
        return x.shape[0]

    def step(self, x, batch):
        return x * batch * self.beam

    def construct(self, x):
        batch = self.init_data(x)
        return self.step(x, batch)
"""),
    # MS419: setattr creates it, read back in the same construct (a plain assignment compiles)
    case("new-attribute", True, """
class Net(nn.Cell):
    def construct(self, x):
        setattr(self, "n", x.shape[0])
        return x * self.n
""", modes=["ast", "bytecode"]),  # fullgraph=True refuses setattr itself ("Unsupported function"): an error either way
    # MS419: the same attribute created in __init__ is read by the method with its __init__ value
    case("attribute-handoff", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = 2
        self.big = False

    def construct(self, x):
        self.big = x.shape[0] > self.limit
        return self.scale(x)

    def scale(self, x):
        if self.big:
            return x * 2
        return x
"""),
    case("attribute-handoff", False, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = 2
        self.big = False

    def construct(self, x):
        big = x.shape[0] > self.limit
        return self.scale(x, big)

    def scale(self, x, big):
        if big:
            return x * 2
        return x
"""),
    # MS422: a flag on self that an `if` tests and the branch itself sets (a first-call guard):
    # compiled, the branch runs on every call (measured: PyNative 2, 1, 1; jit 2, 2, 2)
    case("first-call-guard", True, NEXT_INPUT + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first = True

    def construct(self, x):
        if self.first:
            self.first = False
            return x * 2
        return x
""", inputs=("next_input()",), observe="obj.first"),
    # a counter guard: the branch counts up to a limit
    case("first-call-guard", True, NEXT_INPUT + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.warm = 0

    def construct(self, x):
        if self.warm < 1:
            self.warm += 1
            return x * 2
        return x
""", inputs=("next_input()",), observe="obj.warm"),
    # a cache tested with `is None` and filled with a tensor: compiled, it agrees (MS418 speaks
    # of the tensor kept on self)
    case("first-call-guard", False, NEXT_INPUT + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first_input = None

    def construct(self, x):
        if self.first_input is None:
            self.first_input = x * 1
        return x + self.first_input
""", inputs=("next_input()",), extra=("MS418",)),
    # the look-alike: the flag is read, then flipped outside any branch on it: compiled, it agrees
    case("first-call-guard", False, NEXT_INPUT + """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.first = True

    def construct(self, x):
        y = x * 3 if self.first else x
        self.first = False
        return y
""", inputs=("next_input()",), observe="obj.first"),
    # MS419: a helper hands a value to construct through an attribute __init__ created
    case("attribute-handoff", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.n = 1

    def setup(self, x):
        self.n = x.shape[0]

    def construct(self, x):
        self.setup(x)
        return x * self.n
"""),
    # MS423: print in compiled code. `make()` wraps the layer so that each call records what it
    # printed through Python's sys.stdout and what reached file descriptor 1 directly.
    case("print-graph", True, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        print("total", x.sum())
        return x + 1
""", observe="obj.printed"),
    case("print-graph", False, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        print(f"total {x.sum()}")
        return x + 1
""", observe="obj.printed"),
    # MS423: an f-string formatting only a shape is printed by the graph (past sys.stdout, `(4)`)
    case("print-graph", True, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        print(f"shape {x.shape}")
        return x + 1
""", observe="obj.printed"),
    # MS423: `.format` of a shape is printed by the graph too (past sys.stdout); `%` of a shape,
    # and `%` or `.format` of a tensor value, hand one string to Python (the look-alikes)
    case("print-graph", True, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        print("shape {}".format(x.shape))
        return x + 1
""", observe="obj.printed"),
    case("print-graph", False, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        print("shape %s, sum %s" % (x.shape, x.sum()))
        return x + 1
""", observe="obj.printed"),
    case("print-graph", False, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        print("shape %s" % (x.shape,))
        return x + 1
""", observe="obj.printed"),
    case("print-graph", False, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        print("sum {}".format(x.sum()))
        return x + 1
""", observe="obj.printed"),
    # MS424: a warning under a condition on tensor data fires when compiling, taken or not
    case("warn-in-data-branch", True, OUTPUT_RECORD + """
def f(x):
    if x.sum() > 100:
        warnings.warn("large values")
    return x * 2
""", observe="module.RECORDS", extra=("MS413",)),
    case("warn-in-data-branch", True, OUTPUT_RECORD + """
def f(x):
    if x.max() > 100:
        log.warning("large values")
    return x * 2
""", observe="module.RECORDS", extra=("MS413",)),
    # the look-alike: the message formats the tensor value, so Python runs it when taken
    case("warn-in-data-branch", False, OUTPUT_RECORD + """
def f(x):
    m = x.max()
    if m > 100:
        warnings.warn(f"large values {m}")
    return x * 2
""", observe="module.RECORDS", extra=("MS413",)),
    # MS424: a log message with no tensor data is logged once, when compiling
    case("log-once", True, OUTPUT_RECORD + """
def f(x):
    log.info("running the head")
    return x * 2
""", observe="module.RECORDS"),
    case("log-once", True, OUTPUT_RECORD + """
def f(x):
    log.info("input shape %s", x.shape)
    return x * 2
""", observe="module.RECORDS"),
    case("log-once", False, OUTPUT_RECORD + """
def f(x):
    log.info(f"loss {x.sum()}")
    return x * 2
""", observe="module.RECORDS"),
    # MS424: a stream write runs once, when compiling, even with a tensor value in it
    case("stream-write", True, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        sys.stdout.write(f"sum {x.sum()}\\n")
        return x + 1
""", observe="obj.printed"),
    case("stream-write", False, PRINT_CAPTURE + """
class Net(Captured):
    def construct(self, x):
        print(f"sum {x.sum()}")
        return x + 1
""", observe="obj.printed"),
    # MS419: an attribute of a sub-layer set in construct fails when the compiled Cell runs
    case("layer-attribute", True, """
class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.test_mode = False

    def construct(self, x):
        if self.test_mode:
            return x * 10
        return x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        self.inner.test_mode = True
        return self.inner(x)
"""),
    case("layer-attribute", False, """
class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.test_mode = True

    def construct(self, x):
        if self.test_mode:
            return x * 10
        return x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Inner()

    def construct(self, x):
        mode = self.inner.test_mode
        return self.inner(x) if mode else x
"""),
    # MS408: a dict the owner hands over (never assigned by the class), changed with a string key
    case("self-container", True, """
class Net(nn.Cell):
    def construct(self, x):
        self.cache_dict["masks"] = x > 1
        return x * 2


def make():
    net = Net()
    net.cache_dict = {}
    return net
""", observe="len(obj.cache_dict)"),
    # MS421: a number read out of tensor data decides a branch
    case("host-value", True, """
def f(x):
    n = x.sum().item()
    if n > 3:
        return x * 2
    return x
""", extra=("MS413",)),
    # through a local computed from it, and through a method that returns it
    case("host-value", True, """
def f(x):
    peak = x.max().item()
    limit = peak * 2
    if limit > 5:
        return x * 2
    return x
""", extra=("MS413",)),
    case("host-value", True, """
class Net(nn.Cell):
    def total(self, x):
        return x.sum().item()

    def construct(self, x):
        n = self.total(x)
        if n > 3:
            return x * 2
        return x
""", extra=("MS413",)),
    # MS421: used on the spot as a slice bound: compiles and agrees in every capture mode
    case("host-value-size", True, """
def f(x):
    return x[: int(x.max().item())] * 2
""", extra=("MS201",)),
    case("host-value-size", False, """
def f(x):
    return x[: int(x.shape[0]) - 1] * 2
"""),
    case("host-value", False, """
def f(x):
    n = x.sum().item()
    return x / (n + 1.0)
"""),
    # MS425: a name first bound in a loop, read before the iteration binds it (basicsr, torchdiffeq)
    case("loop-carried", True, """
def f(x):
    for i in range(3):
        if i > 0:
            x = x + prev
        prev = x * 2
    return x
""", fixed=True),
    case("loop-carried", True, """
def f(x):
    for i in range(3):
        if i == 0:
            first = x
        else:
            x = x + first
    return x
""", fixed=True),
    case("loop-carried", True, """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4, weight_init="ones", bias_init="zeros") for _ in range(3)])

    def construct(self, x):
        for i, layer in enumerate(self.layers):
            if i > 0:
                x = x + prev
            prev = layer(x)
        return x
""", fixed=True),
    case("loop-carried", True, """
def f(x):
    i = 0
    while i < 3:
        if i > 0:
            x = x + prev
        prev = x * 2
        i += 1
    return x
""", fixed=True),
    # look-alikes: bound before the loop, bound on both sides, bound above the read in the iteration
    case("loop-carried", False, """
def f(x):
    prev = x
    for i in range(3):
        if i > 0:
            x = x + prev
        prev = x * 2
    return x
"""),
    case("loop-carried", False, """
def f(x):
    for k in range(2):
        if k:
            z = 1.0
        else:
            z = 2.0
        h = x * z
        x = h + 1
    return x
"""),
]


def kind(case) -> str:
    source = case["source"]
    if "def attempt(" in source:
        return "script"
    return "layer" if "class Net(" in source else "function"


def module_source(case) -> str:
    """The module run and analysed: a function case is also passed to jit by name, as code
    that compiles it would, so that msport sees it as jit code."""
    text = HEADER + case["source"]
    if kind(case) == "function":
        text += "\n\ncompiled = jit(f)\n"
    return text
