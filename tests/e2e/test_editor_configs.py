"""The editor configurations users copy from docs/editors.md and pycharm-notes/ are valid: the
JSON and TOML parse, every msport setting in them is one the server accepts, and the Neovim and
Emacs snippets, run as written in the real editors, bring up msport's diagnostics."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

from msport.analysis.settings import Settings, editor_values
from msport.knowledge import default_knowledge

from .expected import findings
from .harness import NVIM_011, REPO, scratch_env

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

EDITORS = (REPO / "docs" / "editors.md").read_text(encoding="utf-8")
PYCHARM = REPO / "pycharm-notes"


def code_blocks(markdown: str, language: str) -> List[str]:
    return re.findall(rf"```{language}\n(.*?)```", markdown, re.S)


def block_after(markdown: str, heading: str, language: str) -> str:
    section = markdown[markdown.index(heading):]
    return code_blocks(section, language)[0]


def assert_valid_settings(values: Dict) -> None:
    settings = Settings().merged(editor_values(values), "docs", default_knowledge().codes)
    assert not settings.problems, settings.problems


def test_pycharm_lsp4ij_template():
    folder = PYCHARM / "lsp4ij-template" / "msport"
    template = json.loads((folder / "template.json").read_text(encoding="utf-8"))
    assert template["id"] == "msport"
    for command in template["programArgs"].values():
        assert command.endswith(" -m msport serve") and command.startswith("$PROJECT_DIR$")
    assert {"language": "Python", "languageId": "python"} in template["languageMappings"]
    assert template["fileTypeMappings"][0]["fileType"]["patterns"] == ["*.py"]
    settings = json.loads((folder / "settings.json").read_text(encoding="utf-8"))
    assert settings == {"msport": {}}  # nothing that would hide pyproject.toml
    assert json.loads((folder / "initializationOptions.json").read_text(encoding="utf-8")) == {}
    for block in code_blocks((PYCHARM / "README.md").read_text(encoding="utf-8"), "json"):
        assert_valid_settings(json.loads(block)["msport"])


def test_helix_and_sublime_configurations():
    helix = tomllib.loads(block_after(EDITORS, "## Helix", "toml"))
    server = helix["language-server"]["msport"]
    assert [server["command"], *server["args"]] == ["msport", "serve"]
    assert_valid_settings(server["config"])
    assert "msport" in helix["language"][0]["language-servers"]
    sublime = json.loads(block_after(EDITORS, "## Sublime Text with LSP", "json"))["clients"]["msport"]
    assert sublime["command"] == ["msport", "serve"] and sublime["selector"] == "source.python"
    assert_valid_settings(sublime["settings"]["msport"])


def test_every_settings_table_key_is_accepted():
    table = EDITORS[EDITORS.index("## Settings"):EDITORS.index("## VS Code")]
    keys = re.findall(r"^\| `(\w+)` \|", table, re.M)
    assert keys == ["targetVersion", "backend", "mode", "jitLevel", "select", "ignore", "severity", "language"]
    examples = {"targetVersion": "2.5", "backend": "gpu", "mode": "pynative", "jitLevel": "O2",
                "select": ["MS1"], "ignore": ["MS103"], "severity": {"MS102": "error"}, "language": "zh-CN"}
    assert_valid_settings({key: examples[key] for key in keys})


def _count(text: str, path: Path, **values) -> int:
    return len(findings(text, path, **values))


def test_neovim_snippet_runs_as_written(tmp_path: Path):
    """docs/editors.md's Neovim 0.7-0.10 block in Debian's Neovim 0.7, with msport's command."""
    block = block_after(EDITORS, "### Neovim 0.7 to 0.10", "lua")
    block = block.replace("cmd = { 'msport', 'serve' }", f"cmd = {{ '{sys.executable}', '-m', 'msport', 'serve' }}")
    assert sys.executable in block
    sample = tmp_path / "model.py"
    shutil.copy(REPO / "examples" / "resnet_block.py", sample)
    out = tmp_path / "count.txt"
    init = tmp_path / "init.lua"
    init.write_text("vim.g.loaded_python3_provider = 0\n" + block + f"""
vim.api.nvim_create_autocmd('VimEnter', {{ once = true, callback = function()
  vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
  vim.wait(500)
  local f = io.open('{out}', 'w'); f:write(tostring(#vim.diagnostic.get(0))); f:close()
  vim.cmd('qall!')
end }})
""")
    subprocess.run(["nvim", "--headless", "-u", str(init), str(sample)], env=scratch_env(tmp_path / "home"),
                   capture_output=True, timeout=60, cwd=tmp_path)
    assert out.read_text() == str(_count(sample.read_text(encoding="utf-8"), sample))


