"""Per-keystroke work follows the edit: an edit's analysis checks the statements it changed and
leaves the statements it did not touch, if no analysis has checked them yet, for when typing
pauses (said by an MS002 each run of them); the server then checks them and publishes the same
diagnostics a fresh analysis gives. (How long a keystroke takes is measured in bench/.)"""

import threading
import time

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis import engine

from .lspclient import RawClient


def module(functions: int, imports: str = "import torch\n") -> str:
    body = "".join(f"def f{i}(x):\n    y = torch.cat([x, x])\n    return y.view(-1)\n\n\n" for i in range(functions))
    return imports + "\n\n" + body


def comparable(findings):
    return sorted((f.span.start_line, f.span.start_col, f.code, f.message) for f in findings)


@pytest.fixture
def no_edit_share(monkeypatch):
    """An edit gets no time for statements it did not touch: which ones are left does not then
    depend on the machine's speed."""
    monkeypatch.setattr(engine, "EDIT_SHARE", 0.0)


def test_an_edit_checks_what_it_changed_and_leaves_the_rest_for_later(no_edit_share):
    analyzer = Analyzer()
    settings = Settings()
    text = module(40)
    # A changed import changes every statement's context: none has findings for it yet.
    edited = text.replace("import torch\n", "import torch\nimport numpy as np\n").replace("def f20(x):", "def f20(x, z):")
    analyzer.analyze(text, settings, "m.py")
    result = analyzer.analyze(edited, settings, "m.py", edit=True)
    lines = edited.split("\n")
    f0, f20, f21 = (lines.index(f"def f{i}(x):" if i != 20 else "def f20(x, z):") + 1 for i in (0, 20, 21))
    pending = [f for f in result.findings if f.code == "MS002"]
    # Both imports and f20 are new text: checked. The 39 other functions wait, in two runs.
    assert result.pending == 39
    assert [f.span.start_line + 1 for f in pending] == [f0, f21]
    assert pending[0].message.startswith(f"Lines {f0}-{f20 - 1} were not checked yet: after an edit msport checks")
    assert pending[1].message.startswith(f"Lines {f21}-")
    assert all("when you pause typing" in f.message for f in pending)
    edited_line = f20 - 1
    # The edited function's findings are there at once; no other function's are.
    checked = {f.span.start_line for f in result.findings if f.code != "MS002"}
    assert checked and all(edited_line <= line < edited_line + 3 for line in checked)
    # Analysing the same text again (what the server does when typing pauses) completes it,
    # exactly as a fresh analysis would.
    complete = analyzer.analyze(edited, settings, "m.py")
    assert complete.pending == 0
    assert comparable(complete.findings) == comparable(Analyzer().analyze(edited, settings, "m.py").findings)


def test_a_stopped_analysis_leaves_everything_unchecked_for_later():
    stop = threading.Event()
    stop.set()
    analyzer = Analyzer()
    text = module(5)
    result = analyzer.analyze(text, Settings(), "m.py", stop=stop)
    assert result.pending == 6
    assert [f.code for f in result.findings] == ["MS002"]
    assert result.findings[0].message.startswith("Lines 1-") and "were not checked yet" in result.findings[0].message
    assert comparable(analyzer.analyze(text, Settings(), "m.py").findings) == comparable(Analyzer().analyze(text, Settings(), "m.py").findings)


def test_a_keystroke_moves_only_the_findings_that_moved():
    """Findings of statements a keystroke did not touch or move are the same objects as before
    (the server reuses their diagnostics)."""
    analyzer = Analyzer()
    text = module(10)
    before = analyzer.analyze(text, Settings(), "m.py").findings
    typed = text.replace("def f5(x):\n    y = torch.cat([x, x])", "def f5(x):\n    y = torch.cat([x, x])  # a comment")
    after = analyzer.analyze(typed, Settings(), "m.py", edit=True).findings
    assert len(before) == len(after)
    same = [a is b for a, b in zip(before, after)]
    assert not same[5] and sum(same) == len(same) - 1  # f5's finding is new, every other one is reused
    assert comparable(before) == comparable(after)


def test_the_server_completes_what_a_keystroke_left(tmp_path):
    """A keystroke that changes the imports of a large file (every statement's context) gets
    its edited statement checked at once and the rest when typing pauses; the last publication
    is what a fresh analysis finds."""
    # The default time-budget (10 s): an edit has 0.5 s for the statements it did not touch.
    path = tmp_path / "big.py"
    text = module(1500, imports="import torch\n#\n")  # ~1.5 s to check anew on an idle machine
    path.write_text(text)
    new_import = "import numpy as np  "  # a new binding: every statement's context changes
    expected = Analyzer().analyze(text.replace("#\n", new_import + "#\n", 1), Settings(), str(path)).findings
    client = RawClient(root_uri=tmp_path.as_uri(), cwd=str(tmp_path))
    try:
        uri = path.as_uri()
        client.open(uri, text)
        client.wait_diagnostics(uri, 1, timeout=120)
        client.change(uri, 2, [{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 0}}, "text": new_import}])
        published = None
        deadline = time.monotonic() + 180
        while published is None or any("were not checked yet" in d["message"] for d in published):
            # Partial publications first (when the machine was slower than the edit's share).
            message = client.notifications.get(timeout=max(1, deadline - time.monotonic()))
            params = message.get("params") or {}
            if message.get("method") == "textDocument/publishDiagnostics" and params.get("uri") == uri and params.get("version") == 2:
                published = params["diagnostics"]
        assert not any(d["code"] == "MS002" for d in published), [d["message"] for d in published if d["code"] == "MS002"][:3]
        assert sorted((d["range"]["start"]["line"], d["code"], d["message"]) for d in published) == sorted(
            (f.span.start_line, f.code, f.message) for f in expected)
    finally:
        assert client.close() == 0, client.stderr_text()[-2000:]
