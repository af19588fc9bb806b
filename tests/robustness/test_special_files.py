"""A hostile repository's files: FIFOs, devices and links to them named *.py, link loops,
directories that cannot be listed, files too large, names that are not UTF-8. msport never
opens what is not a regular file, never hangs (each run has a timeout that fails the test),
says what it skipped, and checks everything else."""

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from .lspclient import RawClient

GOOD = "import torch\ny = torch.cat(a)\n"
#: A run that hangs on a FIFO or reads /dev/zero would take forever: this fails it instead.
TIMEOUT = 90


def msport(*args, cwd=None, stdin=subprocess.DEVNULL, **kwargs):
    return subprocess.run([sys.executable, "-m", "msport", *args], capture_output=True, text=True,
                          cwd=cwd, stdin=stdin, timeout=TIMEOUT, **kwargs)


def hostile_tree(root: Path) -> Path:
    """One regular file with a finding, and every kind of entry msport must not read."""
    root.mkdir(exist_ok=True)
    (root / "good.py").write_text(GOOD)
    os.mkfifo(root / "fifo.py")
    (root / "zero.py").symlink_to("/dev/zero")
    (root / "stdin.py").symlink_to("/dev/stdin")
    (root / "null.py").symlink_to("/dev/null")
    (root / "loop.py").symlink_to(root / "loop.py")
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    (root / "sub").mkdir()
    (root / "sub" / "fifo_too.py").symlink_to(root / "fifo.py")
    return root


def test_cli_skips_fifos_devices_and_bad_links_with_a_note(tmp_path):
    root = hostile_tree(tmp_path / "repo")
    # stdin is a pipe that stays open and empty: reading /dev/stdin would wait for ever.
    with subprocess.Popen(["sleep", str(TIMEOUT + 30)], stdout=subprocess.PIPE) as writer:
        try:
            run = msport("check", str(root), stdin=writer.stdout)
        finally:
            writer.kill()
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr
    assert f"{root}/good.py:2:5: MS103" in run.stdout and "in 1 of 1 file" in run.stdout
    notes = {line.split(": skipped: ")[0].rsplit("/", 1)[-1]: line.split(": skipped: ")[1] for line in run.stderr.splitlines() if ": skipped: " in line}
    assert notes == {
        "fifo.py": "a FIFO (named pipe), not a regular file: msport reads only regular files",
        "zero.py": "a character device, not a regular file: msport reads only regular files",
        "stdin.py": notes["stdin.py"],  # /dev/stdin is the pipe above here: a FIFO
        "null.py": "a character device, not a regular file: msport reads only regular files",
        "loop.py": "a symbolic link loop",
        "dangling.py": "a broken symbolic link",
        "fifo_too.py": "a FIFO (named pipe), not a regular file: msport reads only regular files",
    }
    assert "not a regular file" in notes["stdin.py"]


def test_cli_with_workers_and_a_special_file_named_on_the_command_line(tmp_path):
    root = hostile_tree(tmp_path / "repo")
    for i in range(12):  # enough files for the worker pool
        (root / f"m{i}.py").write_text(GOOD)
    run = msport("check", "-j", "2", str(root), str(root / "fifo.py"), str(root / "zero.py"))
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "in 13 of 13 files" in run.stdout
    assert run.stderr.count("fifo.py: skipped: a FIFO") == 1  # named twice, said once


def test_a_file_replaced_by_a_fifo_after_listing_is_refused_not_opened(tmp_path):
    """stat() says regular file, then the file becomes a FIFO: the open does not block (O_NONBLOCK)
    and the descriptor is checked again."""
    from msport.regular_files import SkippedFile, read_regular_file

    path = tmp_path / "swap.py"
    os.mkfifo(path)
    with pytest.raises(SkippedFile, match="FIFO"):
        read_regular_file(path, 1000)
    # The same check on an opened descriptor: a FIFO opened without blocking is still refused.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert not os.path.isfile(f"/proc/self/fd/{fd}")
    finally:
        os.close(fd)


def test_directories_that_cannot_be_listed_are_named_and_the_rest_is_checked(tmp_path):
    root = tmp_path / "repo"
    (root / "locked").mkdir(parents=True)
    (root / "locked" / "hidden.py").write_text(GOOD)
    (root / "open.py").write_text(GOOD)
    (root / "locked").chmod(0)
    # root reads any directory; without the capabilities that let it, it is an ordinary user.
    drop = ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    try:
        run = subprocess.run([*drop, sys.executable, "-m", "msport", "check", str(root)], capture_output=True, text=True, timeout=TIMEOUT)
    finally:
        (root / "locked").chmod(0o755)
    assert run.returncode == 2, run.stderr  # files may be missing: not a clean result
    assert "Traceback" not in run.stderr
    assert f"msport: error: {root}/locked: cannot list this directory: Permission denied; the files below it were not checked" in run.stderr
    assert f"{root}/open.py:2:5: MS103" in run.stdout


def test_a_file_that_vanishes_after_listing_costs_that_file_only(tmp_path):
    from msport.analysis.engine import Analyzers
    from msport.analysis.settings import Settings
    from msport.cli.scan import CheckJob, check_file

    gone = tmp_path / "gone.py"
    checked = check_file(Analyzers(), CheckJob(gone, str(gone), Settings(), False, False, False))
    assert checked.findings is None and checked.messages == [f"msport: error: {gone}: cannot read: No such file or directory"]