def test_neovim_011_snippets_run_as_written(tmp_path: Path):
    """docs/editors.md's Neovim 0.11 blocks in Neovim 0.11 (a pull-diagnostics client): the
    vim.lsp.config / vim.lsp.enable form, then "change a setting without restarting"."""
    blocks = code_blocks(EDITORS[EDITORS.index("### Neovim 0.11 and newer"):EDITORS.index("### Neovim 0.7 to 0.10")], "lua")
    config, change = blocks
    config = config.replace("cmd = { 'msport', 'serve' }", f"cmd = {{ '{sys.executable}', '-m', 'msport', 'serve' }}")
    assert sys.executable in config and "targetVersion = '2.5'" in change
    sample = tmp_path / "model.py"
    # torch.vdot maps to mint.vdot from MindSpore 2.10 on and is missing in 2.5: the change shows.
    sample.write_text("import torch\n\n\ndef score(a, b):\n    return torch.vdot(a, b) + torch.flatten(a).sum()\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n")  # a root marker
    out = tmp_path / "shown.txt"
    init = tmp_path / "init.lua"
    init.write_text("vim.g.loaded_python3_provider = 0\n" + config + f"""
local function shown()  -- what the editor shows: sorted "line:code" pairs
  local items = {{}}
  for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(items, d.lnum .. ':' .. d.code) end
  table.sort(items)
  return table.concat(items, ' ')
end
vim.api.nvim_create_autocmd('FileType', {{ pattern = 'python', once = true, callback = function()
  vim.schedule(function()
    vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 50)
    vim.wait(500)
    local before = shown()
    local clients = #vim.lsp.get_clients({{ name = 'msport' }})
    {change}
    vim.wait(30000, function() return shown() ~= before end, 50)
    vim.wait(500)
    local f = io.open('{out}', 'w'); f:write(clients .. '\\n' .. before .. '\\n' .. shown()); f:close()
    vim.cmd('qall!')
  end)
end }})
""")
    subprocess.run([str(NVIM_011), "--headless", "-u", str(init), str(sample)], env=scratch_env(tmp_path / "home"),
                   capture_output=True, timeout=120, cwd=tmp_path)
    text = sample.read_text(encoding="utf-8")

    def expected(**values) -> str:
        return " ".join(sorted(f"{f.span.start_line}:{f.code}" for f in findings(text, sample, **values)))

    after = expected(**{"target-version": "2.5"})
    assert after != expected(), "the documented setting should change the findings"
    assert out.read_text().split("\n") == ["1", expected(), after]


def test_emacs_snippets_run_as_written(tmp_path: Path):
    """docs/editors.md's eglot-server-programs form, then its .dir-locals.el form, in Emacs 28."""
    program = block_after(EDITORS, "## Emacs with eglot", "elisp")
    program = program.replace('("msport" "serve")', f'("{sys.executable}" "-m" "msport" "serve")')
    assert sys.executable in program
    dir_locals = code_blocks(EDITORS[EDITORS.index("Settings per project, in `.dir-locals.el`"):], "elisp")[0]
    sample = tmp_path / "model.py"
    shutil.copy(REPO / "examples" / "resnet_block.py", sample)
    script = tmp_path / "check.el"
    script.write_text(f"""
(dolist (d (file-expand-wildcards "/usr/share/emacs/site-lisp/elpa/*")) (add-to-list 'load-path d))
(require 'eglot)
{program}
(setq enable-local-variables :all)
(defun wait-count (pred)
  (let ((deadline (+ (float-time) 30)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.1) (flymake-start))))
(find-file "{sample}")
(apply #'eglot (eglot--guess-contact))
(wait-count (lambda () (flymake-diagnostics)))
(accept-process-output nil 0.5)
(princ (format "before=%d\\n" (length (flymake-diagnostics))))
(let ((before (length (flymake-diagnostics))))
  (with-temp-file "{tmp_path / '.dir-locals.el'}" (insert {json.dumps(dir_locals)}))
  (eglot-signal-didChangeConfiguration (eglot--current-server-or-lose))
  (wait-count (lambda () (/= before (length (flymake-diagnostics)))))
  (princ (format "after=%d\\n" (length (flymake-diagnostics)))))
(kill-emacs 0)
""")
    proc = subprocess.run(["emacs", "--batch", "-Q", "-l", str(script)], env=scratch_env(tmp_path / "home"),
                          capture_output=True, text=True, timeout=90, cwd=tmp_path)
    text = sample.read_text(encoding="utf-8")
    values = re.search(r":msport \((.*?)\)\)", dir_locals)[1]  # :targetVersion "2.5" ... :ignore ["MS103"]
    settings: Dict = dict(re.findall(r':(\w+) "([^"]*)"', values))
    settings.update({k: re.findall(r'"([^"]*)"', v) for k, v in re.findall(r":(\w+) \[([^\]]*)\]", values)})
    assert set(settings) >= {"targetVersion", "ignore"}, settings
    assert_valid_settings(settings)
    kebab = {re.sub(r"([A-Z])", lambda m: "-" + m[1].lower(), k): v for k, v in settings.items()}
    expected_after = _count(text, sample, **kebab)
    assert expected_after != _count(text, sample), "the documented settings should change the findings"
    output = proc.stdout + proc.stderr
    assert f"before={_count(text, sample)}\n" in output, output[-2000:]
    assert f"after={expected_after}\n" in output, output[-2000:]
