"""msport never executes or imports the user's code, makes no network requests, and treats
rule files as data only."""

import ast
import subprocess
import sys
from pathlib import Path

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
    (rule,) = load_api_rules(rules_file, problems)
    assert problems == [] and rule.note == payload
    assert not marker.exists()
