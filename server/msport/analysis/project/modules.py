"""Module names of a project's files, and which file an import names.

A file's module name follows Python's: the dotted path from the top of its package (the highest
directory with an ``__init__.py`` above it) — ``ultralytics/utils/loss.py`` is
``ultralytics.utils.loss``. A file outside any package (a script) is named by its stem, and so
are files of directories without ``__init__.py`` imported from a script beside them
(``from utils.loss import ComputeLoss`` run from the repository's root): an import is looked up
by its full name first, then by the modules whose name ends with it, the nearest to the
importing file winning. Pure functions of paths: no file is read but ``__init__.py`` markers.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Dict, Iterable, List, Optional, Tuple


_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


def module_name(path: str, is_package_dir: Callable[[str], bool]) -> Tuple[str, Optional[str]]:
    """(the dotted module name of the file at *path*, its package: where relative imports
    start). *is_package_dir* says whether a directory holds an ``__init__.py``."""
    directory, filename = os.path.split(os.path.normpath(path))
    stem = filename[:-3] if filename.endswith(".py") else filename
    parts: List[str] = [] if stem == "__init__" else [stem]
    while directory and is_package_dir(directory):
        directory, name = os.path.split(directory)
        if not name:
            break
        parts.insert(0, name)
    if not parts:  # an __init__.py whose directory is not a package (cannot happen on disk)
        return stem, None
    name = ".".join(parts)
    package = name if stem == "__init__" else (name.rpartition(".")[0] or "")
    return name, package


class ModuleTable:
    """Every module of the project by name, and the resolution of imported names to them."""

    def __init__(self) -> None:
        self._paths: Dict[str, str] = {}  # module name -> path
        self._names: Dict[str, str] = {}  # path -> module name
        self._by_last: Dict[str, List[str]] = {}  # last component -> module names (suffix lookups)

    def add(self, path: str, name: str) -> None:
        old = self._names.get(path)
        if old == name:
            return
        if old is not None:
            self.remove(path)
        self._paths[name] = path  # two files of one name (two scripts dirs): the last one wins
        self._names[path] = name
        self._by_last.setdefault(name.rpartition(".")[2], []).append(name)

    def remove(self, path: str) -> None:
        name = self._names.pop(path, None)
        if name is None:
            return
        if self._paths.get(name) == path:
            del self._paths[name]
        names = self._by_last.get(name.rpartition(".")[2], [])
        if name in names:
            names.remove(name)

    def name_of(self, path: str) -> Optional[str]:
        return self._names.get(path)

    def path_of(self, name: str) -> Optional[str]:
        return self._paths.get(name)

    def names(self) -> Iterable[str]:
        return self._paths.keys()

    def find(self, dotted: str, importer: Optional[str] = None) -> Optional[str]:
        """The module a dotted import names: itself when a module has that name, else the module
        whose name ends with it (``utils.loss`` -> ``yolov5.utils.loss``), nearest to the
        importing module's file when several do."""
        if dotted in self._paths:
            return dotted
        if dotted.partition(".")[0] in _STDLIB:
            return None  # `import math` is the standard library's, not a project's pkg/math.py
        candidates = [n for n in self._by_last.get(dotted.rpartition(".")[2], ()) if n.endswith("." + dotted)]
        if not candidates:
            return None
        if len(candidates) == 1 or importer is None:
            return candidates[0] if len(candidates) == 1 else None
        origin = self._paths.get(importer, "")
        return max(candidates, key=lambda n: len(os.path.commonpath([origin, self._paths[n]])) if origin else 0)

    def split(self, qualified: str, importer: Optional[str] = None) -> Optional[Tuple[str, str]]:
        """(module, the rest) for a qualified name that starts with a module of the project:
        ``pkg.utils.loss.ComputeLoss.__call__`` -> (``pkg.utils.loss``, ``ComputeLoss.__call__``)."""
        parts = qualified.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = self.find(".".join(parts[:cut]), importer)
            if module is not None:
                return module, ".".join(parts[cut:])
        return None
