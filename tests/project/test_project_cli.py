"""Whole-program analysis through the command line: a project whose loss class (one module)
uses helpers of another, whose model subclasses a base class of a third, and whose training
step (a fourth) calls the loss. Findings follow the program, not the file."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "detector"
LABEL = re.compile(r"#\s*(MS\d{3})\s*$")


def msport(*args, cwd):
    return subprocess.run([sys.executable, "-m", "msport", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture()
def project(tmp_path):
    root = tmp_path / "detector"
    shutil.copytree(FIXTURE, root)
    return root


def findings(run):
    assert run.returncode in (0, 1), run.stderr
    return [(f["path"], f["line"], f["code"], f["severity"], f["message"]) for f in json.loads(run.stdout)]


def labels(root):
    found = set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = LABEL.search(line)
            if match:
                found.add((path.relative_to(root).as_posix(), number, match.group(1)))
    return found


def test_dynamic_shapes_are_found_wherever_their_values_come_from(project):
    run = msport("check", ".", "--format", "json", "--select", "MS2", cwd=project)
    got = findings(run)
    assert {(p, line, code) for p, line, code, _, _ in got} == labels(project)
    # The loss class is called by the training step of train.py, the helpers by the loss: all of
    # it is compiled after the port (warnings on Ascend O0), none of it "callers unseen".
    assert {severity for *_, severity, _ in got} == {"warning"}
    assert not any("no caller" in message for *_, message in got)
    (gather,) = [m for p, _, code, _, m in got if code == "MS205"]
    assert "`match(iou, self.iou_threshold)`, which returns `torch.nonzero(iou > threshold)`" in gather  # from boxes.py


def test_a_file_checked_alone_knows_less_and_says_so(project):
    run = msport("check", "detector/loss.py", "--format", "json", "--select", "MS2", cwd=project)
    got = findings(run)
    # Alone, loss.py cannot see match() in boxes.py nor the training step in train.py.
    assert [code for _, _, code, _, _ in got] == ["MS210"] or not got
    assert all("no caller of `ComputeLoss.__call__`" in m for *_, m in got)


def test_a_model_subclassing_a_base_class_of_another_module_is_a_torch_layer(project):
    def forward_findings(*paths):
        run = msport("check", *paths, "--format", "json", "--select", "MS1", cwd=project)
        return [f for f in json.loads(run.stdout) if f["path"].endswith("yolo.py") and f["torch_api"] == "torch.nn.Module.forward"]

    # Yolo(BaseModel): BaseModel, in base.py, is an nn.Module, so Yolo's forward must become construct.
    (finding,) = forward_findings(".")
    assert finding["line"] == 13 and finding["fixes"][0]["edits"][0]["new_text"] == "construct"
    assert forward_findings("detector/models/yolo.py") == []  # alone, the base class is unknown


def test_a_helper_learnt_in_a_later_index_round_reaches_its_callers_in_one_process(tmp_path):
    """The index's rounds and the check share one analyzer per process (msport.cli.scan):
    main.g is first summarised before the index knows what other.make returns, then again
    after. A summary cached from the first round must not stand for the second: use.py's
    `g(x)` then has nonzero's data-dependent shape, in one process (-j 1) as with workers."""
    (tmp_path / "other.py").write_text("import torch\n\n\ndef make(n):\n    return torch.nonzero(n)\n")
    (tmp_path / "main.py").write_text("from other import make\n\n\ndef g(x):\n    return make(x)\n")
    (tmp_path / "use.py").write_text(
        "import torch\n\nfrom main import g\n\n\nclass M(torch.nn.Module):\n"
        "    def forward(self, x):\n        y = g(x)\n        return y.sum()\n"
    )
    found = findings(msport("check", "-j", "1", "--format", "json", ".", cwd=tmp_path))
    dynamic = sorted((Path(path).name, line) for path, line, code, _, message in found if code == "MS201" and "depends on the data" in message)
    assert ("use.py", 8) in dynamic, dynamic
    assert ("main.py", 5) in dynamic, dynamic
