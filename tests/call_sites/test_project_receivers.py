"""Receivers typed across a project (issue 13): a tensor method called on the result of a helper in
another module, on a tuple element it returns, on what a base class's method of another module
returns, on a sub-layer's output, gets its verdict in `msport report`; a look-alike whose value
is a list, a dict or a user object with methods named like the tensor's gets none.

The fixture marks each call site: `# verdict NAME:` (torch.Tensor.NAME is judged on that line)
and `# none:` (no tensor method at all is judged on that line). One `msport report` run for the
whole module, as a user would check the project."""

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "tracker"
MARK = re.compile(r"#\s*(?:verdict\s+(\w+)|(none)):")


def marks():
    found = []
    for path in sorted(FIXTURE.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = MARK.search(line)
            if match:
                found.append((path.relative_to(FIXTURE).as_posix(), number, match.group(1)))
    return found


@pytest.fixture(scope="module")
def judged():
    run = subprocess.run([sys.executable, "-m", "msport", "report", ".", "--format", "json"], cwd=FIXTURE,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    methods = defaultdict(set)  # (path, line) -> tensor methods judged there
    for row in json.loads(run.stdout)["files"]:
        for use in row.get("api_uses", []):
            if use["torch_api"].startswith("torch.Tensor."):
                methods[(Path(row["path"]).as_posix(), use["line"])].add(use["torch_api"].rpartition(".")[2])
    return methods


@pytest.mark.parametrize("path, line, method", marks(), ids=lambda v: str(v))
def test_call_site(judged, path, line, method):
    if method is None:
        assert not judged[(path, line)], f"{path}:{line}: not a tensor, judged as one ({judged[(path, line)]})"
    else:
        assert method in judged[(path, line)], f"{path}:{line}: no verdict on .{method}()"


def test_the_fixture_marks_both_sides():
    kinds = [method is None for _, _, method in marks()]
    assert kinds.count(True) >= 5 and kinds.count(False) >= 7
