#!/usr/bin/env python3
"""Write a deterministic JSON snapshot of the public API of mindspore or torch.

Run it with a Python that has the package installed (it is never imported by
msport itself):

    python tools/snapshot_api.py mindspore --out rules/snapshots/mindspore-2.10.0.json
    python tools/snapshot_api.py torch --out rules/snapshots/torch-2.13.0.json

Output format (a flat map, one entry per line so diffs stay readable):

    {
    "apis": {
    "mindspore.Tensor.view": ["method", ["self", "*shape"]],
    "mindspore.ops.abs": ["function", ["input"]],
    ...
    },
    "generated_by": "tools/snapshot_api.py",
    "classes": {"mindspore.Tensor": 430, ...},
    "missing_modules": [...],
    "modules": {"mindspore.ops": 1492, ...},
    "package": "mindspore",
    "version": "2.10.0"
    }

Names come from ``dir()`` + ``getattr``, never from ``__all__``: in
mindspore 2.10 ``mindspore.mint.__all__`` lists 162 names that do not exist.
"""

import argparse
import contextlib
import importlib
import inspect
import json
import os
import re
import sys
import types
import warnings

GENERATED_BY = "tools/snapshot_api.py"

# Modules to snapshot, in order. A module that cannot be imported in a given
# version is skipped and listed under "missing_modules".
MODULES = {
    "mindspore": [
        "mindspore",
        "mindspore.ops",
        "mindspore.ops.functional",
        "mindspore.nn",
        "mindspore.nn.probability",
        "mindspore.mint",
        "mindspore.mint.nn",
        "mindspore.mint.nn.functional",
        "mindspore.mint.linalg",
        "mindspore.mint.special",
        "mindspore.mint.fft",
        "mindspore.mint.optim",
        "mindspore.mint.distributed",
        "mindspore.numpy",
        "mindspore.scipy",
        "mindspore.common.initializer",
        "mindspore.communication",
        "mindspore.dataset",
        "mindspore.dataset.vision",
        "mindspore.dataset.transforms",
        "mindspore.dataset.audio",
        "mindspore.dataset.text",
        "mindspore.experimental.optim",
        "mindspore.experimental.optim.lr_scheduler",
        "mindspore.amp",
        "mindspore.train",
        "mindspore.hal",
        "mindspore.runtime",
    ],
    "torch": [
        "torch",
        "torch.nn",
        "torch.nn.functional",
        "torch.nn.init",
        "torch.nn.utils",
        "torch.linalg",
        "torch.fft",
        "torch.special",
        "torch.optim",
        "torch.optim.lr_scheduler",
        "torch.distributed",
        "torch.utils.data",
        "torch.sparse",
        "torch.autograd",
        "torch.amp",
        "torch.cuda",
        "torch.distributions",
    ],
}

# Classes whose methods and properties are snapshotted as "<class>.<name>".
CLASSES = {
    # Cell and Module: which layer methods a ported class still calls the PyTorch way
    # (self.named_parameters() in a Cell) is judged against them.
    "mindspore": ["mindspore.Tensor", "mindspore.Parameter", "mindspore.nn.Cell"],
    "torch": ["torch.Tensor", "torch.nn.Module"],
}

# Modules recorded by name and kind only: reading signatures there is of no
# use to msport (torch.cuda cannot run on a CPU-only machine anyway).
NAMES_ONLY = {"torch.cuda"}


