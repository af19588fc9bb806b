"""Every file of CPython's standard library and test suite (which include deliberately broken
syntax and odd encodings): no traceback, syntax errors become MS001 findings."""

import json
import subprocess
import sys
import sysconfig
from pathlib import Path

from .lspclient import RawClient

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def test_cli_over_the_whole_standard_library(tmp_path):
    out = tmp_path / "stdlib.json"
    run = subprocess.run(
        [sys.executable, "-m", "msport", "check", str(STDLIB), "--format", "json", "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode in (0, 1), run.stderr[-3000:]
    findings = json.loads(out.read_text())
    syntax = {Path(f["path"]).name for f in findings if f["code"] == "MS001"}
    # CPython's test suite ships files that do not parse on purpose.
    assert any(name.startswith("badsyntax_") for name in syntax), sorted(syntax)[:20]
    assert all(f["line"] >= 1 and f["column"] >= 1 for f in findings)
    print(f"\n{len(findings)} findings, {len(syntax)} files with syntax errors")


def test_server_over_odd_standard_library_files():
    odd = sorted((STDLIB / "test").rglob("badsyntax_*.py")) + sorted((STDLIB / "test").rglob("bad_coding*.py"))
    odd += [STDLIB / "test" / name for name in ("test_source_encoding.py", "test_unicode_identifiers.py", "test_grammar.py", "test_fstring.py")]
    odd = [p for p in odd if p.is_file()]
    assert len(odd) > 10
    client = RawClient()
    try:
        for index, path in enumerate(odd):
            text = path.read_bytes().decode("utf-8", errors="replace")
            uri = path.as_uri()
            client.open(uri, text)
            client.wait_diagnostics(uri, 1)
            assert client.state(uri)["text"] == text
        assert client.alive()
    finally:
        assert client.close() == 0, client.stderr_text()[-3000:]
