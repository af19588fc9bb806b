"""Fixtures for the real-editor tests: the installed editors and a current .vsix, and one plan
(what msport should report for the test file) shared by every editor."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .expected import Plan, plan
from .harness import OUT, REPO, prepare_workspace


@pytest.fixture(scope="session")
def installed() -> None:
    """tools/install-e2e.sh: a no-op when everything is there, else it installs the editors and
    rebuilds the .vsix from the current server, rules and extension sources."""
    proc = subprocess.run(["bash", str(REPO / "tools" / "install-e2e.sh"), sys.executable],
                          capture_output=True, text=True, timeout=3000)
    assert proc.returncode == 0, f"tools/install-e2e.sh failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"


@pytest.fixture(scope="session")
def template(tmp_path_factory) -> Path:
    """The test workspace, outside the repository so that its pyproject.toml does not apply."""
    return prepare_workspace(tmp_path_factory.mktemp("template") / "ws")


@pytest.fixture(scope="session")
def the_plan(template: Path) -> Plan:
    return plan(template)


@pytest.fixture
def workspace(template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the test workspace (the editors edit and save the file); returns the file."""
    folder = tmp_path / "ws"
    shutil.copytree(template.parent, folder)
    return folder / template.name


@pytest.fixture
def out_dir(request) -> Path:
    """tests/e2e/out/<editor>: results and screenshots, kept by CI."""
    folder = OUT / request.node.name.replace("test_", "", 1)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
