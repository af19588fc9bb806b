"""The slow path of hover: ask jedi where a name comes from when msport cannot follow its
import (a relative import, another module of the project, a star import).

- jedi is imported on the first such hover, never at start-up or on the typing path;
- it analyses source and stubs statically (``Script``, no ``Interpreter``), imports nothing
  into the server (``auto_import_modules`` emptied) and loads no project extensions;
- it runs no interpreter but msport's own: jedi's default is ``$VIRTUAL_ENV``'s or
  ``$CONDA_PREFIX``'s Python, which, with an untrusted repository's ``.venv`` activated, is the
  repository's own program;
- each lookup has a time limit. A lookup that overruns keeps running on jedi's own thread
  and fills jedi's caches, so the next hover on the same name answers at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

log = logging.getLogger("msport")

#: Seconds a hover waits for jedi. Cold, jedi needs about 3 s to read torch's stubs here.
TIME_LIMIT = 1.5

_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="msport-jedi")
_running: Optional[asyncio.Future] = None

Definition = Tuple[str, str]  # (full_name, module_name)


def is_project_module(module: str, path: Optional[str], roots: Sequence[str]) -> bool:
    """Whether an import source is code of the user's project, where jedi may find more:
    relative and star imports always are; absolute ones when their top package sits in a
    workspace folder or beside the file (third-party packages are left alone: quick None)."""
    if module.startswith(".") or module == "*":
        return True
    top = module.split(".", 1)[0]
    folders = [Path(r) for r in roots]
    if path:
        here = Path(path).parent
        folders += [here, *here.parents][:4]
    return any((folder / top).is_dir() or (folder / f"{top}.py").is_file() for folder in folders)


_environment = None


def _msport_environment():
    """jedi's environment of the interpreter msport runs in (as a subprocess of the same
    program), or jedi in this process when that program does not look like Python (embedded)."""
    global _environment
    if _environment is None:
        from jedi.api.environment import InterpreterEnvironment, SameEnvironment

        looks_like_python = os.path.basename(sys.executable).lower().startswith("python")
        _environment = SameEnvironment() if looks_like_python else InterpreterEnvironment()
    return _environment


def _definitions(text: str, path: Optional[str], root: Optional[str], line: int, col: int) -> List[Definition]:
    import jedi

    jedi.settings.auto_import_modules = []
    environment = _msport_environment()
    project = jedi.Project(root, load_unsafe_extensions=False) if root else None
    script = jedi.Script(text, path=path, project=project, environment=environment)
    names = script.infer(line + 1, col) or script.goto(line + 1, col, follow_imports=True)
    return [(n.full_name, n.module_name or "") for n in names if n.full_name]


async def definitions(text: str, path: Optional[str], root: Optional[str], line: int, col: int, limit: float = TIME_LIMIT) -> List[Definition]:
    """Where jedi says the name at (0-based line, code-point column) is defined; [] when
    jedi is busy with an earlier lookup, overruns *limit*, or fails."""
    global _running
    if _running is not None and not _running.done():
        return []
    loop = asyncio.get_running_loop()
    _running = loop.run_in_executor(_executor, _definitions, text, path, root, line, col)
    try:
        return await asyncio.wait_for(asyncio.shield(_running), limit)
    except asyncio.TimeoutError:
        return []
    except Exception as exc:  # jedi's failures must not cost the user the rest of the hover
        log.warning("jedi could not resolve %s:%d:%d: %r", path, line + 1, col + 1, exc)
        return []
