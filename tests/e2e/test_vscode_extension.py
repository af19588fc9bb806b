"""The VS Code extension's own checks: TypeScript compile, ESLint, its unit tests (node:test, no
VS Code needed), and the packaged .vsix: what it ships, and that its bundled server runs on a
Python that has neither msport nor pygls installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from msport.analysis.settings import SUPPORTED_VERSIONS

from .harness import REPO, VSIX

CLIENT = REPO / "vscode-client"
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's: the kind of Python a new user has


def npm(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["npm", "run", "--silent", *args], cwd=CLIENT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def compiled(installed) -> None:
    proc = npm("compile")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_typescript_compiles(compiled):
    assert (CLIENT / "out" / "extension.js").is_file()


def test_eslint_passes(installed):
    proc = npm("lint")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_unit_tests_pass(compiled):
    proc = npm("test")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-4000:]
    passed = int(re.search(r"^# pass (\d+)$", output, re.M)[1])
    assert passed >= 40 and re.search(r"^# fail 0$", output, re.M), output[-2000:]


def test_settings_offer_the_versions_msport_supports():
    manifest = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))
    properties = manifest["contributes"]["configuration"]["properties"]
    assert properties["msport.targetVersion"]["enum"] == list(SUPPORTED_VERSIONS)
    constants = (CLIENT / "src" / "common" / "constants.ts").read_text(encoding="utf-8")
    listed = re.search(r"TARGET_VERSIONS = \[([^\]]*)\]", constants)[1]
    assert re.findall(r"'([\d.]+)'", listed) == list(SUPPORTED_VERSIONS)


def test_vsix_ships_extension_server_and_translations(installed):
    with zipfile.ZipFile(VSIX) as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/package.json"))
    for needed in ("extension/out/extension.js", "extension/package.nls.json", "extension/package.nls.zh-cn.json",
                   "extension/l10n/bundle.l10n.zh-cn.json", "extension/bundled/tool/msport_tool.py",
                   "extension/bundled/libs/msport/__init__.py", "extension/bundled/libs/pygls/__init__.py",
                   "extension/bundled/libs/lsprotocol/__init__.py", "extension/bundled/libs/tomli/__init__.py",
                   "extension/node_modules/vscode-languageclient/package.json", "extension/LICENSE.txt"):
        assert needed in names, needed
    assert any(n.startswith("extension/bundled/libs/msport/rules/") and n.endswith(".toml") for n in names)
    assert not [n for n in names if n.startswith("extension/src/") or n.startswith("extension/out/test/") or n.endswith(".ts")]
    assert manifest["name"] == "msport" and manifest["publisher"] == "msport-dev"


def test_bundled_server_runs_on_a_bare_python(installed, tmp_path: Path):
    """What useBundled does: the system Python runs bundled/tool/msport_tool.py."""
    bare = subprocess.run([SYSTEM_PYTHON, "-c", "import importlib.util as u; print(u.find_spec('msport'), u.find_spec('pygls'))"],
                          capture_output=True, text=True)
    assert bare.stdout.strip() == "None None", "the system Python must not have msport or pygls for this test"
    with zipfile.ZipFile(VSIX) as vsix:
        vsix.extractall(tmp_path)
    tool = tmp_path / "extension" / "bundled" / "tool" / "msport_tool.py"
    example = REPO / "examples" / "yolox_head.py"
    bundled = subprocess.run([SYSTEM_PYTHON, str(tool), "check", "--format", "json", str(example)],
                             capture_output=True, text=True, timeout=120)
    here = subprocess.run([sys.executable, "-m", "msport", "check", "--format", "json", str(example)],
                          capture_output=True, text=True, timeout=120)
    assert bundled.returncode == here.returncode == 1, bundled.stderr
    assert json.loads(bundled.stdout) == json.loads(here.stdout)


def test_bundled_tool_explains_a_missing_bundle(tmp_path: Path):
    tool = tmp_path / "tool" / "msport_tool.py"
    tool.parent.mkdir()
    shutil.copy(CLIENT / "bundled" / "tool" / "msport_tool.py", tool)
    proc = subprocess.run([SYSTEM_PYTHON, str(tool), "serve"], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2
    assert "packaged without its server" in proc.stderr and "npm ci && npm run package" in proc.stderr


# -- the README's build: `npm ci && npm run package` (tools/install-e2e.sh builds the .vsix the
# other tests install that way, so the checks of its contents above are checks of that build) --

def test_package_script_bundles_the_server_first():
    scripts = json.loads((CLIENT / "package.json").read_text(encoding="utf-8"))["scripts"]
    assert scripts["package"].startswith("bash scripts/bundle-server.sh && vsce package")
    assert "node scripts/require-bundle.js" in scripts["vscode:prepublish"]


def test_packaging_without_the_server_stops_and_says_what_to_run(tmp_path: Path):
    """`vsce package` alone (it runs vscode:prepublish) in a checkout whose server is not bundled."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(CLIENT / "scripts" / "require-bundle.js", tmp_path / "scripts")
    (tmp_path / "bundled" / "libs" / "pygls").mkdir(parents=True)
    proc = subprocess.run(["node", str(tmp_path / "scripts" / "require-bundle.js")], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1
    assert "not packaging: the server is not bundled (msport, lsprotocol missing from bundled/libs)" in proc.stderr
    assert 'Run "npm run package"' in proc.stderr


def test_bundling_with_an_unusable_python_says_what_to_pass(tmp_path: Path):
    missing = subprocess.run(["bash", str(CLIENT / "scripts" / "bundle-server.sh"), str(tmp_path / "no-python")],
                             capture_output=True, text=True, timeout=30)
    assert missing.returncode == 1 and "cannot bundle the server: no Python at" in missing.stderr
    no_pip = tmp_path / "python-without-pip"
    no_pip.write_text(f"#!/bin/sh\n[ \"$1\" = -m ] && exit 1\nexec {SYSTEM_PYTHON} \"$@\"\n")
    no_pip.chmod(0o755)
    proc = subprocess.run(["bash", str(CLIENT / "scripts" / "bundle-server.sh"), str(no_pip)], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1 and "has no pip" in proc.stderr and "bundle-server.sh /path/to/python3" in proc.stderr
