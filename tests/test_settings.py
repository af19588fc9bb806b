"""Settings layering, validation and suppression comments."""

import pytest

from msport.analysis.findings import Severity
from msport.analysis.settings import Settings
from msport.analysis.suppression import FileSuppressions, is_suppressed, line_suppressions
from msport.config import settings_for


def test_defaults():
    s = Settings()
    assert (s.target_version, s.backend, s.mode) == ("2.10", "ascend", "graph")


def test_precedence_pyproject_then_editor_then_flags(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\ntarget-version = "2.5"\nbackend = "gpu"\nmode = "pynative"\n')
    settings, origin = settings_for(tmp_path / "m.py")
    assert origin == tmp_path / "pyproject.toml"
    assert (settings.target_version, settings.backend, settings.mode) == ("2.5", "gpu", "pynative")
    editor = settings.merged({"targetVersion": "2.7", "backend": "cpu"}, "editor")
    assert (editor.target_version, editor.backend, editor.mode) == ("2.7", "cpu", "pynative")
    flags = editor.merged({"target-version": "2.10.0"}, "command line")
    assert flags.target_version == "2.10"


def test_nearest_pyproject_wins(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nbackend = "gpu"\n')
    sub = tmp_path / "pkg"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[tool.msport]\nbackend = "cpu"\n')
    assert settings_for(sub / "m.py")[0].backend == "cpu"
    assert settings_for(tmp_path / "m.py")[0].backend == "gpu"


@pytest.mark.parametrize(
    "values, key, expected",
    [
        ({"target-version": "1.8"}, "target-version", "expected a MindSpore version from 2.2 to 2.10"),
        ({"backend": 3}, "backend", "expected one of ascend, gpu, cpu"),
        ({"select": "MS101,BOGUS"}, "select", "unknown rule code(s) BOGUS"),
        ({"severity": {"MS101": "fatal"}}, "severity", "must be one of error, warning, info, hint"),
        ({"per-file-ignores": ["x"]}, "per-file-ignores", "expected a table of glob"),
        ({"colour": "red"}, "colour", "unknown setting"),
    ],
)
def test_bad_values_keep_the_default_and_name_the_key(values, key, expected):
    s = Settings().merged(values, "pyproject.toml", known_codes=["MS101", "MS102"])
    (problem,) = s.problems
    assert problem.key == key and expected in problem.message and problem.origin == "pyproject.toml"
    assert s.target_version == "2.10" and s.backend == "ascend" and s.select == ()


def test_select_ignore_severity_and_per_file():
    s = Settings().merged(
        {"select": ["MS1"], "ignore": ["MS103"], "severity": {"MS1": "error", "MS102": "info"}, "per-file-ignores": {"tests/*": ["MS101"]}},
        "test",
    )
    assert s.is_enabled("MS102") and not s.is_enabled("MS103") and not s.is_enabled("MS001")
    assert not s.is_enabled("MS101", "tests/test_x.py") and s.is_enabled("MS101", "src/x.py")
    assert s.severity_for("MS102", Severity.WARNING) == Severity.INFO  # the longest prefix wins
    assert s.severity_for("MS101", Severity.WARNING) == Severity.ERROR


def test_exclude_globs_and_directories():
    s = Settings().merged({"exclude": ["third_party", "*_pb2.py"]}, "test")
    assert s.is_excluded("src/third_party/x.py") and s.is_excluded("a/b/model_pb2.py")
    assert not s.is_excluded("src/model.py")


@pytest.mark.parametrize(
    "line, code, suppressed",
    [
        ("y = torch.cat(a)  # noqa", "MS103", True),
        ("y = torch.cat(a)  # noqa: MS103", "MS103", True),
        ("y = torch.cat(a)  # noqa: E501, MS1", "MS103", True),
        ("y = torch.cat(a)  # noqa: MS101", "MS103", False),
        ("y = torch.cat(a)  # noqa:E501", "MS103", False),
        ("y = torch.cat(a)  # msport: ignore[MS103]", "MS103", True),
        ("y = torch.cat(a)  # msport: ignore", "MS102", True),
        ("y = torch.cat(a)  # msport: ignore[MS102]", "MS103", False),
        ("y = torch.cat(a)", "MS103", False),
    ],
)
def test_line_suppression(line, code, suppressed):
    assert is_suppressed(code, line_suppressions(line)) is suppressed


def test_suppression_in_analysis(analyze):
    plain = "import torch\na = torch.cat(x)\nb = torch.cat(x)\nc = torch.flatten(x)\n"
    cat, _, flatten = (f.code for f in analyze(plain))
    text = f"import torch\na = torch.cat(x)  # noqa: {cat}\nb = torch.cat(x)\nc = torch.flatten(x)  # msport: ignore[{flatten}]\n"
    assert [(f.code, f.span.start_line) for f in analyze(text)] == [(cat, 2)]
    whole = f"# msport: ignore-file[{cat}]\n" + text
    assert [f.code for f in analyze(whole)] == []
    assert FileSuppressions.scan("# msport: ignore-file").codes == frozenset({"*"})


def test_severity_setting_changes_findings(analyze):
    text = "import torch\nb = torch.cat(x)\n"
    (finding,) = analyze(text, severity={"MS103": "warning"})
    assert finding.severity == Severity.WARNING


def test_oversized_file_gets_one_informational_finding(analyze):
    text = "x = 1\n" * 50
    (finding,) = analyze(text, max_lines=10)
    assert finding.code == "MS002" and finding.severity == Severity.INFO and "max-lines" in finding.message


def test_origins_follow_the_last_layer_that_set_a_value():
    s = Settings().merged({"backend": "cpu", "ignore": ["MS103"]}, "/p/pyproject.toml")
    s = s.merged({"backend": "gpu", "mode": "warp"}, "editor settings")
    where = {key: origin for key, _, origin in s.described()}
    assert where["backend"] == "editor settings" and where["ignore"] == "/p/pyproject.toml"
    assert where["mode"] == "default"  # the bad value was not used, so neither was its origin
    assert s == Settings().merged({"backend": "gpu", "ignore": ["MS103"]}, "elsewhere")  # origins are not part of equality
