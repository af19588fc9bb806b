"""msport in real editors: VS Code (code-server + the .vsix, driven by Playwright in Chromium),
Neovim 0.7 and Emacs 28 + eglot, all headless. Each editor run records what the user would
see; these tests compare it with msport's own analysis of the same file (tests/e2e/expected.py).
Screenshots and JSON results stay in tests/e2e/out/."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from typing import Dict, List, Tuple

from msport.analysis.findings import Finding, Severity
from msport.analysis.settings import SUPPORTED_VERSIONS

from .expected import BACKEND, VERSION, Plan, card_mark, counts, editor_params, utf8_col
from .harness import NVIM_011, OTHER, REPO, VSIX, run_emacs, run_nvim, run_vscode
from .lsp_client import capabilities

LSP_SEVERITY = {Severity.ERROR: 1, Severity.WARNING: 2, Severity.INFO: 3, Severity.HINT: 4}
RULE_PAGE = re.compile(r"^https://\S+/docs/rules/(MS\d+)\.md$")


def _explain(run) -> str:
    # What the script saw on the way (menus, retried steps) names the cause of a timeout.
    seen = {k: run.result[k] for k in ("steps", "quickfix_menus", "quickfix_failures", "goto_failures")
            if k in run.result}
    return f"result: {run.result.get('error')}\nseen: {seen}\nlog tail:\n{run.log[-2500:]}"


def _expected_rows(found: List[Finding], text: str) -> List[Tuple]:
    """(line, byte column, byte end column, code, message, LSP severity) as Neovim reports them."""
    lines = text.splitlines()
    return sorted(
        (f.span.start_line, utf8_col(lines[f.span.start_line], f.span.start_col),
         utf8_col(lines[f.span.end_line], f.span.end_col), f.code, f.message, LSP_SEVERITY[f.severity])
        for f in found
    )


# -- VS Code ---------------------------------------------------------------------------------

def _problem_rows(rows: List[str]) -> List[Tuple[str, str, int, int]]:
    """Problems-panel rows "message\\nmsport\\nCODE\\n[Ln L, Col C]" (file rows are skipped)."""
    parsed = []
    for row in rows:
        match = re.match(r"^(.*)\nmsport\n(MS\d+)\n\[Ln (\d+), Col (\d+)\]$", row, re.S)
        if match:
            parsed.append((match[2], match[1], int(match[3]), int(match[4])))
    return parsed


def _in_panel(found: List[Finding], text: str) -> Dict[Tuple[int, int], Tuple[str, str]]:
    """Errors and warnings by (1-based line, 1-based UTF-16 column), as the Problems panel shows."""
    lines = text.splitlines()
    out = {}
    for f in found:
        if f.severity in (Severity.ERROR, Severity.WARNING):
            line = lines[f.span.start_line]
            col = len(line[:f.span.start_col].encode("utf-16-le")) // 2
            out[(f.span.start_line + 1, col + 1)] = (f.code, f.message)
    return out


def test_vscode(installed, the_plan: Plan, workspace, out_dir):
    p = the_plan
    params = editor_params(p)
    run = run_vscode(workspace.parent, out_dir, params)
    r = run.result
    assert run.returncode == 0 and r["ok"], _explain(run)

    # The extension ran the server it bundles, with python3 from the PATH (no msport there).
    assert "msport from bundled, interpreter from default, workspace trusted" in r["extension_log"], r["extension_log"]
    assert "server running: msport" in r["extension_log"]
    # Restart Server started it again; Show Logs opened that log in the Output panel.
    assert "starting the server (Restart Server command)" in r["extension_log"]
    assert r["output_channel"] == "msport"

    # Status bar: the defaults, then what the two commands picked.
    assert r["status_initial"] == "msport 2.10 · Ascend"
    assert r["status_aria"] == "msport 2.10 Ascend: Server running"
    assert r["status_after_version"] == f"msport {VERSION} · Ascend"
    assert r["status_after_backend"] == f"msport {VERSION} · {params['E2E_BACKEND']}"
    assert [re.match(r"\d+\.\d+", row)[0] for row in r["version_choices"]] == list(reversed(SUPPORTED_VERSIONS))
    assert "current" in r["version_choices"][0]
    assert [re.sub(r"(Version|Backend).*", r"\1", row) for row in r["status_menu"]] == [
        "Select Target Version", "Select Backend", "Scan Workspace", "Show Migration Report", "Show Effective Settings", "Restart Server", "Show Logs"]
    # The commands wrote the workspace's settings, which is where the later edit added ignore.
    assert r["workspace_settings_before_ignore"] == {"msport.targetVersion": VERSION, "msport.backend": BACKEND}

    # Squiggles: the status bar counts the open file's problems, or the folder's once the
    # workspace diagnostics arrived; the Problems panel rows are msport's findings.
    other_file = workspace.parent / OTHER
    assert r["problem_counts_initial"] in (counts(p.initial), counts(p.initial + p.other))
    expected_panel = _in_panel(p.initial, p.text)
    rows = _problem_rows(r["problems_initial"])
    assert rows, r["problems_initial"]
    for code, message, line, col in rows:
        if (line, col) in expected_panel:
            assert expected_panel[(line, col)] == (code, message)
        else:  # a row of the other file, pulled as a workspace diagnostic
            assert (code, message) in {(f.code, f.message) for f in p.other}, (code, message, line, col)
    assert any(code == p.warn.code and message == p.warn.message for code, message, _, _ in rows)

    # Hover: the diagnostic and msport's card, by mouse and by keyboard.
    assert p.warn.message in r["hover_warning"]
    assert card_mark(p.cards["initial"], "MindSpore 2.10") in r["hover_warning"]
    assert card_mark(p.cards["initial"], "MindSpore 2.10") in r["hover_keyboard"]

    # Quick fix: the lightbulb's menu offers it under its title, and fix-all beside it; applied
    # and saved exactly as msport computes it.
    assert any(p.fix_title in item for item in r["quickfix_menu"]), r["quickfix_menu"]
    assert "Fix all safe msport findings in this file" in r["quickfix_menu"], r["quickfix_menu"]
    assert workspace.read_text(encoding="utf-8") == p.fixed_text

    # Settings changes reach the server: new hover cards, fewer problems after msport.ignore.
    assert card_mark(p.cards["version"], f"MindSpore {VERSION}") in r["hover_after_version"]
    assert card_mark(p.cards["backend"], params["E2E_BACKEND"]) in r["hover_after_backend"]
    assert r["problem_counts_after_ignore"] in (counts(p.after_ignore), counts(p.after_ignore + p.other_after_ignore))
    after_ignore = _problem_rows(r["problems_after_ignore"])
    assert all(code != p.warn.code for code, *_ in after_ignore), after_ignore
    assert {(code, message) for code, message, *_ in after_ignore} <= {
        (f.code, f.message) for f in p.after_ignore + p.other_after_ignore}

    # A [tool.msport] table written into pyproject.toml applies to the keys the editor leaves unset.
    assert r["problem_counts_after_pyproject"] in (
        counts(p.after_pyproject), counts(p.after_pyproject + p.other_after_pyproject))
    assert r["problem_counts_after_pyproject"] != r["problem_counts_after_ignore"]

    # Scan Workspace is offered exactly when the server implements it; it finds the other file.
    offered = "msport.scanWorkspace" in capabilities(workspace.parent).get("executeCommandProvider", {}).get("commands", [])
    assert r["scan_in_palette"] == offered
    if offered:
        assert re.match(r"msport: scanned the workspace: \d+ findings in \d+ of \d+ files\. See the Problems panel\.",
                        r["scan_notification"]), r["scan_notification"]
        assert any(row.startswith(f"{OTHER}\n") for row in r["scan_problems"]), r["scan_problems"]

    # Show Migration Report: the report for the folder, with the editor's settings, in a tab.
    has_report = subprocess.run([sys.executable, "-m", "msport", "report", "--help"], capture_output=True).returncode == 0
    assert r["report_tab"] == has_report, r.get("report_error")
    if has_report:
        assert f"MindSpore {VERSION} on {params['E2E_BACKEND']}" in r["report_text"], r["report_text"][:500]
    else:
        assert "no report command" in r["report_error"]

    # Show Effective Settings: the values in force, each with the layer that set it, in a
    # read-only document named after the file, which typing does not change and closing does
    # not ask to save.
    lines = r["settings_lines"]
    assert f'target-version = "{VERSION}" # editor settings (msport.*)' in lines, lines
    assert 'select = ["MS1"] # ' + str(workspace.parent / "pyproject.toml") in lines, lines
    assert 'mode = "graph" # default' in lines, lines
    assert r["settings_tab"].startswith(f"{p.file.name} (msport settings).toml"), r["settings_tab"]
    assert not r["settings_tab_dirty"]
    assert r["settings_after_typing"] == lines and not r["settings_close_dialog"]

    # Restarts: a server that stopped because it was asked to is not logged as an error.
    log = r["extension_log"]
    assert "Server process exited normally (exit code 0)." in log
    assert not re.search(r"\[error\].*exited with code 0", log), log

    # First squiggles: timed in the page, from the file's text showing to the first squiggle,
    # in the window's first open and in a fresh window (reload) that restores the file. Speed is
    # reported in bench/ (bench/editor_startup.py), not asserted; the marks must exist.
    assert 0 < r["timing_open"]["text"] < r["timing_open"]["squiggle"], r["timing_open"]
    for timing in (r["timing_open"], r["timing_reload"]):
        assert 0 < timing["text"] < timing["diagnostics"], timing
    # The extension logs, once per window, how long its first findings took after activation.
    assert len(re.findall(r"first diagnostics \d+ ms after activation", log)) == 2, log

    for name in r["shots"]:
        assert (out_dir / name).stat().st_size > 10_000, name
    # Nothing but the quick fix touched the files.
    assert other_file.read_text(encoding="utf-8") == (REPO / "examples" / OTHER).read_text(encoding="utf-8")


# -- Neovim ----------------------------------------------------------------------------------

def _nvim_rows(diagnostics: List[dict]) -> List[Tuple]:
    return sorted((d["lnum"], d["col"], d["end_col"], d["code"], d["message"], d["severity"]) for d in diagnostics)


def test_nvim(installed, the_plan: Plan, workspace, out_dir):
    """Debian's Neovim 0.7: diagnostics pushed."""
    _check_nvim(run_nvim(workspace, out_dir, editor_params(the_plan)), the_plan, workspace, "utf-16")