def test_files_over_max_file_size_get_one_informational_finding(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nmax-file-size = "1 kB"\n')
    (tmp_path / "big.py").write_text(GOOD + "x = 1\n" * 400)
    (tmp_path / "small.py").write_text(GOOD)
    run = msport("check", "--format", "json", str(tmp_path))
    found = {(Path(f["path"]).name, f["code"]): f["message"] for f in json.loads(run.stdout)}
    assert found == {
        ("big.py", "MS002"): "File not checked: it is 2.4 kB, over the limit of 1.0 kB (setting max-file-size). Raise max-file-size in [tool.msport] to check it.",
        ("small.py", "MS103"): found[("small.py", "MS103")],
    }


def test_max_file_size_values(tmp_path):
    from msport.analysis.settings import Settings

    assert Settings().max_file_size == 10_000_000
    assert [Settings().merged({"max-file-size": v}, "t").max_file_size for v in (2048, "10 MB", "512kB", "1 GiB")] == [2048, 10**7, 512_000, 2**30]
    for bad in ("big", -1, True, "10 parsecs", [1]):
        (problem,) = Settings().merged({"max-file-size": bad}, "t").problems
        assert problem.key == "max-file-size" and "expected a size in bytes" in problem.message


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_file_names_that_are_not_utf8_give_valid_output(tmp_path, fmt):
    """A name with the byte 0xE9 (latin-1 é): every format stays valid UTF-8 (and valid JSON and
    SARIF), with the byte written as \\xe9; the same with -o."""
    folder = os.fsencode(tmp_path)
    with open(os.path.join(folder, b"caf\xe9.py"), "w") as out:
        out.write(GOOD)
    run = subprocess.run([sys.executable, "-m", "msport", "check", "--format", fmt, str(tmp_path)], capture_output=True, timeout=TIMEOUT)
    assert run.returncode == 1 and b"Traceback" not in run.stderr, run.stderr
    stdout = run.stdout.decode("utf-8")  # strict: raises on anything that is not UTF-8
    if fmt == "text":
        assert "/caf\\xe9.py:2:5: MS103" in stdout
    else:
        data = json.loads(stdout)
        assert "\udce9" not in json.dumps(data)
    if fmt == "json":
        assert data[0]["path"].endswith("/caf\\xe9.py")
    if fmt == "sarif":
        (result,) = data["runs"][0]["results"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("/caf%5Cxe9.py")
        schema = os.environ.get("MSPORT_SARIF_SCHEMA")
        if schema:  # tools/test.sh provides it (tests/test_cli.py fails without it)
            import jsonschema

            jsonschema.validate(data, json.loads(Path(schema).read_text()))
    written = tmp_path / f"report.{fmt}"
    again = subprocess.run([sys.executable, "-m", "msport", "check", "--format", fmt, "-o", str(written), str(tmp_path)], capture_output=True, timeout=TIMEOUT)
    assert again.returncode == 1 and b"Traceback" not in again.stderr
    assert "caf" in written.read_bytes().decode("utf-8")


def test_report_with_a_name_that_is_not_utf8(tmp_path):
    with open(os.path.join(os.fsencode(tmp_path), b"caf\xe9.py"), "w") as out:
        out.write(GOOD)
    run = subprocess.run([sys.executable, "-m", "msport", "report", "--format", "json", str(tmp_path)], capture_output=True, timeout=TIMEOUT)
    assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr
    data = json.loads(run.stdout.decode("utf-8"))
    assert [row["path"] for row in data["files"]] == ["caf\\xe9.py"]


def test_memory_stays_bounded_with_dev_zero(tmp_path):
    """/dev/zero is never read: the run stays small (it grew to 2.6 GB before)."""
    root = hostile_tree(tmp_path / "repo")
    limit = 1_500_000_000  # address space: a read of /dev/zero dies here instead of swapping the machine

    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    run = subprocess.run([sys.executable, "-m", "msport", "check", "-j", "1", str(root)], capture_output=True, text=True,
                         timeout=TIMEOUT, preexec_fn=cap, stdin=subprocess.DEVNULL)
    assert run.returncode == 1 and "Traceback" not in run.stderr, run.stderr


# -- the server's workspace scan -------------------------------------------------------------
def test_workspace_scan_skips_special_files_and_says_so_once(tmp_path):
    root = hostile_tree(tmp_path / "repo")
    client = RawClient(capabilities={"window": {"workDoneProgress": False}}, cwd=str(root),
                       command=[sys.executable, "-m", "msport", "serve"], root_uri=root.as_uri())
    try:
        first = client.request("workspace/executeCommand", {"command": "msport.scanWorkspace"}, timeout=TIMEOUT)["result"]
        second = client.request("workspace/executeCommand", {"command": "msport.scanWorkspace"}, timeout=TIMEOUT)["result"]
        assert first["files"] == second["files"] == 1 and first["errors"] == [] and first["findings"] == 1
        assert client.diagnostics[(root / "good.py").as_uri()]["diagnostics"][0]["code"] == "MS103"
        # The server still reads its own stdin (the /dev/stdin link was not read from).
        hover = client.request("textDocument/hover", {"textDocument": {"uri": (root / "good.py").as_uri()}, "position": {"line": 0, "character": 0}})
        assert "error" in hover and "is not open" in hover["error"]["message"]
        shown = [m["params"]["message"] for m in client.drain_notifications() if m.get("method") == "window/showMessage"]
        skipped = sorted(m for m in shown if "the workspace scan skipped" in m)
        assert len(skipped) == 7 and len(set(skipped)) == 7, shown  # once each, not once per scan
        assert any("fifo.py: a FIFO (named pipe)" in m for m in skipped)
    finally:
        assert client.close() == 0, client.stderr_text()[-3000:]
