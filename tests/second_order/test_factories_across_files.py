"""A factory of another package building from a registry (basicsr's build_network(opt):
`ARCH_REGISTRY.get(opt["type"])(**opt)`), whose product a training model differentiates twice
through a gradient penalty of a third package: every class the registry holds is a candidate,
reported in its own file one severity lower, naming the registry and the penalty; a class that a
second registry builds for a gradient taken once gets nothing. Checked the way a user does,
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
def gan_factory():
    run = subprocess.run([sys.executable, "-m", "msport", "check", "gan_factory", "--format", "json", "--select", "MS5"],
                         cwd=PROJECTS, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _labels():
    positives, negatives = set(), set()
    for path in sorted((PROJECTS / "gan_factory").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            match = LABEL.search(line)
            if match and match.group(1) == "ok":
                negatives.add((path.relative_to(PROJECTS).as_posix(), number))
            elif match:
                positives.add((path.relative_to(PROJECTS).as_posix(), number, match.group(1)))
    return positives, negatives


def test_the_classes_the_factory_may_build_are_reported_at_their_lines(gan_factory):
    positives, negatives = _labels()
    found = {(Path(f["path"]).as_posix(), f["line"], f["code"]) for f in gan_factory if f["code"] != "MS504"}
    assert len(positives) == 3 and len(negatives) >= 4
    assert found == positives
    assert not {(p, n) for p, n, _ in found} & negatives


def test_candidates_are_one_severity_lower_and_name_the_registry_and_the_penalty(gan_factory):
    site = next(n for n, line in enumerate((PROJECTS / "gan_factory/losses/gan_loss.py").read_text().splitlines(), 1)
                if "create_graph=True" in line)
    reported = [f for f in gan_factory if f["code"] == "MS501"]
    assert reported
    for finding in reported:
        assert finding["severity"] == "warning"  # MS501 is an error where the class is known
        assert "`ARCH_REGISTRY`" in finding["message"] and "one of the 2 classes" in finding["message"]
        assert f"`r1_penalty` (gan_factory/losses/gan_loss.py:{site})" in finding["message"]


def test_a_registry_product_differentiated_once_gets_nothing(gan_factory):
    assert not [f for f in gan_factory if f["path"].endswith("head_arch.py")]
