"""On real model code, at least 95% of the PyTorch call sites msport resolves get a verdict.

The code comes from PyPI wheels that tools/test.sh downloads and unpacks (never installs):
timm (an image-model zoo) and torchvision's detection models. What counts as a call site is
documented in tools/api_coverage.py.
"""

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from api_coverage import measure  # noqa: E402

CORPUS = Path(os.environ.get("MSPORT_CORPUS") or ROOT / ".cache" / "corpus")


@pytest.mark.parametrize("folder, at_least", [
    ("timm/timm", 5000),
    ("torchvision/torchvision/models/detection", 400),
])
def test_call_sites_with_a_verdict(folder, at_least):
    path = CORPUS / folder
    assert path.is_dir(), f"{path} is missing: tools/test.sh downloads it (timm 1.0.20, torchvision 0.28.0)"
    tally = measure([path])
    assert tally.unparsable == 0
    assert tally.sites >= at_least  # it really read model code
    assert tally.share >= 0.95, tally.unknown.most_common(20)
    # Every kind of verdict shows up, and the tables carry most of them.
    assert set(tally.statuses) >= {"equivalent", "divergent", "missing"}
    assert tally.basis["tables"] > tally.sites / 2