@contextlib.contextmanager
def silenced():
    """Send fd 1 and 2 to /dev/null: both packages print banners and C++
    (glog) warnings on import and on first attribute access, which would
    otherwise bury the tool's own output."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


def import_or_none(name):
    """Import a module, or None when this version does not have it."""
    try:
        return importlib.import_module(name)
    except Exception:  # ImportError, but also errors raised while importing
        return None


def top_level(dotted):
    return dotted.split(".", 1)[0] if isinstance(dotted, str) else None


def is_foreign(obj, package):
    """True for names a module merely imported from elsewhere for its own use
    (``np``, ``os``, ``Optional``...), which are not part of the package's
    API. Objects without a defining module (builtins, constants of builtin
    types, callable instances) are kept."""
    if inspect.ismodule(obj):
        return top_level(obj.__name__) != package
    if inspect.isclass(obj) or inspect.isfunction(obj):
        owner = top_level(getattr(obj, "__module__", None))
        return owner is not None and owner not in (package, "builtins")
    # typing.Optional, typing.Union... are instances of typing classes.
    return top_level(type(obj).__module__) in ("typing", "typing_extensions")


def param_names(func, drop_first=False, alias=None):
    """Parameter names in order, with * / ** on variadic ones; None when no
    signature can be read. `alias` is the public name `func` was found
    under, which may differ from its __name__ (torch.linalg.norm is
    "linalg_norm")."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        # C functions (torch.abs, every mindspore 2.10 Tensor method) have no
        # introspectable signature, but both packages open their docstrings
        # with one: "view(*shape) -> Tensor".
        return doc_param_names(func, alias)
    names = []
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            names.append("*" + p.name)
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            names.append("**" + p.name)
        else:
            names.append(p.name)
    return names[1:] if drop_first else names


