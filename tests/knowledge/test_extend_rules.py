"""The user's own rule files (setting extend-rules): laid over msport's rules, every problem
named by file, entry and field, the bundled rules kept when a file cannot be used."""

from pathlib import Path

from msport.analysis.engine import Analyzers
from msport.analysis.settings import Settings
from msport.config import settings_for

CODE = "import torch\n\ndef f(a, b):\n    return torch.cat([a, b], 1)\n"
FORK_RULE = '''
[[api]]
torch = "torch.cat"
status = "missing"
note = "our MindSpore fork has no cat kernel; call team_ops.concat instead"
'''


def cat_findings(settings: Settings):
    result = Analyzers().for_settings(settings).analyze(CODE, settings, "model.py")
    return [f for f in result.findings if f.torch_api == "torch.cat"]


def test_a_user_rule_replaces_the_bundled_one(tmp_path: Path):
    rules = tmp_path / "team-rules.toml"
    rules.write_text(FORK_RULE, encoding="utf-8")
    bundled = cat_findings(Settings())
    assert all("team_ops.concat" not in f.message for f in bundled)
    extended = cat_findings(Settings(extend_rules=(str(rules),)))
    assert len(extended) == 1 and "team_ops.concat" in extended[0].message
    assert extended[0].code != (bundled[0].code if bundled else None)


def test_relative_paths_are_taken_from_the_pyproject_folder(tmp_path: Path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "team.toml").write_text(FORK_RULE, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nextend-rules = ["rules/team.toml"]\n', encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    settings, _ = settings_for(tmp_path / "pkg" / "model.py")
    assert settings.extend_rules == (str(tmp_path / "rules" / "team.toml"),)
    assert "team_ops.concat" in cat_findings(settings)[0].message


def test_a_bad_setting_value_names_the_key(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.msport]\nextend-rules = 3\n", encoding="utf-8")
    settings, _ = settings_for(tmp_path / "model.py")
    assert settings.extend_rules == ()
    (problem,) = settings.problems
    assert problem.key == "extend-rules" and "list of paths to TOML rule files" in problem.message
    assert problem.origin == str(tmp_path / "pyproject.toml")


def test_malformed_rule_files_are_reported_and_the_bundled_rules_stay(tmp_path: Path):
    broken = tmp_path / "broken.toml"
    broken.write_text("[[api]\ntorch = ", encoding="utf-8")
    wrong = tmp_path / "wrong.toml"
    wrong.write_text('[[api]]\ntorch = "torch.cat"\nstatus = "sorta"\n\n[[api]]\ntorch = "torch.stack"\nstaus = "missing"\n', encoding="utf-8")
    empty = tmp_path / "empty.toml"
    empty.write_text('[[apis]]\ntorch = "torch.cat"\n', encoding="utf-8")
    absent = tmp_path / "absent.toml"
    settings = Settings(extend_rules=tuple(str(p) for p in (broken, wrong, empty, absent)))
    analyzer = Analyzers().for_settings(settings)
    problems = [str(p) for p in analyzer.knowledge.problems]
    assert any(str(broken) in p and "invalid TOML" in p for p in problems), problems
    assert any(str(wrong) in p and "entry #1 (torch.cat)" in p and "'status'" in p and "equivalent" in p for p in problems), problems
    assert any(str(wrong) in p and "entry #2 (torch.stack)" in p and "staus" in p for p in problems), problems
    assert any(str(empty) in p and "expected [[api]] tables" in p and "apis" in p for p in problems), problems
    assert any(str(absent) in p and "cannot read" in p for p in problems), problems
    # Nothing usable in them: torch.cat keeps msport's own rule.
    assert cat_findings(settings) == cat_findings(Settings())


def test_an_edited_rule_file_is_read_again(tmp_path: Path):
    rules = tmp_path / "team.toml"
    rules.write_text(FORK_RULE, encoding="utf-8")
    analyzers = Analyzers()
    settings = Settings(extend_rules=(str(rules),))
    first = analyzers.for_settings(settings)
    assert analyzers.for_settings(settings) is first
    rules.write_text(FORK_RULE.replace("team_ops.concat", "team_ops.join") + "\n", encoding="utf-8")
    second = analyzers.for_settings(settings)
    assert second is not first
    found = [f for f in second.analyze(CODE, settings, "m.py").findings if f.torch_api == "torch.cat"]
    assert "team_ops.join" in found[0].message