def test_nvim_011(installed, the_plan: Plan, workspace, out_dir):
    """Neovim 0.11: diagnostics pulled (textDocument/diagnostic), positions in UTF-8."""
    _check_nvim(run_nvim(workspace, out_dir, editor_params(the_plan), binary=NVIM_011, name="nvim-0.11"), the_plan, workspace, "utf-8")


def _check_nvim(run, p: Plan, workspace, encoding: str) -> None:
    """*encoding*: the position encoding msport must pick from what this Neovim offers (0.7
    knows only UTF-16; 0.11 offers UTF-8 first)."""
    r = run.result
    assert run.returncode == 0 and r["ok"], _explain(run)
    assert r["offset_encoding"] == encoding

    # Every finding, where msport puts it (byte columns: Neovim converted the UTF-16 ones,
    # including on the line with CJK text and an emoji before the finding).
    assert r["initial_complete"]
    assert _nvim_rows(r["diagnostics"]) == _expected_rows(p.initial, p.text)
    assert any(d["lnum"] == p.non_ascii.span.start_line for d in r["diagnostics"])
    for d in r["diagnostics"]:
        assert d["source"] == "msport"
        assert RULE_PAGE.match(d["href"])[1] == d["code"]

    assert r["hover"] == p.cards["initial"]
    assert any(p.fix_title in a["title"] and a["kind"] == "quickfix" for a in r["code_actions"]), r["code_actions"]
    assert workspace.read_text(encoding="utf-8") == p.fixed_text
    assert r["after_fix_complete"] and r["diagnostics_after_fix"] == len(p.after_fix)

    assert r["version_applied"], "no diagnostic of the new target version arrived"
    assert r["hover_after_version"] == p.cards["version"]
    assert r["backend_applied"] and r["ignore_applied"]
    assert _nvim_rows(r["diagnostics_after_ignore"]) == _expected_rows(p.after_ignore, p.fixed_text)


