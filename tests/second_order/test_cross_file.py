"""Second-order paths across the files of a project (the project index): a gradient penalty in
one module differentiates twice a critic defined in another, whose forward is inherited from a
base class in a third, and a block re-exported through a package. The operations on that path
are reported in their own files, naming the gradient call (file:line); a generator of the same
project differentiated once only gets nothing. The project is checked the way a user does,
``msport check DIR`` in a subprocess, once for the module."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

PROJECTS = Path(__file__).parent / "projects"
LABEL = re.compile(r"#\s*(MS5\d\d|ok)\s*$")


@pytest.fixture(scope="module")
def gan_r1():
    run = subprocess.run([sys.executable, "-m", "msport", "check", "gan_r1", "--format", "json", "--select", "MS5"],
                         cwd=PROJECTS, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def labels(root):
    positives, negatives = set(), set()
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = LABEL.search(line)
            if match and match.group(1) == "ok":
                negatives.add((path.relative_to(PROJECTS).as_posix(), number))
            elif match:
                positives.add((path.relative_to(PROJECTS).as_posix(), number, match.group(1)))
    return positives, negatives


def test_the_ops_on_the_path_are_found_in_their_own_files_and_nothing_else(gan_r1):
    positives, negatives = labels(PROJECTS / "gan_r1")
    found = {(Path(f["path"]).as_posix(), f["line"], f["code"]) for f in gan_r1}
    assert len(positives) >= 3 and len(negatives) >= 5
    assert found == positives
    assert not {(p, n) for p, n, _ in found} & negatives


def test_the_message_names_the_gradient_call_in_the_other_file(gan_r1):
    site_line = next(n for n, line in enumerate((PROJECTS / "gan_r1/train/penalty.py").read_text().splitlines(), 1)
                     if "create_graph=True" in line)
    remote = [f for f in gan_r1 if f["code"] == "MS501"]
    assert {Path(f["path"]).as_posix() for f in remote} == {"gan_r1/nets/base.py", "gan_r1/nets/critic.py"}
    for finding in remote:
        assert f"`GANModel.r1_penalty` (gan_r1/train/penalty.py:{site_line})" in finding["message"]


@pytest.fixture(scope="module")
def gan_passed():
    run = subprocess.run([sys.executable, "-m", "msport", "check", "gan_passed", "--format", "json", "--select", "MS5"],
                         cwd=PROJECTS, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def test_networks_passed_in_from_another_file_are_followed(gan_passed):
    """The penalties (penalty.py) take the critic, or the scores it computed, as a parameter;
    the training step of another file passes a critic imported under another name, a local
    class, and the scores of a local head: each one's operations are reported where they are
    written; the generator handed to a first-order saliency and an unused class are not."""
    positives, negatives = labels(PROJECTS / "gan_passed")
    found = {(Path(f["path"]).as_posix(), f["line"], f["code"]) for f in gan_passed if f["code"] != "MS504"}
    assert len(positives) == 3 and len(negatives) == 2
    assert found == positives
    assert not {(p, n) for p, n, _ in found} & negatives


def test_the_passed_network_message_names_the_penalty_in_the_other_file(gan_passed):
    text = (PROJECTS / "gan_passed/penalty.py").read_text().splitlines()
    r1_line = next(n for n, line in enumerate(text, 1) if "pred.sum(), real, create_graph=True" in line)
    scores_line = next(n for n, line in enumerate(text, 1) if "scores.sum(), real, create_graph=True" in line)
    by_line = {(Path(f["path"]).name, f["line"]): f["message"] for f in gan_passed if f["code"] == "MS501"}
    elu = by_line[("nets.py", next(n for n, line in enumerate((PROJECTS / "gan_passed/nets.py").read_text().splitlines(), 1) if "F.elu(x)" in line))]
    assert f"`r1` (gan_passed/penalty.py:{r1_line})" in elu
    hardswish = next(m for (name, _), m in by_line.items() if name == "train.py" and "hardswish" in m)
    assert f"`r1_of_scores` (gan_passed/penalty.py:{scores_line})" in hardswish


@pytest.fixture(scope="module")
def gan_registry():
    run = subprocess.run([sys.executable, "-m", "msport", "check", "gan_registry", "--format", "json", "--select", "MS5"],
                         cwd=PROJECTS, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def test_a_registry_of_another_file_builds_the_class_the_config_names(gan_registry):
    """Critics registered in critics.py (@MODELS.register_module()), the registry in registry.py,
    and the penalty in train.py building one by a literal config: the named class's operations
    are reported; the other registered class is not (a saliency builds it, differentiated once);
    a config msport cannot read leaves the critic named as not followed."""
    positives, negatives = labels(PROJECTS / "gan_registry")
    found = {(Path(f["path"]).as_posix(), f["line"], f["code"]) for f in gan_registry if f["code"] != "MS504"}
    assert len(positives) == 1 and len(negatives) == 1
    assert found == positives
    configured = [f for f in gan_registry if f["code"] == "MS504" and "configured_step" in f["message"]]
    assert len(configured) == 1 and "Not followed (check by hand)" in configured[0]["message"] and "`critic`" in configured[0]["message"]
