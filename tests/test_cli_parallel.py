"""`msport check -j N` and `msport report -j N`: worker processes give the serial run's output,
stream it, show progress only on a terminal, and survive a dead worker and Ctrl-C.

The command runs as a real `python -m msport` subprocess on real files: the examples, a generated
tree of edited copies, and the timm corpus that tools/test.sh downloads. The pool is also driven
directly, with jobs that really kill their worker process.
"""

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, ROOT
from msport.cli import parallel
from msport.cli.parallel import POOL_MIN_FILES, WorkerDied
from msport.cli.progress import ProgressBar

CORPUS = Path(os.environ.get("MSPORT_CORPUS") or ROOT / ".cache" / "corpus")
TIMM = CORPUS / "timm" / "timm"
MSPORT = [sys.executable, "-m", "msport"]


def msport(*args, cwd=None):
    return subprocess.run([*MSPORT, *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def write_tree(root: Path, copies: int = 30) -> Path:
    """Edited copies of the examples (renamed definitions, an extra function each, so no two files
    share their chunks), plus the cases that print to stderr: a syntax error, a latin-1 file, a
    dangling symlink (skipped with a warning), a folder whose pyproject.toml ignores MS103."""
    examples = sorted(EXAMPLES.glob("*.py"))
    for i in range(copies):
        source = examples[i % len(examples)].read_text(encoding="utf-8")
        source = re.sub(r"^(\s*)(def|class) (\w+)", rf"\1\2 \3_v{i}", source, flags=re.M)
        source += f"\n\ndef extra_{i}(x):\n    return torch.cat([x] * {i + 1}) + torch.nonzero(x).sum()\n"
        folder = root / f"pkg{i % 4}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"m{i:02d}_{examples[i % len(examples)].name}").write_text(source, encoding="utf-8")
    (root / "pkg1" / "broken.py").write_text("import torch\ndef f(:\n    return torch.cat(a)\ny = torch.flatten(b)\n")
    (root / "pkg2" / "latin.py").write_bytes(b"import torch\n# caf\xe9\ny = torch.cat(a)\n")
    (root / "pkg2" / "gone.py").symlink_to(root / "nowhere.py")
    (root / "pkg3" / "pyproject.toml").write_text('[tool.msport]\nignore = ["MS103"]\n')
    return root


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write_tree(tmp_path_factory.mktemp("tree"))


def test_the_generated_tree_is_large_enough_for_the_pool(tree):
    # Below POOL_MIN_FILES even -j 2 runs in-process, and the comparisons below would be void.
    assert len(list(tree.rglob("*.py"))) > 2 * POOL_MIN_FILES


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_parallel_output_equals_serial(tree, fmt):
    serial = msport("check", "-j", "1", "--format", fmt, str(EXAMPLES), str(tree))
    parallel = msport("check", "-j", "2", "--format", fmt, str(EXAMPLES), str(tree))
    assert serial.returncode == parallel.returncode == 1
    assert parallel.stdout == serial.stdout
    assert parallel.stderr == serial.stderr
    assert "pkg2/gone.py: skipped: a broken symbolic link" in parallel.stderr
    assert "pkg2/latin.py: not valid utf-8; undecodable bytes were replaced" in parallel.stderr
    if fmt == "text":
        assert "of 35 files" in parallel.stdout.splitlines()[-1]  # 3 examples, 30 copies, broken.py, latin.py
        assert "pkg1/broken.py:2:" in parallel.stdout and "MS001" in parallel.stdout
        assert not [line for line in parallel.stdout.splitlines() if "/pkg3/" in line and " MS103 " in line]
        assert [line for line in parallel.stdout.splitlines() if "/pkg2/" in line and " MS103 " in line]


def test_fix_with_workers_writes_the_same_files(tmp_path):
    one, two = write_tree(tmp_path / "one"), write_tree(tmp_path / "two")
    (one / "pkg2" / "gone.py").unlink()  # cwd-relative paths below: both trees must list the same files
    (two / "pkg2" / "gone.py").unlink()
    before = {p.relative_to(one): p.read_bytes() for p in sorted(one.rglob("*.py"))}
    serial = msport("check", "--fix", "--unsafe-fixes", "-j", "1", ".", cwd=one)
    parallel = msport("check", "--fix", "--unsafe-fixes", "-j", "2", ".", cwd=two)
    assert (serial.returncode, serial.stdout, serial.stderr) == (parallel.returncode, parallel.stdout, parallel.stderr)
    after_one = {p.relative_to(one): p.read_bytes() for p in sorted(one.rglob("*.py"))}
    after_two = {p.relative_to(two): p.read_bytes() for p in sorted(two.rglob("*.py"))}
    assert after_one == after_two
    changed = [path for path in before if before[path] != after_one[path]]
    assert len(changed) >= 20 and Path("pkg2/latin.py") not in changed  # the PyTorch copies; latin.py is undecodable
    assert re.search(r"Applied \d{3,} fixes\.", parallel.stdout)
    # What is left after fixing is reported from the fixed text: checking again finds the same.
    again = msport("check", "-j", "2", ".", cwd=two)
    assert again.stdout.splitlines()[:-1] == parallel.stdout.splitlines()[:-1]


def test_a_file_named_twice_is_checked_once(tree):
    # Two workers fixing one file at once would each write their own result.
    once = msport("check", "-j", "2", str(tree))
    first_file = sorted((tree / "pkg0").glob("*.py"))[0]
    twice = msport("check", "-j", "2", str(tree), str(tree / "pkg0"), str(first_file))
    assert twice.stdout == once.stdout and twice.stderr == once.stderr


@pytest.mark.parametrize("command", ["check", "report"])
@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_bad_jobs_value_is_a_usage_error(command, value):
    run = msport(command, str(EXAMPLES), f"--jobs={value}")
    assert run.returncode == 2
    assert "argument -j/--jobs: expected a positive whole number of processes" in run.stderr and repr(value) in run.stderr


def test_report_with_workers_equals_serial(tree):
    serial = msport("report", "-j", "1", "--format", "json", str(tree))
    parallel = msport("report", "-j", "2", "--format", "json", str(tree))
    assert serial.returncode == parallel.returncode == 0
    # The report is stamped with the minute it was made: two runs may straddle one.
    unstamped = [{k: v for k, v in json.loads(run.stdout).items() if k != "generated"} for run in (serial, parallel)]
    assert unstamped[0] == unstamped[1] and parallel.stderr == serial.stderr
    assert "gone.py: skipped: a broken symbolic link" in parallel.stderr


# -- the pool itself, with jobs that really crash their process -----------------------------------
TEST_PROCESS = os.getpid()


def _double(state, job):
    if job == "poison":
        os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does
    return state, job * 2


def _setup_fails_in_workers():
    if os.getpid() != TEST_PROCESS:
        raise RuntimeError("cannot set up here")
    return "parent"


def test_the_job_that_kills_its_worker_is_named_and_the_rest_are_done():
    jobs = [f"f{i}" for i in range(40)]
    jobs[13] = "poison"
    finished = []
    results = list(parallel.run(_double, os.getpid, jobs, 2, lambda count, index: finished.append((count, index))))
    assert [index for index, _ in results] == list(range(40))  # in the jobs' order
    assert sorted(index for _, index in finished) == list(range(40)) and [c for c, _ in finished] == list(range(1, 41))
    died = results[13][1]
    assert isinstance(died, WorkerDied) and "killed by SIGKILL" in str(died)
    others = [result for index, result in results if index != 13]
    assert [job for _, job in others] == [job * 2 for job in jobs if job != "poison"]
    workers = {pid for pid, _ in others}
    assert len(workers) >= 2 and TEST_PROCESS not in workers  # really other processes


def test_workers_that_cannot_start_leave_the_work_to_this_process(capfd):
    jobs = [f"f{i}" for i in range(20)]
    results = list(parallel.run(_double, _setup_fails_in_workers, jobs, 2, lambda count, index: None))
    assert results == [(i, ("parent", job * 2)) for i, job in enumerate(jobs)]
    stderr = capfd.readouterr().err
    assert "RuntimeError: cannot set up here" in stderr  # the workers' own error
    assert "could not start; checking in this process instead" in stderr


def _seen(state, job):
    """How many times this worker process has had *job* (its state is a dict kept per process).
    Each takes a little time, as a file does, so that both workers are busy side by side."""
    time.sleep(0.02)
    state[job] = state.get(job, 0) + 1
    return os.getpid(), state[job]


def test_a_pool_keeps_its_workers_and_gives_each_file_back_to_the_worker_that_had_it():
    """msport check's index rounds and check run on one Pool: the workers stay, and a file goes
    back to the worker whose caches hold it (only an idle worker takes another's files)."""
    jobs = [f"f{i}" for i in range(40)]
    with parallel.Pool(dict, 2) as pool:
        first = list(parallel.run(_seen, dict, jobs, 2, lambda count, index: None, pool, lambda job: job))
        second = list(parallel.run(_seen, dict, jobs, 2, lambda count, index: None, pool, lambda job: job))
        workers = [w.process for w in pool.running]
        assert len(workers) == 2 and all(w.is_alive() for w in workers)
    assert not any(w.is_alive() for w in workers)  # closed with the pool
    assert [i for i, _ in first] == [i for i, _ in second] == list(range(40))
    pids = {pid for _, (pid, _) in first}
    assert len(pids) == 2 and TEST_PROCESS not in pids
    assert {pid for _, (pid, _) in second} <= pids  # the same processes, not new ones
    again = sum(1 for _, (_, times) in second if times == 2)
    assert again >= 32, f"only {again} of 40 files went back to the worker that had them"


# -- the timm corpus: long enough to watch a run while it goes --------------------------------------
@pytest.fixture(scope="module")
def timm_serial():
    assert TIMM.is_dir(), f"{TIMM} is missing: tools/test.sh downloads it"
    run = msport("check", "-j", "1", str(TIMM))
    assert run.returncode == 1 and run.stdout.count("\n") > 5000
    return run


def _children(pid: int):
    """Processes whose parent is *pid*, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat[stat.rindex(")") + 2 :].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _start(*args, **kwargs):
    """A running msport and the first line of its stdout."""
    proc = subprocess.Popen([*MSPORT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    return proc, proc.stdout.readline()


def _finish(proc):
    """The rest of stdout (not communicate(): it would skip what readline() buffered), stderr."""
    rest, stderr = proc.stdout.read(), proc.stderr.read()  # stderr holds a few lines at most
    proc.wait(timeout=600)
    return rest, stderr


def test_corpus_results_stream_in_order_and_equal_serial(timm_serial):
    proc, first = _start("check", str(TIMM))
    cpus = len(os.sched_getaffinity(0))
    assert len(_children(proc.pid)) == (cpus if cpus > 1 else 0)  # by default, a worker per usable CPU
    # The first file's findings arrive while the run is still going, not at the end.
    assert proc.poll() is None and first
    rest, stderr = _finish(proc)
    assert proc.returncode == timm_serial.returncode
    assert first + rest == timm_serial.stdout and stderr == timm_serial.stderr


def test_a_killed_worker_costs_one_file(timm_serial):
    proc, first = _start("check", "-j", "2", str(TIMM))
    workers = _children(proc.pid)
    assert proc.poll() is None and len(workers) == 2
    os.kill(workers[0], signal.SIGKILL)
    rest, stderr = _finish(proc)
    assert proc.returncode == 2
    (lost,) = re.findall(r"msport: error: (\S+): the checking process was killed by SIGKILL while checking it", stderr)
    assert lost.endswith(".py")
    # Every other file is reported exactly as in a serial run.
    expected = [line for line in timm_serial.stdout.splitlines()[:-1] if not line.startswith(lost + ":")]
    assert (first + rest).splitlines()[:-1] == expected
    files = int(re.search(r"of (\d+) files", timm_serial.stdout).group(1))
    assert f"of {files - 1} files" in rest.splitlines()[-1]


def test_ctrl_c_stops_the_workers_and_says_so():
    # Ctrl-C sends SIGINT to the terminal's whole process group: the parent and its workers.
    proc, _ = _start("check", "-j", "2", str(TIMM), start_new_session=True)  # once it has begun
    workers = _children(proc.pid)
    assert proc.poll() is None and workers
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = _finish(proc)
    assert proc.returncode == 130
    assert "msport: interrupted: not every file was checked" in stderr and "Traceback" not in stderr
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]  # none left behind


# -- progress: on a terminal's stderr only ---------------------------------------------------------
def _on_terminal(args, stdout_too=False):
    """Run msport with stderr (and stdout if asked) on a pseudo-terminal; (what the terminal
    showed, what went to the stdout pipe, exit status)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([*MSPORT, *args], stdin=subprocess.DEVNULL, stdout=slave if stdout_too else subprocess.PIPE, stderr=slave)
    os.close(slave)
    received = {master: b""}
    if not stdout_too:
        received[proc.stdout.fileno()] = b""
    open_fds = set(received)
    while open_fds:  # read both as they come: a full pipe would stall the run
        for fd in select.select(list(open_fds), [], [], 60)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # EIO: every writer to the terminal has exited
                chunk = b""
            if chunk:
                received[fd] += chunk
            else:
                open_fds.discard(fd)
    os.close(master)
    proc.wait(timeout=60)
    stdout = b"" if stdout_too else received[proc.stdout.fileno()]
    return received[master].decode(), stdout.decode(), proc.returncode


def _progress_tree():
    assert TIMM.is_dir(), f"{TIMM} is missing: tools/test.sh downloads it"
    return [str(TIMM / "data"), str(TIMM / "layers")]


@pytest.mark.parametrize("command", ["check", "report"])
def test_progress_bar_on_a_terminal(command):
    paths = _progress_tree()
    total = len([p for path in paths for p in Path(path).rglob("*.py")])
    screen, stdout, code = _on_terminal([command, "-j", "2", *paths])
    assert code in (0, 1)
    assert f"{total}/{total} files checked" in screen and "\r[" in screen
    assert "files checked" not in stdout and "\r" not in stdout
    assert stdout.strip()  # the results still went to stdout


def test_no_progress_bar_when_stderr_is_a_pipe():
    run = msport("check", "-j", "2", *_progress_tree())
    assert run.returncode == 1
    assert "files checked" not in run.stderr and "\r" not in run.stderr and "\r" not in run.stdout


def test_bar_and_results_on_one_terminal_do_not_mix():
    # The bar is erased before result lines are printed: each line arrives whole.
    expected = msport("check", "-j", "1", *_progress_tree()).stdout.splitlines()
    screen, _, code = _on_terminal(["check", "-j", "2", *_progress_tree()], stdout_too=True)
    assert code == 1
    lines = screen.replace("\r\n", "\n").split("\n")
    for line in expected[:-1]:
        assert line in lines or any(shown.endswith("\r" + line) for shown in lines), line


def test_the_bar_fits_a_narrow_terminal_and_keeps_the_end_of_the_path():
    # A line wider than the terminal wraps, and "\r" would then redraw only its last row.
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    with os.fdopen(slave, "w") as tty:
        bar = ProgressBar(269, stream=tty, delay=0)
        bar.update(120, "timm/models/layers/some/deeply/nested/package/vision_transformer.py")
        bar.close()
    drawn = os.read(master, 65536).decode()
    os.close(master)
    line = drawn.split("\r")[1]
    assert len(line) == 79 and "] 120/269 files checked  ..." in line and line.endswith("ision_transformer.py")
