"""Settings that cannot hurt: any type or depth in pyproject.toml is a problem reported once with
the defaults used (no traceback, the server still publishes); extend-rules and pyproject.toml
are read only when they are regular files of bounded size, and the server reads rule files off
its event loop; `exclude` and `per-file-ignores` patterns are relative to the project root."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .lspclient import RawClient

GOOD = "import torch\ny = torch.cat(a)\n"
TIMEOUT = 90


def msport(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "msport", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=TIMEOUT, stdin=subprocess.DEVNULL)


def project(root: Path, pyproject: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(pyproject)
    (root / "model.py").write_text(GOOD)
    return root


@pytest.mark.parametrize("pyproject, expected", [
    ("tool = 5\n", "pyproject.toml: tool: expected a table ([tool]), got int; msport uses its defaults"),
    ("[tool]\nmsport = 5\n", "pyproject.toml: tool.msport: expected a table ([tool.msport]), got int; msport uses its defaults"),
    ("[tool.msport]\nselect = " + "[" * 5000 + "]" * 5000 + "\n",
     "pyproject.toml: pyproject.toml: its arrays or tables are nested too deeply to read; msport uses its defaults"),
    ("[tool.msport]\nselect = " + "[" * 60 + '"MS1"' + "]" * 60 + "\n",
     "select: expected a list of rule codes such as [\"MS101\", \"MS2\"], got [[[[...]]]]; using []"),
    ('[tool.msport]\nseverity = { MS101 = [[[[["error"]]]]] }\n', "severity: severity of MS101 must be one of error, warning, info, hint; got [[[[...]]]]"),
    ('[tool.msport]\nexclude = { a = 1 }\nmax-file-size = [1]\nper-file-ignores = { "x" = { y = 1 } }\n', "exclude: expected a list of glob patterns, got {'a': 1}"),
])
def test_bad_shapes_are_reported_once_and_defaults_used(tmp_path, pyproject, expected):
    root = project(tmp_path / "p", pyproject)
    run = msport("check", str(root))
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert expected in run.stderr
    assert f"{root}/model.py:2:5: MS103" in run.stdout  # checked all the same, with the defaults
    assert all(len(line) < 400 for line in run.stderr.splitlines())  # a bounded quote of the value


def test_the_server_publishes_despite_a_broken_pyproject(tmp_path):
    root = project(tmp_path / "p", "tool = 5\n")
    client = RawClient(root_uri=root.as_uri(), cwd=str(root))
    try:
        uri = (root / "model.py").as_uri()
        client.open(uri, GOOD)
        published = client.wait_diagnostics(uri, 1, timeout=TIMEOUT)
        assert [d["code"] for d in published["diagnostics"]] == ["MS103"]
        client.change(uri, 2, [{"text": GOOD + "z = torch.cat(b)\n"}])
        assert len(client.wait_diagnostics(uri, 2, timeout=TIMEOUT)["diagnostics"]) == 2
        shown = [m["params"]["message"] for m in client.drain_notifications() if m.get("method") == "window/showMessage"]
        assert [m for m in shown if "tool: expected a table" in m] == [f"msport: {root}/pyproject.toml: tool: expected a table ([tool]), got int; msport uses its defaults"]
    finally:
        assert client.close() == 0, client.stderr_text()[-3000:]


@pytest.mark.parametrize("target", ["fifo", "/dev/zero", "/dev/stdin"])
def test_extend_rules_that_is_not_a_regular_file_on_the_command_line(tmp_path, target):
    root = tmp_path / "p"
    root.mkdir()
    if target == "fifo":
        os.mkfifo(root / "rules.toml")
    else:
        (root / "rules.toml").symlink_to(target)
    project(root, '[tool.msport]\nextend-rules = ["rules.toml"]\n')
    run = msport("check", str(root))
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert f"rule file {root}/rules.toml: cannot read: a " in run.stderr and "not a regular file" in run.stderr
    assert f"{root}/model.py:2:5: MS103" in run.stdout


def test_pyproject_that_is_a_fifo(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    os.mkfifo(root / "pyproject.toml")
    (root / "model.py").write_text(GOOD)
    run = msport("check", str(root))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"{root}/pyproject.toml: pyproject.toml: cannot read (a FIFO (named pipe), not a regular file: msport reads only regular files); msport uses its defaults" in run.stderr
    assert "MS103" in run.stdout


def test_extend_rules_fifo_does_not_freeze_the_server(tmp_path):
    """The rule file is a FIFO (and, in a second folder, /dev/zero): diagnostics and hovers keep
    coming, and the problem is shown once."""
    fifo_root = tmp_path / "a"
    fifo_root.mkdir()
    os.mkfifo(fifo_root / "rules.toml")
    project(fifo_root, '[tool.msport]\nextend-rules = ["rules.toml"]\n')
    zero_root = tmp_path / "b"
    zero_root.mkdir()
    (zero_root / "rules.toml").symlink_to("/dev/zero")
    project(zero_root, '[tool.msport]\nextend-rules = ["rules.toml"]\n')
    client = RawClient(root_uri=tmp_path.as_uri(), cwd=str(tmp_path))
    try:
        for root in (fifo_root, zero_root):
            uri = (root / "model.py").as_uri()
            started = time.monotonic()
            client.open(uri, GOOD)
            published = client.wait_diagnostics(uri, 1, timeout=TIMEOUT)
            assert [d["code"] for d in published["diagnostics"]] == ["MS103"]
            hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 11}}, timeout=TIMEOUT)
            assert "torch.cat" in hover["result"]["contents"]["value"]
            assert time.monotonic() - started < 30
        assert client.rss_mb() < 1000
        shown = [m["params"]["message"] for m in client.drain_notifications() if m.get("method") == "window/showMessage"]
        problems = [m for m in shown if "rules.toml" in m]
        assert len(problems) == 2 and all("not a regular file" in m for m in problems), shown
    finally:
        assert client.close() == 0, client.stderr_text()[-3000:]


def test_exclude_is_relative_to_the_project_root(tmp_path):
    """A project that lives under a folder named vendor (or tests) is checked all the same; the
    patterns apply inside it."""
    root = tmp_path / "vendor" / "tests" / "proj"
    project(root, '[tool.msport]\nexclude = ["vendor"]\nper-file-ignores = { "tests/*" = ["MS103"] }\n')
    (root / "vendor").mkdir()
    (root / "vendor" / "third.py").write_text(GOOD)
    (root / "tests").mkdir()
    (root / "tests" / "test_model.py").write_text(GOOD)
    run = msport("check", str(root))
    assert f"{root}/model.py:2:5: MS103" in run.stdout
    assert "third.py" not in run.stdout and "test_model.py" not in run.stdout
    assert "in 1 of 2 files" in run.stdout  # model.py and tests/test_model.py (no MS103 left there)
    # The same from inside the project, with relative paths.
    inside = msport("check", ".", cwd=root)
    assert "model.py:2:5: MS103" in inside.stdout and "third.py" not in inside.stdout and "in 1 of 2 files" in inside.stdout


def test_exclude_patterns_match_inside_the_project():
    from msport.analysis.settings import Settings

    settings = Settings(project_root="/work/vendor/proj").merged({"exclude": ["vendor", "gen/*.py"], "per-file-ignores": {"tests/*": ["MS1"]}}, "t")
    assert not settings.is_excluded("/work/vendor/proj/model.py")
    assert settings.is_excluded("/work/vendor/proj/vendor/lib.py") and settings.is_excluded("/work/vendor/proj/a/vendor/lib.py")
    assert settings.is_excluded("/work/vendor/proj/gen/x.py") and not settings.is_excluded("/work/vendor/proj/src/gen.py")
    assert not settings.is_excluded("/elsewhere/vendor/x.py")  # outside the project: its patterns do not apply
    assert not settings.is_enabled("MS101", "/work/vendor/proj/tests/t.py") and settings.is_enabled("MS101", "/work/vendor/proj/src/t.py")
