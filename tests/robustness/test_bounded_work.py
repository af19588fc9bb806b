"""Bounded work inside one statement: a statement too long to parse is skipped with an MS002
(its tree would take hundreds of MB); a huge function's checks stop at their share of the time
budget with an MS002 naming the line they reached, keeping what they found; the limit is per
thread; and the same holds per keystroke in the server. (How long these take is measured in
bench/pathological.py; here, that the bounds are applied and said.)"""

import threading
import traceback
import tracemalloc

from msport.analysis import Analyzer, Settings
from msport.analysis.engine import MAX_STATEMENT_CHARS

from .lspclient import RawClient


def huge_function(statements: int) -> str:
    """A function whose flow analysis costs grow with the square of its length: a tensor op, a
    data-dependent branch and a mask index per three lines."""
    body = "".join(
        f"    b{i} = torch.cat([a, b{max(i - 1, 0)}])\n    if b{i}.sum() > 0:\n        c = b{i}[mask]\n"
        for i in range(statements)
    )
    return f"import torch\n\n\ndef f(a, mask):\n    b0 = a\n{body}    return c\n\n\ny = torch.cat([a, a])\n"


def test_a_statement_too_long_to_parse_is_skipped_and_said():
    elements = MAX_STATEMENT_CHARS // len("torch.zeros(3), ") + 1000
    text = "import torch\ny = torch.cat(a)\nx = [" + "torch.zeros(3), " * elements + "]\nz = torch.cat(b)\n"
    tracemalloc.start()
    try:
        findings = Analyzer().analyze(text, Settings()).findings
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [(f.code, f.span.start_line) for f in findings] == [("MS103", 1), ("MS002", 2), ("MS103", 3)]
    assert findings[1].message.startswith(f"Lines 3-3 were not checked: this one statement is {len(text.split(chr(10))[2]):,} characters, more than the 1,000,000")
    assert peak < 100 * 2**20, f"{peak / 2**20:.0f} MB traced: the statement was parsed"  # parsing it would take ~250 MB


def test_a_huge_function_stops_at_its_share_of_the_budget_and_keeps_what_it_found():
    # 24,000 lines: ~15 s of checks alone on an idle machine, cut at a quarter of a 20 s budget. The
    # budget is generous so that parsing and the module-wide passes (seconds on a loaded machine)
    # never use it all up before the checks begin.
    text = huge_function(8000)
    lines = text.count("\n")
    findings = Analyzer().analyze(text, Settings().merged({"time-budget": 20}, "test")).findings
    (stopped,) = [f for f in findings if f.code == "MS002"]
    assert stopped.span.start_line == 3  # reported on the function's first line
    assert stopped.message.startswith(f"Lines 4-{lines - 1} were checked only in part: this statement took longer than the 5 s msport gives one statement")
    assert "checks stopped at line " in stopped.message and "raise time-budget" in stopped.message
    line = int(stopped.message.split("stopped at line ")[1].split(".")[0])
    assert 5 < line < lines - 1
    # The findings made before the stop are kept; the statement after the function is checked.
    assert [f for f in findings if f.code.startswith("MS1") and 3 < f.span.start_line < line]
    assert any(f.code == "MS103" and f.span.start_line == lines - 1 for f in findings)


def test_the_time_limit_belongs_to_its_thread():
    """An analysis under a tight budget on one thread leaves one on another thread unlimited (the
    server's hover walks trees on the event loop while the analysis thread has its limit)."""
    text = huge_function(1500)
    results = {}

    def run(name, budget):
        try:
            results[name] = [f.code for f in Analyzer().analyze(text, Settings().merged({"time-budget": budget}, "test")).findings]
        except BaseException:  # said by the assertion below, not lost in the thread
            results[name] = traceback.format_exc()

    tight = threading.Thread(target=run, args=("tight", 0.4))
    loose = threading.Thread(target=run, args=("loose", 600))
    tight.start()
    loose.start()
    tight.join(300)
    loose.join(300)
    assert all(isinstance(r, list) for r in results.values()), results
    assert "MS002" in results["tight"] and "MS002" not in results["loose"]
    assert results["loose"].count("MS103") == 1501


