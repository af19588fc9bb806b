"""After a structural fix (nn.Module -> Cell, forward -> construct) the class is a MindSpore Cell,
but every PyTorch idiom left in it still fails on MindSpore: each keeps its finding until it is
gone. Checked through the command line: `check --fix --unsafe-fixes`, then `check` again."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

FIXTURE = Path(__file__).parent / "fixtures" / "ported" / "classifier.py"


def msport(*args, cwd):
    return subprocess.run([sys.executable, "-m", "msport", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def findings_by_line_text(path):
    run = msport("check", path.name, "--format", "json", "--select", "MS1", cwd=path.parent)
    lines = path.read_text().splitlines()
    found = {}
    for finding in json.loads(run.stdout):
        found.setdefault(lines[finding["line"] - 1].strip(), []).append(finding)
    return found


def test_every_torch_idiom_left_after_fix_all_keeps_its_finding(tmp_path):
    model = tmp_path / "classifier.py"
    shutil.copy(FIXTURE, model)
    before = findings_by_line_text(model)
    fixed = msport("check", "--fix", "--unsafe-fixes", model.name, cwd=tmp_path)
    assert "Applied" in fixed.stdout, fixed.stdout + fixed.stderr
    text = model.read_text()
    assert "(ms.nn.Cell)" in text and "def construct(self, x):" in text  # the structural fixes went in
    after = findings_by_line_text(model)
    # Lines the fixes did not touch, with a finding before: the idiom is still there, so is its finding.
    untouched = [line for line in before if line in {t.strip() for t in text.splitlines()}]
    assert {"batch = x.size(0)", "return logits.detach(), tiled", "tiled = logits.repeat(2, 1)",
            "return [name for name, _ in self.named_parameters()]"} <= set(untouched)
    for line in untouched:
        assert line in after, f"the finding on `{line}` vanished after fix-all though the code is unchanged"
    assert all(f["torch_api"].startswith("torch.") for findings in after.values() for f in findings)
