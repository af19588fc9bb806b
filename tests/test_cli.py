"""The command line: formats, exit statuses, configuration errors, SARIF schema."""

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import EXAMPLES, ROOT


def msport(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "msport", *args], capture_output=True, text=True, cwd=cwd)


def test_text_output_on_examples():
    run = msport("check", str(EXAMPLES))
    assert run.returncode == 1
    lines = run.stdout.strip().split("\n")
    first = lines[0]
    path, line, col, rest = first.split(":", 3)
    assert path.endswith(".py") and line.isdigit() and col.isdigit()
    assert rest.strip()[:3] in ("MS1", "MS2")  # API mapping or dynamic shape (ms_static_graph.py comes first)
    assert lines[-1].startswith("Found ") and "of 3 files" in lines[-1]


def test_exit_zero_when_nothing_is_found(tmp_path):
    clean = tmp_path / "clean.py"
    clean.write_text("import mindspore as ms\nx = ms.Tensor([1])\n")
    run = msport("check", str(clean))
    assert run.returncode == 0, run.stdout
    assert "No findings in 1 file." in run.stdout


def test_json_output_keys_and_units(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import torch\ns = '中文'; y = torch.cat(a)\n", encoding="utf-8")
    run = msport("check", str(source), "--format", "json")
    assert run.returncode == 1
    (finding,) = json.loads(run.stdout)
    keys = {"path", "line", "column", "end_line", "end_column", "code", "category", "severity", "message", "torch_api", "mindspore_api", "fixes"}
    assert keys <= finding.keys()
    line = "s = '中文'; y = torch.cat(a)"
    assert finding["line"] == 2 and finding["column"] == line.index("torch.cat") + 1  # code points, 1-based
    assert finding["end_column"] == line.index("torch.cat") + len("torch.cat") + 1
    assert finding["category"] == "equivalent-api" and finding["severity"] == "hint"
    assert finding["torch_api"] == "torch.cat"
    assert finding["mindspore_api"].startswith("mindspore.") and finding["mindspore_api"].endswith(".cat")
    (fix,) = finding["fixes"]
    assert fix["safety"] in ("safe", "unsafe")
    assert {"line", "column", "end_line", "end_column", "new_text"} == set(fix["edits"][0])


def test_sarif_validates_against_the_2_1_0_schema():
    schema_path = os.environ.get("MSPORT_SARIF_SCHEMA")
    assert schema_path and Path(schema_path).is_file(), "tools/test.sh fetches the SARIF schema; run the suite through it"
    schema = json.loads(Path(schema_path).read_text())
    run = msport("check", str(EXAMPLES), "--format", "sarif")
    assert run.returncode == 1
    log = json.loads(run.stdout)
    jsonschema.validate(log, schema)
    results = log["runs"][0]["results"]
    assert results and all(r["ruleId"].startswith("MS") for r in results)
    assert {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]} == {r["ruleId"] for r in results}


