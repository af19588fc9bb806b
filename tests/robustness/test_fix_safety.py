"""`msport check --fix` cannot cost the user a byte: killed at any moment (kill -9, many runs,
many files), on a full disk (a real tmpfs, and a file-size limit), with an edit saved during the
run, through links out of the project, with hard links; the mode is kept; every failure is
reported, leaves the file as it was, and makes the exit status 2."""

import os
import random
import resource
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fixes.test_cli_fix import SOURCE

FIXED_LINE = "pooled = x.mean((-2, -1), True)"


def fixed(text: str) -> str:
    """What --fix makes of SOURCE (or a variant): the pooling rewritten, and the import of F,
    then unused, removed (MS104)."""
    return text.replace("pooled = F.adaptive_avg_pool2d(x, 1)", FIXED_LINE).replace("import torch.nn.functional as F\n", "")
TIMEOUT = 300


def msport(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "msport", *args], capture_output=True, text=True, timeout=TIMEOUT, **kwargs)


@pytest.fixture(scope="module")
def fixed_source(tmp_path_factory) -> str:
    """What --fix makes of SOURCE, by msport itself."""
    path = tmp_path_factory.mktemp("reference") / "head.py"
    path.write_text(SOURCE)
    run = msport("check", "--fix", str(path))
    assert "Applied 2 fixes." in run.stdout, run.stdout + run.stderr
    text = path.read_text()
    assert FIXED_LINE in text and text != SOURCE
    return text


def variant(i: int) -> str:
    """SOURCE with a padding comment of its own: distinct files (no chunk cache shared), and
    large enough that writing them is not instantaneous."""
    return SOURCE + f"# file {i}\n" + "".join(f"# padding line {k} of file {i}\n" for k in range(400))


def stamp(path: Path):
    """What changes when msport replaces a file (a rename gives it a new inode)."""
    status = path.stat()
    return status.st_ino, status.st_mtime_ns


