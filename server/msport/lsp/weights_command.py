"""``workspace/executeCommand msport.convertWeights``: ``msport convert-weights`` for the editor.

The conversion imports torch, mindspore and the user's model file, so it never runs in the
server's process (which imports none of them and executes no user code): it runs as a child
``python -m msport convert-weights ... --format json`` when, and only when, the user asks, with
``$/progress`` while it works and the outcome shown and returned.

Arguments: one object ``{"model": uri or path, "checkpoint": uri or path, "output": uri or path,
"class": name, "args": JSON text or value, "trustCheckpoint": bool, "partial": bool}``; model,
checkpoint and output are required. Relative paths are the model file's directory's.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

from lsprotocol import types
from pygls.uris import to_fs_path

from .workspace_scan import Progress

#: How long the conversion may run before the server stops it (a large model on a slow disk).
TIMEOUT_SECONDS = 1800


class BadArguments(ValueError):
    pass


def command_line(arguments: Any) -> List[str]:
    """The ``msport convert-weights`` arguments for the command's argument object."""
    if isinstance(arguments, (list, tuple)) and len(arguments) == 1:
        arguments = arguments[0]
    if not isinstance(arguments, dict):
        raise BadArguments('expected one object {"model": ..., "checkpoint": ..., "output": ...}')
    missing = [key for key in ("model", "checkpoint", "output") if not isinstance(arguments.get(key), str) or not arguments[key]]
    if missing:
        raise BadArguments(f"missing {', '.join(missing)} (paths or file URIs)")
    model = _path(arguments["model"])
    base = model.parent
    argv = ["convert-weights", str(model), str(_path(arguments["checkpoint"], base)), "-o", str(_path(arguments["output"], base)), "--format", "json"]
    if arguments.get("class"):
        argv += ["--class", str(arguments["class"])]
    if arguments.get("args") is not None:
        value = arguments["args"]
        argv += ["--args", value if isinstance(value, str) else json.dumps(value)]
    if arguments.get("trustCheckpoint"):
        argv.append("--trust-checkpoint")
    if arguments.get("partial"):
        argv.append("--partial")
    return argv


def _path(value: str, base: Optional[Path] = None) -> Path:
    path = Path(to_fs_path(value) if value.startswith("file:") else value)
    return path if path.is_absolute() or base is None else base / path


async def convert_weights(ls, arguments: Any) -> Dict[str, Any]:
    try:
        argv = command_line(arguments)
    except BadArguments as exc:
        return _report(ls, {"ok": False, "problems": [f"msport.convertWeights: {exc}"]})
    # The command's texts in the language the editor speaks for the model file.
    argv += ["--lang", ls.settings_for(Path(argv[1]).as_uri()).language]
    progress = await Progress.start(ls, "msport: converting weights", None, create=True)
    progress.report(0, 1, Path(argv[2]).name)
    try:
        result = await _run(argv, progress)
    finally:
        progress.end("done")
    return _report(ls, result)


async def _run(argv: List[str], progress: Progress) -> Dict[str, Any]:
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "msport", *argv, stdout=asyncio.subprocess.PIPE,
                                                   stderr=asyncio.subprocess.PIPE)
    communicate = asyncio.ensure_future(process.communicate())
    waited = 0.0
    while not communicate.done():
        await asyncio.wait([communicate], timeout=0.5)
        waited += 0.5
        if progress.cancelled or waited > TIMEOUT_SECONDS:
            process.kill()
            await communicate
            why = "cancelled" if progress.cancelled else f"stopped after {TIMEOUT_SECONDS} s"
            return {"ok": False, "problems": [f"the conversion was {why}; nothing was written"]}
    stdout, stderr = communicate.result()
    try:
        return json.loads(stdout.decode("utf-8", "replace"))
    except ValueError:
        lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        return {"ok": False, "problems": lines[-5:] or [f"the conversion exited with status {process.returncode}"]}


def _report(ls, result: Dict[str, Any]) -> Dict[str, Any]:
    if result.get("ok"):
        message, kind = result.get("message", "weights converted"), types.MessageType.Info
    else:
        problems = result.get("problems") or ["the conversion failed"]
        shown = "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")
        message, kind = shown, types.MessageType.Error
    ls.window_show_message(types.ShowMessageParams(type=kind, message=f"msport: {message}"))
    return result
