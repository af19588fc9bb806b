#!/usr/bin/env python3
"""Write rules/snapshots/torch-defaults-<version>.json: the literal default of each parameter of
the torch APIs in the torch snapshot whose signature Python can read (functions and classes
written in Python; C builtins have none), as Python source text.

    python tools/snapshot_torch_defaults.py [--out FILE]    # in a venv with torch installed

A call form that finds a keyword the MindSpore target lacks says what PyTorch does by default
with it (`log_target=True` where PyTorch's default is False) instead of leaving the user to look
it up; a default that is no literal (a function, an object) is left out."""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LITERALS = (type(None), bool, int, float, str)


def literal(value):
    if isinstance(value, LITERALS):
        return repr(value)
    if isinstance(value, tuple) and all(isinstance(v, LITERALS) for v in value):
        return repr(value)
    return None


def resolve(name: str):
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ImportError(name)


def defaults(name: str, kind: str):
    try:
        obj = resolve(name)
        signature = inspect.signature(obj.__init__ if kind == "class" else obj)
    except Exception:
        return None
    found = {}
    for parameter in signature.parameters.values():
        if parameter.default is inspect.Parameter.empty:
            continue
        text = literal(parameter.default)
        if text is not None:
            found[parameter.name] = text
    return found or None


def main() -> int:
    import torch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "rules" / "snapshots" / f"torch-defaults-{torch.__version__.split('+')[0]}.json")
    args = parser.parse_args()
    snapshot = json.loads((ROOT / "rules" / "snapshots" / "torch-2.13.0.json").read_text(encoding="utf-8"))["apis"]
    apis = {}
    for name, (kind, _) in sorted(snapshot.items()):
        if kind in ("function", "class") and not any(p.startswith("_") for p in name.split(".")):
            found = defaults(name, kind)
            if found:
                apis[name] = found
    text = json.dumps({"package": "torch", "version": torch.__version__, "generated_by": "tools/snapshot_torch_defaults.py",
                       "apis": apis}, indent=0, sort_keys=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(f"{len(apis)} APIs with literal defaults -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
