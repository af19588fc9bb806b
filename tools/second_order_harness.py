"""Run one second-order case on the real torch and mindspore: the harness shared by
tools/probe_second_order.py (which finds a call form for every mapped API and writes the table)
and tests/second_order/ (which re-runs the table's entries in CI).

A case is a call of one API on a differentiated input ``x`` (and fixed constants), written once
for torch and once for MindSpore. Both sides compute the same quantity,

    f(x) = sum(W * y * y)  with  y = the call's (first floating) output,
    h(x) = d/dx sum(U * df/dx)   (a Hessian-vector product: grad of grad),

torch with double backward (``create_graph=True``), MindSpore three ways:

    pynative   ms.grad(outer) where outer calls ms.grad(f): plain nested grad, PyNative
    inner_jit  the same with the inner gradient compiled: ms.jit(ms.grad(f))
    graph      the whole nested gradient compiled: ms.jit(ms.grad(outer))

Squaring the output makes h depend on the API's backward being differentiable, linear APIs
(reshape, matmul by a constant) included. Statuses per mode:

    ok        h matches torch's
    zero      h is all zeros where torch's is not (silently wrong)
    wrong     h differs from torch's otherwise (silently wrong)
    no-bprop  "XGrad's bprop not defined": the API's gradient has no gradient of its own
    no-kernel no CPU kernel (graph mode: the compiler got past automatic differentiation)
    crash     another error at the second order, the first order having run
    n/a       the first order already fails or differs from torch in this mode
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys

import numpy as np

MODES = ("pynative", "inner_jit", "graph")
STATUSES = ("ok", "zero", "wrong", "no-bprop", "no-kernel", "crash", "n/a")
NO_BPROP = re.compile(r"primitive:? (?:primitive )?(\w+)'s bprop not defined", re.IGNORECASE)
#: A jit-compiled gradient whose op has no second-order bprop, differentiated again outside it.
FAKE_BPROP = re.compile(r"\[fake_bprop\]")
NO_KERNEL = re.compile(
    r"The kernel \S+ unregistered|Not found op \S+ on device CPU|Create kernelmod for op \S+ failed|only supports? Ascend"
    r"|is not supported on this device|Select CPU operator\[\S+\] fail|Unsupported op \[\S+\] on CPU|Kernel select failed")
RTOL = 2e-3  # relative to the largest entry of torch's result
ATOL = 1e-6  # float32 noise around zero


# -- inputs ----------------------------------------------------------------------------
def _mixed(rng, shape):
    """Values in +-[0.2, 0.9]: away from kinks at 0 (relu, abs) and inside most domains."""
    return (rng.uniform(0.2, 0.9, shape) * rng.choice([-1.0, 1.0], shape)).astype(np.float32)


def inputs():
    """The differentiated inputs (by token) and the constants a call may use, as numpy arrays.
    Fixed seeds: the probe and CI see the same numbers."""
    rng = np.random.default_rng(20261116)
    square = rng.uniform(-0.5, 0.5, (3, 3)).astype(np.float32) + 2 * np.eye(3, dtype=np.float32)
    xs = {
        "x": _mixed(rng, (3, 4)),
        "xp": rng.uniform(0.2, 0.9, (3, 4)).astype(np.float32),  # positive (log, sqrt, pow)
        "xu": rng.uniform(-0.8, 0.8, (3, 4)).astype(np.float32),  # inside (-1, 1) (atanh, acos)
        "xv": _mixed(rng, (6,)),
        "xs": square,  # a well-conditioned square matrix (det, inv, solve)
        "xspd": (square @ square.T).astype(np.float32),  # symmetric positive definite (cholesky)
        "x3": _mixed(rng, (2, 2, 8)),
        "x4": _mixed(rng, (2, 2, 6, 6)),
        "x5": _mixed(rng, (1, 2, 4, 4, 4)),
    }
    constants = {
        "Y": _mixed(rng, (3, 4)),
        "WT": _mixed(rng, (4, 3)),
        "V4": _mixed(rng, (4,)),
        "V6": _mixed(rng, (6,)),
        "LIN_W": _mixed(rng, (5, 4)),
        "LIN_B": _mixed(rng, (5,)),
        "W3": _mixed(rng, (3, 2, 3)),
        "W4": _mixed(rng, (3, 2, 3, 3)),
        "W5": _mixed(rng, (3, 2, 2, 2, 2)),
        "B3": _mixed(rng, (3,)),
        "NW": rng.uniform(0.5, 1.5, (4,)).astype(np.float32),
        "NB": _mixed(rng, (4,)),
        "NW2": rng.uniform(0.5, 1.5, (2,)).astype(np.float32),
        "NB2": _mixed(rng, (2,)),
        "P": rng.uniform(0.1, 0.9, (3, 4)).astype(np.float32),
        "IDX": np.array([2, 0, 1], np.int64),
        "IDX2": rng.integers(0, 4, (3, 4)).astype(np.int64),
        "TGT": np.array([1, 3, 0], np.int64),
        "MASK": rng.uniform(0, 1, (3, 4)) > 0.5,
        "GRID": rng.uniform(-0.9, 0.9, (2, 4, 4, 2)).astype(np.float32),
        "S3": rng.uniform(-0.5, 0.5, (3, 3)).astype(np.float32) + 2 * np.eye(3, dtype=np.float32),
    }
    return xs, constants


# -- running -----------------------------------------------------------------------------
def message_lines(exc):
    """The lines of an error that say something (mindspore frames its messages with rules and
    headings and appends a C++ call stack)."""
    lines = []
    for line in str(exc).splitlines():
        line = line.strip()
        if line.startswith("- C++ Call Stack"):
            break
        if not line or set(line) <= {"-"} or (line.startswith("- ") and line.endswith(":")):
            continue
        lines.append(line)
    return lines


def describe(exc):
    lines = [re.sub(r"0x[0-9a-fA-F]+", "0x?", line) for line in message_lines(exc)]
    lines = [re.sub(r"\S*/so-probe-[^/\s]+/\S+\.py", "<probe>", line) for line in lines]
    return (type(exc).__name__ + ": " + (lines[0] if lines else ""))[:240], lines


def _missing_bprop(lines):
    """The primitive whose bprop an error says is missing ("?" when the error does not name it)."""
    for line in lines:
        match = NO_BPROP.search(line)
        if match:
            return match.group(1) if match.group(1) != "fake_bprop" else "?"
    if any(FAKE_BPROP.search(line) for line in lines):
        return "?"  # a compiled gradient differentiated again: named by the other modes
    return None


def _numpy(value):
    """Host copy; a ZeroTensor (mindspore's symbolic zero gradient) is zeros."""
    try:
        return value.asnumpy()
    except Exception as exc:  # "Cannot convert a ZeroTensor to numpy"
        if "ZeroTensor" in str(exc):
            return np.zeros(value.shape, np.float32)
        raise


def _close(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    if a.shape != b.shape or not np.all(np.isfinite(a)):
        return False
    return float(np.max(np.abs(a - b), initial=0.0)) <= RTOL * float(np.max(np.abs(b), initial=0.0)) + ATOL


def _first_float(value, torch):
    """The index path of the first floating tensor in *value* ("" for the value itself)."""
    if isinstance(value, torch.Tensor):
        return "" if value.is_floating_point() else None
    if isinstance(value, (tuple, list)):
        for index, item in enumerate(value):
            if isinstance(item, torch.Tensor) and item.is_floating_point():
                return f"[{index}]"
    return None


class Torch:
    """The torch side of a case: eval the call text, differentiate twice."""

    def __init__(self):
        import torch

        torch.manual_seed(0)
        self.torch = torch
        self.xs, consts = inputs()
        self.consts = {k: torch.tensor(v) for k, v in consts.items()}

    def run(self, call, token, setup=None):
        """(output index path, W shape, first-order gradient, Hessian-vector product, the layer
        built by *setup*) or an exception. The call must be deterministic, differentiable at x,
        with a finite, non-zero gradient."""
        torch = self.torch
        namespace = {"torch": torch, **self.consts}
        if setup:
            torch.manual_seed(0)
            namespace["L"] = eval(setup, namespace)  # probe data only
        x = torch.tensor(self.xs[token], requires_grad=True)
        namespace["x"] = x
        y = eval(call, namespace)
        path = _first_float(y, torch)
        if path is None:
            raise TypeError("no floating output")
        y = eval("y" + path, {"y": y})
        again = eval("y" + path, {"y": eval(call, namespace)})
        if not torch.equal(y.detach(), again.detach()):
            raise TypeError("not deterministic")
        w = torch.tensor(np.random.default_rng(7).uniform(0.5, 1.5, tuple(y.shape)).astype(np.float32))
        u = torch.tensor(np.random.default_rng(8).uniform(0.5, 1.5, tuple(x.shape)).astype(np.float32))
        f = (w * y * y).sum()
        (g,) = torch.autograd.grad(f, x, create_graph=True)
        (h,) = torch.autograd.grad((g * u).sum(), x, allow_unused=True)
        g, h = g.detach().numpy(), (h.numpy() if h is not None else np.zeros_like(g.detach().numpy()))
        if not (np.all(np.isfinite(g)) and np.all(np.isfinite(h))) or not np.any(g):
            raise TypeError("no finite, non-zero gradient")
        return path, tuple(y.shape), g, h, namespace.get("L")


MODULE = '''\
import mindspore
import mindspore as ms
import numpy as np
from _so_constants import CONSTANTS, W_SHAPE, U_SHAPE, SETUP

globals().update(CONSTANTS)
L = SETUP()
W = ms.Tensor(np.random.default_rng(7).uniform(0.5, 1.5, W_SHAPE).astype(np.float32))
U = ms.Tensor(np.random.default_rng(8).uniform(0.5, 1.5, U_SHAPE).astype(np.float32))


def f(x):
    y = ({call}){path}
    return (W * y * y).sum()


inner = ms.grad(f)
inner_jit = ms.jit(ms.grad(f))


def outer(x):
    return (inner(x) * U).sum()


def outer_inner_jit(x):
    return (inner_jit(x) * U).sum()
'''


class MindSpore:
    """The MindSpore side: a module per case (mindspore.jit reads the functions' source)."""

    def __init__(self, workdir):
        import mindspore as ms

        ms.set_device("CPU")
        # Without this PyNative runs ops asynchronously and an error surfaces at a later call.
        ms.set_context(pynative_synchronize=True)
        self.ms = ms
        self.workdir = workdir
        self.xs, consts = inputs()
        self.consts = {k: ms.Tensor(v) for k, v in consts.items()}
        self.count = 0
        sys.path.insert(0, workdir)
        import types

        shared = types.ModuleType("_so_constants")
        shared.CONSTANTS = self.consts
        sys.modules["_so_constants"] = shared
        self.shared = shared

    def _module(self, call, path, w_shape, u_shape, setup, torch_layer):
        ms = self.ms
        self.shared.W_SHAPE, self.shared.U_SHAPE = w_shape, u_shape

        def build():
            if not setup:
                return None
            layer = eval(setup, {"mindspore": ms, "ms": ms, **self.consts})  # probe data only
            if torch_layer is not None:
                copy_parameters(torch_layer, layer, ms)
                layer.set_train(torch_layer.training)
            return layer

        self.shared.SETUP = build
        self.count += 1
        name = f"so_case_{os.getpid()}_{self.count}"
        path_py = os.path.join(self.workdir, name + ".py")
        with open(path_py, "w", encoding="utf-8") as out:
            out.write(MODULE.format(call=call, path=path))
        spec = importlib.util.spec_from_file_location(name, path_py)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    def run(self, call, token, path, w_shape, reference, setup=None, torch_layer=None):
        """{mode: (status, detail)} and the overall bprop fact for one case."""
        ms = self.ms
        g_ref, h_ref = reference
        x = ms.Tensor(self.xs[token])
        try:
            module = self._module(call, path, w_shape, tuple(x.shape), setup, torch_layer)
        except Exception as exc:
            text, _ = describe(exc)
            return {mode: ("n/a", "cannot build the call: " + text) for mode in MODES}
        first = {
            "pynative": lambda: module.inner(x),
            "inner_jit": lambda: module.inner_jit(x),
            "graph": lambda: module.inner_jit(x),
        }
        second = {
            "pynative": lambda: ms.grad(module.outer)(x),
            "inner_jit": lambda: ms.grad(module.outer_inner_jit)(x),
            "graph": lambda: ms.jit(ms.grad(module.outer))(x),
        }
        results = {}
        for mode in MODES:
            first_error = None
            try:
                first_ok = _close(_numpy(first[mode]()), g_ref)
            except Exception as exc:
                first_ok, first_error = False, describe(exc)[0]
                if _missing_bprop(describe(exc)[1]):
                    results[mode] = ("n/a", "no first-order gradient: " + first_error)
                    continue
            try:
                h = _numpy(second[mode]())
            except Exception as exc:
                text, lines = describe(exc)
                missing = _missing_bprop(lines)
                if missing:
                    results[mode] = ("no-bprop", missing)
                elif any(NO_KERNEL.search(line) for line in lines):
                    results[mode] = ("no-kernel", text)
                elif first_error or not first_ok:
                    results[mode] = ("n/a", first_error or "the first order differs from torch")
                else:
                    results[mode] = ("crash", text)
                continue
            if first_error or not first_ok:
                results[mode] = ("n/a", first_error or "the first order differs from torch")
            elif _close(h, h_ref):
                results[mode] = ("ok", "")
            elif not np.any(h) and np.any(np.abs(h_ref) > 1e-4):
                results[mode] = ("zero", "")
            else:
                err = float(np.max(np.abs(np.asarray(h, np.float64) - h_ref)))
                results[mode] = ("wrong", f"max difference {err:.3g}, torch's largest entry {float(np.max(np.abs(h_ref))):.3g}")
        if any(status in ("zero", "wrong") for status, _ in results.values()):
            self._confirm(results, module, x, h_ref)
        return results

    def _confirm(self, results, module, x, h_ref):
        """A zero or wrong second derivative stands only if MindSpore's own first-order gradient,
        differenced along U, agrees with torch's double backward: then the function is the same
        and only its second derivative is off. Otherwise the case says nothing (n/a)."""
        ms = self.ms
        u = _numpy(module.U)
        eps = 1e-2
        try:
            step = ms.Tensor((u * eps).astype(np.float32))
            plus, minus = _numpy(module.inner_jit(x + step)), _numpy(module.inner_jit(x - step))
            finite = (plus.astype(np.float64) - minus) / (2 * eps)
            agrees = float(np.max(np.abs(finite - h_ref))) <= 2e-2 * float(np.max(np.abs(h_ref))) + 1e-5
        except Exception as exc:
            agrees, finite = False, describe(exc)[0]
        for mode, (status, detail) in list(results.items()):
            if status in ("zero", "wrong"):
                if agrees:
                    results[mode] = (status, (detail + "; " if detail else "") + "MindSpore's own first-order gradient, differenced, agrees with torch")
                else:
                    results[mode] = ("n/a", "torch's double backward and MindSpore's differenced first-order gradient disagree")


def copy_parameters(torch_layer, ms_layer, ms):
    """The torch layer's parameters into the MindSpore cell, in order, where the shapes agree
    (a conv's or a dense layer's weight has the same layout in both); anything else is a
    harness failure, not a fact about the API."""
    source = [p.detach().numpy() for p in torch_layer.parameters()]
    target = list(ms_layer.get_parameters())
    if len(source) != len(target) or any(tuple(s.shape) != tuple(t.shape) for s, t in zip(source, target)):
        raise TypeError(f"parameters differ: {[s.shape for s in source]} vs {[tuple(t.shape) for t in target]}")
    for s, t in zip(source, target):
        t.set_data(ms.Tensor(s))


def bprop_fact(results):
    """Whether the API's gradient is differentiable in MindSpore, from the three modes: missing
    (one said no-bprop), present (one ran or compiled past differentiation) or unknown."""
    statuses = {status for status, _ in results.values()}
    if "no-bprop" in statuses:
        return "missing"
    if statuses & {"ok", "zero", "wrong"} or results.get("graph", ("",))[0] == "no-kernel":
        return "present"
    return "unknown"
