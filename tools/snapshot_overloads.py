#!/usr/bin/env python3
"""Write the overloaded signatures of the APIs in a snapshot (rules/snapshots/<package>-<version>.json).

The snapshot records one parameter list per API. For functions and methods written in C, whose
signature only their docstring states, that is the docstring's first line, and some of them
have several: mindspore 2.10's ``Tensor.max`` opens with ``max() -> Tensor`` and goes on with
``.. method:: Tensor.max(dim, keepdim=False) -> tuple(Tensor)`` and the numpy-style overload;
torch's ``Tensor.max`` opens with ``max(dim=None, keepdim=False) -> Tensor or (Tensor, Tensor)``,
whose return annotation a simple pattern reads as a parameter. The hover card shows every
overload, as the docstring writes it (defaults included), from this file.

Run it with a Python that has the package installed, after tools/snapshot_api.py:

    python tools/snapshot_overloads.py mindspore   # rules/snapshots/overloads-mindspore-2.10.0.json
    python tools/snapshot_overloads.py torch       # rules/snapshots/overloads-torch-2.13.0.json

Output: {"package", "version", "generated_by", "overloads": {"mindspore.Tensor.max": ["max()",
"max(dim, keepdim=False)", ...]}}, for the APIs whose docstring states more than one signature
or whose first-line signature the snapshot's simple reading got wrong; nothing is guessed.
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from snapshot_api import dumps, import_or_none, silenced, split_top_level  # noqa: E402

GENERATED_BY = "tools/snapshot_overloads.py"
#: ".. method:: Tensor.max(" / ".. function:: max(" / ".. method:: max(": one more overload.
DIRECTIVE = re.compile(r"^\s*\.\. (?:method|function|py:method|py:function)::\s*(?:[\w.]+\.)?(\w+)\(")
FIRST_LINE = re.compile(r"^(?:[\w.]+\.)?(\w+)\(")
PARAM = re.compile(r"^(\*{0,2})([A-Za-z_]\w*)\s*(?:[:=].*)?$", re.S)


def balanced(text, start):
    """The text between the "(" at *start* - 1 and its matching ")", or None."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return text[start:i]
    return None


def parsed(name, params):
    """ "name(params)" with the parameters as written, or None when one does not parse."""
    params = " ".join(params.split())
    for part in split_top_level(params):
        if part not in ("", "*", "/") and not PARAM.match(part):
            return None
    return f"{name}({params})"


def docstring_signatures(obj, name):
    """Every signature *obj*'s docstring states for *name*: its first line and each overload
    directive, in order, without repeats."""
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or not doc.strip():
        return []
    lines = doc.strip().splitlines()
    found = []
    candidates = [(FIRST_LINE.match(lines[0].strip()), lines[0].strip())]
    candidates += [(DIRECTIVE.match(line), line) for line in lines[1:]]
    for match, line in candidates:
        if not match or match.group(1) != name:
            continue
        params = balanced(line, match.end())
        signature = parsed(name, params) if params is not None else None
        if signature and signature not in found:
            found.append(signature)
    return found


def names_of(signature):
    params = signature[signature.index("(") + 1:-1]
    return [PARAM.match(p).group(1) + PARAM.match(p).group(2) for p in split_top_level(params) if p not in ("", "*", "/")]


def resolve_api(qualified):
    """The object a snapshot name stands for: a module attribute or a class member."""
    parts = qualified.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = import_or_none(".".join(parts[:cut]))
        if module is None:
            continue
        obj = module
        try:
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return None
        return obj
    return None


def overloads(snapshot):
    out = {}
    for qualified, (kind, params) in sorted(snapshot["apis"].items()):
        if kind not in ("function", "method"):
            continue
        obj = resolve_api(qualified)
        short = qualified.rsplit(".", 1)[-1]
        signatures = docstring_signatures(obj, short) if obj is not None else []
        if not signatures:
            continue
        first = names_of(signatures[0])
        recorded = [p for p in (params or []) if p != "self"]
        if len(signatures) > 1 or (params is not None and first != recorded):
            out[qualified] = signatures
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("package", choices=("mindspore", "torch"))
    parser.add_argument("--snapshot", help="default: rules/snapshots/<package>-<installed version>.json")
    parser.add_argument("--out", help="default: rules/snapshots/overloads-<package>-<version>.json")
    args = parser.parse_args(argv)
    os.environ.setdefault("GLOG_v", "3")
    with silenced():
        root = import_or_none(args.package)
        if root is None:
            raise SystemExit(f"cannot import {args.package}")
        version = root.__version__.split("+", 1)[0]
        path = args.snapshot or os.path.join("rules", "snapshots", f"{args.package}-{version}.json")
        with open(path, encoding="utf-8") as fh:
            snapshot = json.load(fh)
        if snapshot["version"] != version:
            raise SystemExit(f"{path} is of {args.package} {snapshot['version']}, but {version} is installed")
        found = overloads(snapshot)
    out = args.out or os.path.join("rules", "snapshots", f"overloads-{args.package}-{version}.json")
    data = {"package": args.package, "version": version, "generated_by": GENERATED_BY, "overloads": found}
    with open(out, "w", encoding="utf-8") as fh:
        fh.write(dumps(data))
    print(f"{out}: {len(found)} APIs with several (or mis-read) signatures")


if __name__ == "__main__":
    main()
