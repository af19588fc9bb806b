"""A model file the user names: which class is the model, and an instance of it.

The class is found by msport's own analysis of the file (its layer classes, the one no other
class of the file uses), so ``--class`` is needed only when the file holds several models. The
file is then imported (its directory first on ``sys.path``, so that it imports its siblings
as it does when run) and the class built with the arguments given.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

from .. import pyast
from .errors import describe, fail

#: Frames of these directories are not the user's: an error is located at the user's last line.
_LIBRARIES = (str(Path(__file__).resolve().parents[1]), sys.prefix, sys.base_prefix, "<frozen")

FRAMEWORK_NAMES = {"torch": "PyTorch", "mindspore": "MindSpore"}
BASES = {"torch": "torch.nn.Module", "mindspore": "mindspore.nn.Cell"}


@dataclass(frozen=True)
class Arguments:
    """Constructor arguments from a JSON flag: a list is positional, an object keywords."""

    positional: Tuple[Any, ...] = ()
    keywords: Tuple[Tuple[str, Any], ...] = ()

    def __str__(self) -> str:
        parts = [repr(v) for v in self.positional] + [f"{k}={v!r}" for k, v in self.keywords]
        return ", ".join(parts)

    @property
    def given(self) -> bool:
        return bool(self.positional or self.keywords)


def parse_arguments(text: Optional[str], flag: str) -> Arguments:
    if text is None:
        return Arguments()
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise fail("bad_args", flag=flag, value=text, reason=str(exc)) from None
    if isinstance(value, list):
        return Arguments(tuple(value))
    if isinstance(value, dict):
        return Arguments(keywords=tuple(value.items()))
    raise fail("bad_args", flag=flag, value=text, reason=f"a JSON {type(value).__name__}")


def read_source(path: Path) -> str:
    if not path.exists():
        raise fail("not_found", path=path)
    if not path.is_file():
        raise fail("not_a_file", path=path)
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise fail("unreadable", path=path, reason=getattr(exc, "strerror", None) or exc) from None


def model_classes(path: Path, framework: str) -> Tuple[List[str], List[str]]:
    """(every layer class of *framework* in the file, those no other class of the file uses)."""
    from ..analysis.engine import analyze

    text = read_source(path)
    try:
        tree = pyast.parse(text, str(path))
    except SyntaxError as exc:
        raise fail("model_syntax", path=path, line=exc.lineno or 1, column=exc.offset or 1, reason=exc.msg) from None
    layers = {name for name, fw in analyze(text, path=str(path)).context.layer_classes if fw == framework}
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name in layers]
    used = set()
    for node in classes:
        # A class another model class builds, subclasses or names is a part, not the model.
        used.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id != node.name and n.id in layers)
    return [c.name for c in classes], [c.name for c in classes if c.name not in used]


def choose_class(path: Path, framework: str, name: Optional[str], flag: str) -> str:
    every, roots = model_classes(path, framework)
    shown = ", ".join(every) or "none"
    if name is not None:
        if name not in every:
            module_has = name in _top_level_classes(path)
            if module_has:
                raise fail("not_a_layer", path=path, name=name, framework=FRAMEWORK_NAMES[framework], base=BASES[framework])
            raise fail("unknown_class", path=path, name=name, candidates=shown)
        return name
    if not every:
        raise fail("no_class", path=path, framework=FRAMEWORK_NAMES[framework], base=BASES[framework])
    if len(roots) == 1:
        return roots[0]
    raise fail("ambiguous_class", path=path, framework=FRAMEWORK_NAMES[framework], candidates=", ".join(roots or every), flag=flag)


def _top_level_classes(path: Path) -> List[str]:
    return [n.name for n in pyast.parse(read_source(path)).body if isinstance(n, ast.ClassDef)]


class ImportedFiles:
    """Imports model files one after another. Two files may import siblings of the same name
    (a PyTorch `layers.py` beside the reference, a MindSpore one beside the port): the modules a
    file brought in are forgotten before the next file is imported, so each gets its own."""

    def __init__(self) -> None:
        self._count = 0

    def load(self, path: Path):
        self._count += 1
        name = f"msport_model_{self._count}_{path.stem}"
        directory = str(path.resolve().parent)
        before = set(sys.modules)
        sys.path.insert(0, directory)
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module  # graph mode reads the source of what it compiles through it
            spec.loader.exec_module(module)
        except BaseException as exc:  # SystemExit and KeyboardInterrupt of a script's top level too
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise fail("model_import", path=path, reason=_last_line(exc)) from None
        finally:
            sys.path.remove(directory)
            for added in set(sys.modules) - before - {name}:
                module_file = getattr(sys.modules[added], "__file__", None) or ""
                if module_file.startswith(directory):
                    del sys.modules[added]
        return module


def build(module, path: Path, name: str, arguments: Arguments, flag: str):
    cls = getattr(module, name)
    if not arguments.given:
        missing = _required_parameters(cls)
        if missing:
            example = json.dumps({p: 0 for p in missing})
            raise fail("needs_args", path=path, name=name, missing=", ".join(missing), flag=flag, example=example)
    try:
        return cls(*arguments.positional, **dict(arguments.keywords))
    except Exception as exc:
        raise fail("build_failed", path=path, name=name, arguments=arguments, reason=_last_line(exc)) from None


def _required_parameters(cls) -> List[str]:
    try:
        signature = inspect.signature(cls.__init__)
    except (TypeError, ValueError):
        return []
    params: Sequence[inspect.Parameter] = list(signature.parameters.values())[1:]
    return [p.name for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _last_line(exc: BaseException) -> str:
    """The exception as Python prints its last line, with the user's line that raised it."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(_LIBRARIES)]
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return describe(exc) + where


def model_from_file(path: Path, framework: str, files: ImportedFiles, class_name: Optional[str], arguments: Arguments,
                    class_flag: str = "--class", args_flag: str = "--args") -> Tuple[str, Any]:
    """(class name, instance) of the model in *path*."""
    name = choose_class(path, framework, class_name, class_flag)
    module = files.load(path)
    return name, build(module, path, name, arguments, args_flag)