def split_top_level(text):
    """Split a parameter list at commas outside brackets and quotes, so that
    "dim: Optional[Tuple[int, int]] = None" stays one piece."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


PARAM_RE = re.compile(r"^(\*{0,2})([A-Za-z_]\w*)\s*(?:[:=].*)?$", re.S)


SIG_LINE_RE = re.compile(r"^(?:[\w.]+\.)?(\w+)\((.*)\)\s*(?:->.*)?$")


def doc_param_names(func, alias=None):
    """Parameter names from a docstring whose first line is the signature,
    e.g. "sum(dim=None, keepdim=False, *, dtype=None) -> Tensor". None when
    the first line is not a signature of this very function or does not
    parse: a guessed signature would be worse than none."""
    doc = getattr(func, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return None
    match = SIG_LINE_RE.match(doc.strip().splitlines()[0].strip())
    if not match or match.group(1) not in (getattr(func, "__name__", None), alias):
        return None
    names = []
    for part in split_top_level(match.group(2)):
        if part in ("", "*", "/"):  # keyword-only / positional-only markers
            continue
        param = PARAM_RE.match(part)
        if not param:
            return None
        names.append(param.group(1) + param.group(2))
    return names


def class_params(cls):
    """The constructor's parameters without self. A class that inherits
    object.__init__ takes its arguments in __new__, which inspect.signature
    on the class itself resolves."""
    init = cls.__dict__.get("__init__") or getattr(cls, "__init__", None)
    if init is None or init is object.__init__:
        return param_names(cls)
    return param_names(init, drop_first=True)


def describe(obj, name):
    """[kind, params] for one module attribute found under `name`."""
    if inspect.ismodule(obj):
        return ["module", None]
    if inspect.isclass(obj):
        return ["class", class_params(obj)]
    if callable(obj):
        # Functions, builtins, and callable instances such as mindspore's
        # Primitive objects in mindspore.ops.functional are all called like
        # functions at a use site.
        return ["function", param_names(obj, alias=name)]
    return ["constant", None]


def public_names(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def snapshot_module(module, package, names_only):
    entries = {}
    for name in public_names(module):
        try:
            obj = getattr(module, name)
        except Exception:  # listed by dir() but not really there
            continue
        if is_foreign(obj, package):
            continue
        kind, params = describe(obj, name)
        entries[f"{module.__name__}.{name}"] = [kind, None if names_only else params]
    return entries


def describe_member(cls, name):
    """[kind, params] for a Tensor/Parameter attribute. The raw class
    attribute tells a property (Python property or C getset/member
    descriptor) from a method without triggering it."""
    raw = None
    for klass in cls.__mro__:
        if name in klass.__dict__:
            raw = klass.__dict__[name]
            break
    if isinstance(raw, property) or inspect.isdatadescriptor(raw):
        return ["property", None]
    obj = getattr(cls, name)
    if callable(obj):
        return ["method", method_params(raw, obj, name)]
    return ["constant", None]


def method_params(raw, obj, name):
    """Parameters of a class attribute as written in the class, so an
    instance method starts with self, whatever it is implemented in."""
    params = param_names(obj, alias=name)
    # The docstring signature of a C method ("view(*shape) -> Tensor")
    # omits the instance that a Python method's signature shows.
    c_method = isinstance(raw, (types.MethodDescriptorType, types.WrapperDescriptorType))
    if params is not None and c_method and params[:1] != ["self"]:
        params = ["self"] + params
    return params


def snapshot_class(cls, qualname):
    entries = {}
    for name in public_names(cls):
        try:
            entries[f"{qualname}.{name}"] = describe_member(cls, name)
        except Exception:
            continue
    return entries


def resolve(dotted):
    module_name, _, attr = dotted.rpartition(".")
    module = import_or_none(module_name)
    return getattr(module, attr, None) if module else None


def snapshot(package):
    """Build the whole snapshot dict for `package`."""
    root = import_or_none(package)
    if root is None:
        raise SystemExit(f"cannot import {package}")
    apis, counts, class_counts, missing = {}, {}, {}, []
    for name in MODULES[package]:
        module = import_or_none(name)
        if module is None:
            missing.append(name)
            continue
        entries = snapshot_module(module, package, name in NAMES_ONLY)
        counts[name] = len(entries)
        apis.update(entries)
    for qualname in CLASSES[package]:
        cls = resolve(qualname)
        if cls is None:
            missing.append(qualname)
            continue
        entries = snapshot_class(cls, qualname)
        class_counts[qualname] = len(entries)
        apis.update(entries)
    return {
        "package": package,
        # "2.13.0+cpu" -> "2.13.0": the local build tag says nothing about the API.
        "version": root.__version__.split("+", 1)[0],
        "generated_by": GENERATED_BY,
        "missing_modules": missing,
        # Names per snapshotted module / class: "modules" lists only modules,
        # so that a reader can tell "absent" from "not looked at".
        "modules": counts,
        "classes": class_counts,
        "apis": apis,
    }


def dumps(data):
    """Sorted-key JSON with every entry of a dict-valued key on its own line,
    so a snapshot diff shows one line per changed API (indent=0 would also
    split each entry's lists over several lines). Also used by
    probe_cpu_kernels.py."""
    lines = ["{"]
    keys = sorted(data)
    for i, key in enumerate(keys):
        comma = "," if i < len(keys) - 1 else ""
        value = data[key]
        if isinstance(value, dict) and value:
            lines.append(f"{json.dumps(key)}: {{")
            items = sorted(value.items())
            for j, (name, entry) in enumerate(items):
                sep = "," if j < len(items) - 1 else ""
                lines.append(f"{json.dumps(name)}: {json.dumps(entry, sort_keys=True)}{sep}")
            lines.append("}" + comma)
        else:
            lines.append(f"{json.dumps(key)}: {json.dumps(value, sort_keys=True)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("package", choices=sorted(MODULES))
    parser.add_argument("--out", help="output file (default rules/snapshots/<package>-<version>.json)")
    args = parser.parse_args(argv)

    # Quiet mindspore's glog before it is loaded; fd redirection covers the rest.
    os.environ.setdefault("GLOG_v", "3")
    with silenced():
        data = snapshot(args.package)

    out = args.out or os.path.join("rules", "snapshots", f"{args.package}-{data['version']}.json")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(dumps(data))
    print(f"{out}: {len(data['apis'])} names; missing modules: {data['missing_modules'] or 'none'}")
    for name, count in {**data["modules"], **data["classes"]}.items():
        print(f"  {name}: {count}")


if __name__ == "__main__":
    main()
