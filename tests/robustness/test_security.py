"""msport never executes or imports the user's code, makes no network requests, and treats
rule files as data only."""

import ast
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Tuple

from .lspclient import RawClient

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "msport"

# Runs msport with every way out to the network replaced by a tripwire.
NO_NETWORK = """
import socket, sys
def tripwire(*args, **kwargs):
    raise SystemExit("msport tried to open a network connection: %r" % (args,))
socket.socket.connect = tripwire
socket.socket.connect_ex = tripwire
socket.create_connection = tripwire
socket.getaddrinfo = tripwire
sys.argv = ["msport"] + sys.argv[1:]
from msport.cli.main import main
raise SystemExit(main())
"""


def write_project(root: Path) -> Path:
    marker = root / "EXECUTED"
    (root / "helpers.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('helpers imported')\n"
        "def make_layer():\n    return 1\n"
    )
    (root / "model.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('model executed')\n"
        "import torch\nfrom helpers import make_layer\n"
        "layer = make_layer()\ny = torch.cat([layer, layer])\n"
        "__import__('os').system('touch ' + {0!r})\n".format(str(marker))
    )
    return marker


def test_check_does_not_execute_user_code_or_touch_the_network(tmp_path):
    marker = write_project(tmp_path)
    run = subprocess.run([sys.executable, "-c", NO_NETWORK, "check", str(tmp_path)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "MS103" in run.stdout
    assert not marker.exists()


def test_server_hover_and_actions_do_not_execute_user_code(tmp_path):
    marker = write_project(tmp_path)
    command = [sys.executable, "-c", NO_NETWORK, "serve"]
    client = RawClient(command=command, cwd=str(tmp_path))
    try:
        uri = (tmp_path / "model.py").as_uri()
        text = (tmp_path / "model.py").read_text()
        client.open(uri, text)
        client.wait_diagnostics(uri, 1)
        lines = text.split("\n")
        for line_no, line in enumerate(lines):
            for col in range(0, len(line), 3):  # hover everywhere, including the helper import
                reply = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": line_no, "character": col}})
                assert "error" not in reply, reply
        client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": len(lines) - 1, "character": 0}}, "context": {"diagnostics": []}})
        assert client.alive()
    finally:
        assert client.close() == 0, client.stderr_text()[-2000:]
    assert not marker.exists()


FORBIDDEN_CALLS = {"eval", "exec", "__import__", "execfile", "compile"}
FORBIDDEN_MODULES = {"subprocess", "socket", "urllib", "http", "requests", "pickle", "marshal", "shelve", "ctypes"}


def test_package_source_has_no_code_execution_or_network_primitives():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} calls {node.func.id}")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for name in names:
                    if name.split(".")[0] in FORBIDDEN_MODULES:
                        offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno} imports {name}")
    assert offenders == []


def test_rule_files_are_data(tmp_path):
    """A rules file with code-looking strings is read as text; nothing is evaluated."""
    from msport.knowledge.loader import load_api_rules

    marker = tmp_path / "EXECUTED"
    payload = f"__import__('pathlib').Path({str(marker)!r}).write_text('x')"
    rules_file = tmp_path / "evil.toml"
    rules_file.write_text(f"[[api]]\ntorch = \"torch.evil\"\nstatus = \"missing\"\nnote = '''{payload}'''\n")
    problems = []
    (rule,) = load_api_rules(rules_file, problems, label=str(rules_file))  # a user's file, as an attacker's would be
    assert problems == [] and rule.note == payload
    assert not marker.exists()


# -- nothing from the workspace runs: not its interpreter, not its modules -----------------------
def _jedi_project(root: Path) -> str:
    """`from .utils import cat` (msport cannot follow it; jedi can): a hover there asks jedi."""
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "utils.py").write_text("from torch import cat\n")
    text = "from .utils import cat\n\ny = cat([1], 0)\n"
    (pkg / "model.py").write_text(text)
    return text


def _hover_until_jedi_answers(client: RawClient, uri: str) -> str:
    for _ in range(160):  # cold, jedi needs a few seconds to read torch's sources
        reply = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 5}})
        if reply.get("result"):
            return reply["result"]["contents"]["value"]
        time.sleep(0.25)
    raise AssertionError("jedi never answered: the test proved nothing")