def test_kill_9_at_any_moment_leaves_each_file_old_or_new(tmp_path, fixed_source):
    """Runs on 300 files killed (SIGKILL to the whole process group, workers included) at random
    moments after their first write began: each file is byte for byte either as it was or fully
    fixed, never empty or partial; then a run to the end fixes them all."""
    assert fixed_source == fixed(SOURCE)  # so `new` below is right
    rng = random.Random(19)
    root = tmp_path / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text("[tool.msport]\n")
    paths = [root / f"m{i:03d}.py" for i in range(300)]
    old = {p: variant(i) for i, p in enumerate(paths)}
    new = {p: fixed(text) for p, text in old.items()}
    mixed_states = 0
    for round_ in range(4):
        for path in paths:
            path.write_text(old[path])
        stamps = {path: stamp(path) for path in paths}
        process = subprocess.Popen([sys.executable, "-m", "msport", "check", "--fix", "-j", "2", str(root)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        # Kill once a random number of files has been rewritten: a kill at a random time after the
        # first write lands after the last one on a fast machine (the run takes well under a second).
        target = rng.randrange(1, len(paths))
        deadline = time.monotonic() + TIMEOUT
        while process.poll() is None and sum(stamp(p) != stamps[p] for p in paths) < target:
            assert time.monotonic() < deadline
            time.sleep(0.002)
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # it finished first
        process.wait()
        states = []
        for path in paths:
            text = path.read_text()
            assert text in (old[path], new[path]), f"round {round_}: {path.name} is neither the old nor the fixed text ({len(text)} chars)"
            states.append(text == new[path])
        mixed_states += any(states) and not all(states)
    assert mixed_states, "no kill landed in the middle of a run: the test proved nothing"
    final = msport("check", "--fix", str(root))
    assert all(path.read_text() == new[path] for path in paths), final.stderr
    # Temporary files a kill left behind are never .py files, so never checked or imported.
    assert sorted(p for p in root.iterdir() if p.suffix == ".py") == paths


def _full_disk_project(root: Path) -> Path:
    (root / "pyproject.toml").write_text("[tool.msport]\n")
    path = root / "model.py"
    path.write_text(variant(0))
    return path


def test_full_disk_keeps_the_original_and_exits_2(tmp_path):
    """A real full disk: a 512 kB tmpfs (mounted in a user and mount namespace) holding the file
    and a filler, with less room left than the fixed file needs."""
    inside = r"""
set -e
mount -t tmpfs -o size=512k tmpfs "$1"
cp "$2" "$1/model.py"
printf '[tool.msport]\n' > "$1/pyproject.toml"
dd if=/dev/zero of="$1/filler" bs=1k count=500 status=none 2>/dev/null || true
before=$(sha256sum "$1/model.py")
set +e
"$3" -m msport check --fix "$1" > "$4/stdout" 2> "$4/stderr"
echo $? > "$4/status"
after=$(sha256sum "$1/model.py")
[ "$before" = "$after" ] && echo same > "$4/compare" || echo changed > "$4/compare"
ls -a "$1" > "$4/listing"
"""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    original = tmp_path / "original.py"
    original.write_text(variant(0))
    out = tmp_path / "out"
    out.mkdir()
    run = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", inside, "sh", str(mount_point), str(original), sys.executable, str(out)],
                         capture_output=True, text=True, timeout=TIMEOUT)
    assert run.returncode == 0, run.stderr
    stderr = (out / "stderr").read_text()
    assert (out / "status").read_text().strip() == "2", stderr
    assert (out / "compare").read_text().strip() == "same"
    assert "model.py: fixes not written: No space left on device; the file is unchanged" in stderr
    assert "Applied 0 fixes." in (out / "stdout").read_text()
    assert not [name for name in (out / "listing").read_text().split() if name.endswith(".msport-tmp")]


def test_file_size_limit_keeps_the_original_and_exits_2(tmp_path):
    """The same with RLIMIT_FSIZE: writing past the limit fails (EFBIG) like a full disk."""
    path = _full_disk_project(tmp_path)
    before = path.read_bytes()
    limit = len(before) // 2

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    env = dict(os.environ, MSPORT_NO_CACHE="1")  # the rule cache is a file too
    run = subprocess.run([sys.executable, "-m", "msport", "check", "--fix", str(tmp_path)], capture_output=True, text=True,
                         timeout=TIMEOUT, preexec_fn=small_files, env=env)
    assert run.returncode == 2, run.stderr
    assert path.read_bytes() == before
    assert "model.py: fixes not written: File too large; the file is unchanged" in run.stderr
    assert "Applied 0 fixes." in run.stdout
    assert not list(tmp_path.glob("*.msport-tmp"))


def test_an_edit_saved_after_the_file_was_read_wins(tmp_path):
    """msport read the file; the user saves an edit; the fix must not overwrite it."""
    from msport.analysis.engine import Analyzer
    from msport.analysis.settings import Settings
    from msport.cli.files import read_source
    from msport.cli.fixing import fix_file

    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    source = read_source(path, 10**7)
    edited = SOURCE.replace("def head", "def head_renamed_by_the_user")
    path.write_text(edited)
    outcome = fix_file(path, source, Analyzer(), Settings(), str(path), False, (str(tmp_path),))
    assert path.read_text() == edited
    assert outcome.failed and outcome.applied == 0 and outcome.text == SOURCE
    assert outcome.messages == [f"msport: error: {path}: fixes not written: it changed on disk after msport read it "
                                "(an edit saved meanwhile?); run msport again to fix the new text; the file is unchanged"]


def test_links_out_of_the_project_are_not_followed(tmp_path):
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "pyproject.toml").write_text("[tool.msport]\n")
    (outside / "victim.py").write_text(SOURCE)
    (project / "inside.py").write_text(SOURCE)
    (project / "escape.py").symlink_to(outside / "victim.py")
    (project / "alias.py").symlink_to(project / "real.py")
    (project / "real.py").write_text(SOURCE + "# real\n")
    run = msport("check", "--fix", str(project))
    assert run.returncode == 2, run.stderr
    assert (outside / "victim.py").read_text() == SOURCE
    assert f"escape.py: fixes not written: it is a symbolic link to {outside / 'victim.py'}, outside the project" in run.stderr
    assert FIXED_LINE in (project / "inside.py").read_text()
    # A link inside the project: the file it leads to is fixed, and the link stays a link.
    assert FIXED_LINE in (project / "real.py").read_text() and (project / "alias.py").is_symlink()
    assert "Applied 4 fixes." in run.stdout


def test_mode_is_kept_and_hard_links_are_left_alone(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.msport]\n")
    script = tmp_path / "script.py"
    script.write_text(SOURCE)
    script.chmod(0o754)
    shared = tmp_path / "shared.py"
    shared.write_text(SOURCE + "# shared\n")
    os.link(shared, tmp_path / "shared_too.pyx")
    run = msport("check", "--fix", str(tmp_path))
    assert FIXED_LINE in script.read_text() and stat.S_IMODE(script.stat().st_mode) == 0o754
    assert shared.read_text() == SOURCE + "# shared\n"
    assert "shared.py: fixes not written: it has 2 hard links, which would keep the old text if msport replaced it" in run.stderr
    assert run.returncode == 2 and "Applied 2 fixes." in run.stdout