# -- Emacs -----------------------------------------------------------------------------------

def _emacs_rows(diagnostics: List[dict]) -> List[Tuple]:
    rows = []
    for d in diagnostics:
        match = re.match(r"^msport \[(MS\d+)\]: (.*)$", d["text"], re.S)
        assert match, d["text"]
        rows.append((d["line"], d["col"], match[1], match[2], d["type"]))
    return sorted(rows)


def _expected_emacs(found: List[Finding]) -> List[Tuple]:
    kind = {Severity.ERROR: "eglot-error", Severity.WARNING: "eglot-warning"}
    return sorted((f.span.start_line, f.span.start_col, f.code, f.message, kind.get(f.severity, "eglot-note")) for f in found)


def test_emacs(installed, the_plan: Plan, workspace, out_dir):
    p = the_plan
    run = run_emacs(workspace, out_dir, editor_params(p))
    r = run.result
    assert run.returncode == 0 and r["ok"], _explain(run)

    # Columns in characters: eglot converted the UTF-16 ones (the emoji is 2 units, 1 character).
    assert r["initial_complete"]
    assert _emacs_rows(r["diagnostics"]) == _expected_emacs(p.initial)
    assert any(d["line"] == p.non_ascii.span.start_line and d["col"] == p.non_ascii.span.start_col for d in r["diagnostics"])

    assert r["hover"] == p.cards["initial"]
    assert any(p.fix_title in title for title in r["code_actions"]), r["code_actions"]
    assert workspace.read_text(encoding="utf-8") == p.fixed_text
    assert r["after_fix_complete"]

    # Settings from .dir-locals.el, sent with workspace/didChangeConfiguration.
    assert r["version_applied"], "no diagnostic of the new target version arrived"
    assert r["hover_after_version"] == p.cards["version"]
    assert r["backend_applied"] and r["ignore_applied"]
    assert _emacs_rows(r["diagnostics_after_ignore"]) == _expected_emacs(p.after_ignore)
    # One publication per state: opened, fixed, version, backend, ignore (+ a possible repeat).
    assert r["publish_counts"][0] == len(p.initial) and r["publish_counts"][-1] == len(p.after_ignore)


def test_vscode_without_a_bundled_server_says_so(installed, workspace, tmp_path, out_dir):
    """A .vsix packaged without its server (what `vsce package` made before it checked): the user
    is told what is missing and what to do, and the status bar shows the failure, instead of
    "Pending response rejected since connection got disposed"."""
    broken = tmp_path / "no-server.vsix"
    with zipfile.ZipFile(VSIX) as source, zipfile.ZipFile(broken, "w") as target:
        for item in source.infolist():
            if not item.filename.startswith("extension/bundled/libs/"):
                target.writestr(item, source.read(item.filename))
    run = run_vscode(workspace.parent, out_dir, {}, vsix=broken, script="missing_server.js", timeout=180)
    r = run.result
    assert run.returncode == 0 and r["ok"], _explain(run)
    assert "This msport extension was packaged without its server" in r["notification"], r["notification"]
    assert "npm ci && npm run package" in r["notification"]
    assert "Server failed to start" in r["status_aria"], r["status_aria"]
    assert "connection got disposed" not in r["extension_log"]