def test_cli_flags_change_the_verdict(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import torch\ny = torch.cat(a)\n")
    assert msport("check", str(source), "--ignore", "MS103").returncode == 0
    assert msport("check", str(source), "--select", "MS103").returncode == 1


@pytest.mark.parametrize(
    "args, message",
    [
        (["--target-version", "3.1"], "--target-version: expected a MindSpore version"),
        (["--backend", "tpu"], "--backend: expected one of ascend, gpu, cpu"),
        (["--select", "XX9"], "--select: unknown rule code(s) XX9"),
    ],
)
def test_bad_flags_exit_2(args, message):
    run = msport("check", str(EXAMPLES), *args)
    assert run.returncode == 2
    assert message in run.stderr


def test_missing_path_exits_2(tmp_path):
    run = msport("check", str(tmp_path / "nope.py"))
    assert run.returncode == 2 and "nope.py" in run.stderr


def test_configuration_error_names_file_and_key_and_exits_2(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nbackend = "tpu"\ntarget-verison = "2.7"\n')
    (tmp_path / "m.py").write_text("import torch\ny = torch.cat(a)\n")
    run = msport("check", str(tmp_path))
    assert run.returncode == 2
    assert f"{tmp_path / 'pyproject.toml'}: backend: expected one of ascend, gpu, cpu, got 'tpu'; using 'ascend'" in run.stderr
    assert "target-verison: unknown setting (did you mean 'target-version'?)" in run.stderr
    assert run.stderr.count("backend:") == 1  # reported once, not per file
    assert "MS103" in run.stdout  # the defaults were used


def test_broken_pyproject_is_reported_and_defaults_used(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.msport\nbackend = 'cpu'\n")
    (tmp_path / "m.py").write_text("import torch\ny = torch.cat(a)\n")
    run = msport("check", str(tmp_path))
    assert run.returncode == 2
    assert "pyproject.toml: pyproject.toml: invalid TOML" in run.stderr
    assert "MS103" in run.stdout


def test_show_settings_names_where_each_value_comes_from(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nbackend = "cpu"\nseverity = { MS102 = "error" }\n')
    (tmp_path / "m.py").write_text("import torch\ny = torch.cat(a)\n")
    run = msport("check", "--show-settings", "--target-version", "2.5", str(tmp_path / "m.py"))
    assert run.returncode == 0, run.stderr
    lines = [" ".join(line.split()) for line in run.stdout.splitlines()]
    pyproject = tmp_path / "pyproject.toml"
    assert lines[0] == f"Settings for {tmp_path / 'm.py'} (configuration: {pyproject} ([tool.msport]))"
    assert 'target-version = "2.5" # command line' in lines
    assert f'backend = "cpu" # {pyproject}' in lines
    assert f'severity = {{ "MS102" = "error" }} # {pyproject}' in lines
    assert 'mode = "graph" # default' in lines
    assert "MS10" not in run.stdout.replace('"MS102"', "")  # nothing was checked


def test_show_settings_reports_a_bad_value_and_exits_2(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nbackend = "tpu"\n')
    (tmp_path / "m.py").write_text("import torch\n")
    run = msport("check", "--show-settings", str(tmp_path / "m.py"))
    assert run.returncode == 2
    assert 'backend = "ascend"' in run.stdout and "# default" in run.stdout.split('backend = "ascend"')[1].split("\n")[0]
    assert f"problem: {tmp_path / 'pyproject.toml'}: backend: expected one of ascend, gpu, cpu, got 'tpu'" in run.stdout


def test_pyproject_settings_apply(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nignore = ["MS103"]\nper-file-ignores = { "legacy/*" = ["MS1"] }\n')
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.py").write_text("import torch\ny = torch.flatten(a)\n")
    (tmp_path / "m.py").write_text("import torch\ny = torch.cat(a)\n")
    run = msport("check", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr


def test_undecodable_file_is_still_checked(tmp_path):
    source = tmp_path / "latin.py"
    source.write_bytes(b"import torch\n# caf\xe9\ny = torch.cat(a)\n")
    run = msport("check", str(source))
    assert run.returncode == 1
    assert "not valid utf-8" in run.stderr and "MS103" in run.stdout


def test_rules_and_explain():
    rules = msport("rules")
    assert rules.returncode == 0 and "MS101" in rules.stdout and "missing-api" in rules.stdout
    card = msport("explain", "torch.nn.GELU", "--backend", "cpu")
    assert card.returncode == 0 and "mindspore.nn.GELU" in card.stdout and "CPU" in card.stdout
    unknown = msport("explain", "torch.not_an_api")
    assert unknown.returncode == 1 and "torch.not_an_api" in unknown.stderr


def test_pre_commit_hook_definition():
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "id: msport" in text and "entry: msport check" in text


TEAM_RULE = '[[api]]\ntorch = "torch.cat"\nstatus = "missing"\nnote = "our fork has no cat kernel; call team_ops.concat"\n'


def test_extend_rules_from_pyproject_reach_every_worker(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "team.toml").write_text(TEAM_RULE, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nextend-rules = ["rules/team.toml"]\n', encoding="utf-8")
    for i in range(12):  # more files than the pool's threshold: checked by worker processes
        (tmp_path / f"m{i:02}.py").write_text("import torch\n\ndef f(a):\n    return torch.cat([a, a])\n", encoding="utf-8")
    serial, pooled = msport("check", "-j", "1", str(tmp_path)), msport("check", "-j", "2", str(tmp_path))
    assert serial.returncode == pooled.returncode == 1, serial.stderr
    assert serial.stdout == pooled.stdout
    assert serial.stdout.count(": MS101 torch.cat ") == 12 and serial.stdout.count("team_ops.concat") == 12


def test_extend_rules_flag_and_its_problems(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import torch\ny = torch.cat([a, b])\n", encoding="utf-8")
    (tmp_path / "team.toml").write_text(TEAM_RULE, encoding="utf-8")
    good = msport("check", "m.py", "--extend-rules", "team.toml", cwd=tmp_path)
    assert good.returncode == 1 and "MS101" in good.stdout and "team_ops.concat" in good.stdout, good.stderr

    (tmp_path / "bad.toml").write_text('[[api]]\ntorch = "torch.cat"\nstatus = "sorta"\n', encoding="utf-8")
    bad = msport("check", "m.py", "--extend-rules", "bad.toml", "--extend-rules", "missing.toml", cwd=tmp_path)
    assert bad.returncode == 2
    assert "bad.toml, entry #1 (torch.cat), field 'status': expected one of equivalent, divergent, missing, got 'sorta'" in bad.stderr
    assert "missing.toml: cannot read" in bad.stderr
    assert "MS103" in bad.stdout  # the bundled rule still applies
