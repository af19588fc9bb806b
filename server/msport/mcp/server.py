"""``msport mcp``: the Model Context Protocol server (stdio) serving tools.py to coding agents.

An agent porting a model asks msport instead of guessing: ``check`` (what will not carry over,
with fixes), ``explain`` (what msport knows about one API or rule), ``fix`` (apply the safe
fixes). The tools' descriptions are written for the agent that chooses among them.
"""

from __future__ import annotations

from typing import Annotated, Any, Dict, List, Optional

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from pydantic import Field

from .. import __version__
from ..cli.files import environment_settings
from . import tools

INSTRUCTIONS = (
    "msport knows which PyTorch APIs are missing, divergent or renamed in each MindSpore version "
    "(2.2-2.10) and backend (Ascend, GPU, CPU), and which constructs make tensor shapes depend on "
    "data (they break MindSpore's static graphs). Use `check` on code you port or write for "
    "MindSpore, `explain` before using an API you are unsure of, and `fix` to apply the fixes "
    "msport proved safe. Settings not passed come from the pyproject.toml ([tool.msport]) above "
    "the file, else msport's defaults (MindSpore 2.10, Ascend, graph mode)."
)

Path = Annotated[Optional[str], Field(description="A Python file or (for check) a directory on disk; with 'code', the file the code is from (its pyproject.toml settings apply).")]
Code = Annotated[Optional[str], Field(description="Python source text to use instead of reading 'path'.")]
TargetVersion = Annotated[Optional[str], Field(description="MindSpore version to port to: 2.2 ... 2.10 (default 2.10).")]
Backend = Annotated[Optional[str], Field(description="ascend, gpu or cpu (default ascend).")]
Mode = Annotated[Optional[str], Field(description="graph or pynative (default graph): dynamic shapes matter in graph mode.")]
JitLevel = Annotated[Optional[str], Field(description="O0, O1 or O2 (default O0); O2 is whole-graph sinking, strictest about dynamic shapes.")]
Codes = Annotated[Optional[List[str]], Field(description="Rule codes or prefixes, e.g. [\"MS1\"] or [\"MS103\"].")]


def _call(function, *args: Any, **kwargs: Any) -> Dict[str, Any]:
    try:
        return function(*args, **kwargs)
    except tools.ToolError as exc:
        # Worded for the person behind the agent: the language of the session's locale.
        raise SdkToolError(exc.text(environment_settings().language)) from None


def build() -> MCPServer:
    server = MCPServer(name="msport", version=__version__, instructions=INSTRUCTIONS)

    @server.tool(description=(
        "Check Python code for what will not carry over from PyTorch to MindSpore: missing (MS101), "
        "divergent (MS102) and renamed (MS103) APIs, equivalent replacements (MS3xx) and data-dependent "
        "shapes (MS2xx). Returns each finding with its line, message and fixes (with their safety and, "
        "for unsafe ones, why), the settings used and a summary."))
    def check(path: Path = None, code: Code = None, target_version: TargetVersion = None, backend: Backend = None,
              mode: Mode = None, jit_level: JitLevel = None, select: Codes = None, ignore: Codes = None) -> Dict[str, Any]:
        return _call(tools.check, path, code, target_version=target_version, backend=backend, mode=mode,
                     jit_level=jit_level, select=select, ignore=ignore)

    @server.tool(description=(
        "What msport knows about one API for a MindSpore version and backend: its MindSpore counterpart, "
        "what differs, measured differences, signatures, versions. Also rule codes (MS203). Markdown."))
    def explain(name: Annotated[str, Field(description="A qualified name (torch.nn.GELU, mindspore.ops.cat), a unique tail (Tensor.view) or a rule code (MS101).")],
                target_version: TargetVersion = None, backend: Backend = None) -> Dict[str, Any]:
        return _call(tools.explain, name, target_version=target_version, backend=backend)

    @server.tool(description=(
        "Apply msport's fixes to one file or code text: every safe fix (proven equivalent by running both "
        "packages), and the unsafe ones too with unsafe=true. Returns the fixes applied, a unified diff, the "
        "new text and the findings left. The file is rewritten only with write=true."))
    def fix(path: Path = None, code: Code = None,
            unsafe: Annotated[bool, Field(description="Also apply the unsafe fixes (each finding says why it is unsafe).")] = False,
            write: Annotated[bool, Field(description="Rewrite the file at 'path' with the result.")] = False,
            target_version: TargetVersion = None, backend: Backend = None, mode: Mode = None, jit_level: JitLevel = None) -> Dict[str, Any]:
        return _call(tools.fix, path, code, unsafe=unsafe, write=write, target_version=target_version, backend=backend,
                     mode=mode, jit_level=jit_level)

    return server


def run() -> int:
    build().run("stdio")
    return 0