def test_hover_never_runs_the_interpreter_of_an_activated_workspace_venv(tmp_path):
    """The repository ships .venv/bin/python (and a conda env's); the user activated it, so
    VIRTUAL_ENV (CONDA_PREFIX) points there. jedi's default would run it; msport's jedi uses
    msport's own interpreter, and still resolves the name."""
    marker = tmp_path / "EXECUTED"
    for env_dir in (tmp_path / ".venv", tmp_path / "conda"):
        (env_dir / "bin").mkdir(parents=True)
        fake = env_dir / "bin" / "python"
        fake.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {marker}\nexec {sys.executable} \"$@\"\n")
        fake.chmod(0o755)
    text = _jedi_project(tmp_path)
    env = dict(os.environ, VIRTUAL_ENV=str(tmp_path / ".venv"), CONDA_PREFIX=str(tmp_path / "conda"))
    client = RawClient(cwd=str(tmp_path), env=env, root_uri=tmp_path.as_uri())
    try:
        uri = (tmp_path / "pkg" / "model.py").as_uri()
        client.open(uri, text)
        client.wait_diagnostics(uri, 1)
        card = _hover_until_jedi_answers(client, uri)
        assert "**`torch.cat`**" in card and "jedi" in card
    finally:
        assert client.close() == 0, client.stderr_text()[-2000:]
    assert not marker.exists(), marker.read_text()


def _modules_at_start_of_dash_m(tmp_path: Path) -> set:
    """Top-level names of the modules Python has imported when a ``python -m`` module begins."""
    probe = tmp_path / "probe_pkg" / "startprobe"
    probe.mkdir(parents=True)
    (probe / "__init__.py").write_text("")
    (probe / "__main__.py").write_text("import sys\nprint('\\n'.join(sys.modules))\n")
    run = subprocess.run([sys.executable, "-m", "startprobe"], capture_output=True, text=True, cwd=tmp_path,
                         env=dict(os.environ, PYTHONPATH=str(probe.parent)))
    return {m.split(".")[0] for m in run.stdout.split()}


def _shadowing_workspace(tmp_path: Path, names: set, marker: Path) -> Tuple[Path, str]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name in sorted(names):
        (workspace / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write({name!r} + '\\n')\n")
    (workspace / "pyproject.toml").write_text('[tool.msport]\ncolour = "red"\n')  # an unknown key: msport imports difflib
    return workspace, _jedi_project(workspace)


def _session(client: RawClient, workspace: Path, text: str) -> None:
    uri = (workspace / "pkg" / "model.py").as_uri()
    client.open(uri, text)
    client.wait_diagnostics(uri, 1)
    _hover_until_jedi_answers(client, uri)
    client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}, "context": {"diagnostics": []}})
    client.request("workspace/executeCommand", {"command": "msport.scanWorkspace"}, timeout=120)


def _loaded_by_a_session(tmp_path: Path) -> set:
    """Top-level names of every module the server has imported after the same session as the
    tests run, in a harmless project."""
    clean = tmp_path / "clean"
    clean.mkdir()
    (clean / "pyproject.toml").write_text('[tool.msport]\ncolour = "red"\n')
    text = _jedi_project(clean)
    probe = RawClient(cwd=str(clean), root_uri=clean.as_uri())
    try:
        _session(probe, clean, text)
        return {m.split(".")[0] for m in probe.request("msport/loadedModules", None)["result"]}
    finally:
        probe.close()


def test_project_modules_named_like_msports_own_imports_never_run(tmp_path):
    """`python -m msport serve` started in the project (as editors do) puts the project first on
    sys.path. A file there named like any module msport imports once running (every one a real
    session loads: difflib.py, tokenize.py, jedi.py, ...) must not be what gets imported.
    (What Python itself imports before msport's first line, such as reprlib, is the launcher's
    to protect: `python -P`, or the `msport` script; see the next test and docs/robustness.md.)"""
    marker = tmp_path / "EXECUTED"
    names = _loaded_by_a_session(tmp_path) - _modules_at_start_of_dash_m(tmp_path) - {"msport", "__main__"}
    assert {"jedi", "difflib", "tokenize", "fnmatch", "tempfile"} <= names and len(names) > 30
    workspace, text = _shadowing_workspace(tmp_path, names, marker)
    client = RawClient(cwd=str(workspace), root_uri=workspace.as_uri())
    try:
        _session(client, workspace, text)
    finally:
        assert client.close() == 0, client.stderr_text()[-2000:]
    assert not marker.exists(), marker.read_text()


def test_the_msport_script_in_a_project_shadowing_every_module_runs_none(tmp_path):
    """The `msport` console script (what pip installs) has its own folder first on sys.path: even
    modules Python imports at start-up are not taken from the project."""
    script = Path(sys.executable).parent / "msport"
    assert script.is_file(), "tools/test.sh installs msport into the venv"
    marker = tmp_path / "EXECUTED"
    names = (_loaded_by_a_session(tmp_path) | _modules_at_start_of_dash_m(tmp_path)) - {"msport", "__main__", "sys", "builtins"}
    workspace, text = _shadowing_workspace(tmp_path, names, marker)
    client = RawClient(command=[str(script), "serve"], cwd=str(workspace), root_uri=workspace.as_uri())
    try:
        _session(client, workspace, text)
    finally:
        assert client.close() == 0, client.stderr_text()[-2000:]
    assert not marker.exists(), marker.read_text()