def test_each_keystroke_in_a_huge_function_is_bounded_in_the_server(tmp_path):
    """Each keystroke re-checks the function for its share of a 2 s budget, then publishes, with
    an MS002 saying what was not checked (on a loaded machine the module-wide passes may use the
    whole budget first: then the MS002 says the lines were not checked at all)."""
    (tmp_path / "pyproject.toml").write_text("[tool.msport]\ntime-budget = 2\n")
    path = tmp_path / "big.py"
    text = huge_function(3000)
    path.write_text(text)
    client = RawClient(root_uri=tmp_path.as_uri(), cwd=str(tmp_path))

    def said_what_was_skipped(diagnostics):
        return [d for d in diagnostics if d["code"] == "MS002" and ("checked only in part" in d["message"] or "were not checked" in d["message"])]

    try:
        uri = path.as_uri()
        client.open(uri, text)
        assert said_what_was_skipped(client.wait_diagnostics(uri, 1, timeout=120)["diagnostics"])
        for version, character in enumerate("  # x", start=2):  # keystrokes inside the function
            client.change(uri, version, [{"range": {"start": {"line": 3000, "character": 40}, "end": {"line": 3000, "character": 40}}, "text": character}])
        assert said_what_was_skipped(client.wait_diagnostics(uri, version, timeout=120)["diagnostics"])
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 5, "character": 16}})
        assert "torch.cat" in hover["result"]["contents"]["value"]
    finally:
        assert client.close() == 0, client.stderr_text()[-2000:]


FIXABLE = "def head{i}(x):\n    pooled = F.adaptive_avg_pool2d(x, 1)\n    return pooled\n\n\n"


def test_fix_all_stops_when_asked_between_passes():
    from msport.analysis.fixes import fix_all

    text = "import torch.nn.functional as F\n\n\n" + "".join(FIXABLE.format(i=i) for i in range(50))
    asked = []
    outcome = fix_all(text, Settings(), Analyzer(), stop=lambda: asked.append(1) or len(asked) > 1)
    assert outcome.stopped and outcome.passes == 1 and len(outcome.applied) == 50
    assert not fix_all(text, Settings(), Analyzer(), stop=lambda: True).changed


def test_a_fix_all_overtaken_by_an_edit_or_cancelled_gives_way_to_diagnostics():
    """Fix on save of a large file, then the user types (and the editor cancels the request): no
    stale edit comes back, and the diagnostics of the new text arrive."""
    text = "import torch.nn.functional as F\n\n\n" + "".join(FIXABLE.format(i=i) for i in range(1500))
    uri = "file:///tmp/msport_fixall/big.py"
    client = RawClient()
    try:
        client.open(uri, text)
        findings = len(client.wait_diagnostics(uri, 1, timeout=120)["diagnostics"])
        assert findings >= 1500
        params = {"textDocument": {"uri": uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                  "context": {"diagnostics": [], "only": ["source.fixAll.msport"], "triggerKind": 1}}
        for cancel in (False, True):
            request_id = 900 + cancel
            client.send({"jsonrpc": "2.0", "id": request_id, "method": "textDocument/codeAction", "params": params})
            version = 2 + cancel
            text = text + f"y{version} = 1\n"
            client.change(uri, version, [{"text": text}])
            if cancel:
                client.notify("$/cancelRequest", {"id": request_id})
            reply = client.wait_response(request_id, timeout=120)
            assert reply.get("result") in (None, []) or reply["error"]["code"] == -32800, reply
            published = client.wait_diagnostics(uri, version, timeout=120)
            assert len(published["diagnostics"]) == findings  # of the new text, not fixed by a stale edit
    finally:
        client.close()
