"""The rule loader: bundled rules load cleanly; bad rule files are reported precisely."""

from msport.knowledge.index import load_knowledge
from msport.knowledge.loader import load_api_rules, rules_dir


def test_bundled_rules_load_without_problems(knowledge):
    assert knowledge.problems == []
    assert {"MS001", "MS101", "MS102", "MS103"} <= set(knowledge.codes)
    assert knowledge.lookup("torch.nn.parameter.Parameter").torch == "torch.nn.Parameter"  # aliases


def test_malformed_entries_name_file_entry_and_field(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(
        '[[api]]\ntorch = "torch.a"\nstatus = "sort-of"\nmindspore = "mindspore.ops.a"\n'
        '[[api]]\ntorch = "torch.b"\nstatus = "divergent"\nmindspore = "mindspore.ops.b"\n'
        '[[api]]\ntorch = "torch.c"\nstatus = "equivalent"\nmindspore = "numpy.c"\nversions = "2.9-2.3"\n'
        '[[api]]\ntorch = "torch.d"\nstatus = "equivalent"\nmindspore = "mindspore.ops.d"\nbackend = ["cpu"]\n'
    )
    problems = []
    rules = load_api_rules(path, problems)
    assert rules == []
    text = [str(p) for p in problems]
    assert "bad.toml, entry #1 (torch.a), field 'status': expected one of equivalent, divergent, missing, got 'sort-of'" in text
    assert "bad.toml, entry #2 (torch.b), field 'note': is required when status is divergent: say what differs or why it is missing" in text
    assert any("entry #3 (torch.c), field 'versions'" in t and "empty" in t for t in text)
    assert any("entry #4 (torch.d), field 'backend': unknown field" in t for t in text)


def test_a_broken_extra_rules_file_does_not_stop_loading(tmp_path):
    broken = tmp_path / "extra.toml"
    broken.write_text("[[api]\n")
    knowledge = load_knowledge(extra_files=[broken])
    assert knowledge.lookup("torch.cat") is not None
    (problem,) = knowledge.problems
    assert str(broken) in str(problem) and "invalid TOML" in str(problem)


def test_version_and_backend_select_the_target(tmp_path):
    import shutil

    (tmp_path / "api").mkdir()
    shutil.copytree(rules_dir() / "codes", tmp_path / "codes")
    (tmp_path / "tensors.toml").write_text((rules_dir() / "tensors.toml").read_text())
    (tmp_path / "api" / "x.toml").write_text(
        '[[api]]\ntorch = "torch.gelu_like"\nstatus = "equivalent"\n'
        'targets = [\n'
        '  { mindspore = "mindspore.mint.gelu", versions = "2.5-", backends = ["ascend"] },\n'
        '  { mindspore = "mindspore.ops.gelu", versions = "2.3-" },\n'
        ']\n'
    )
    kb = load_knowledge(tmp_path)
    assert kb.problems == []
    assert kb.verdict("torch.gelu_like", (2, 10), "ascend").mindspore == "mindspore.mint.gelu"
    assert kb.verdict("torch.gelu_like", (2, 10), "cpu").mindspore == "mindspore.ops.gelu"
    assert kb.verdict("torch.gelu_like", (2, 4), "ascend").mindspore == "mindspore.ops.gelu"
    gone = kb.verdict("torch.gelu_like", (2, 2), "cpu")
    assert gone.status == "missing" and "mindspore.ops.gelu in MindSpore 2.3-2.10" in gone.available_elsewhere


def test_the_compiled_cache_gives_back_exactly_the_parsed_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("MSPORT_CACHE_DIR", str(tmp_path))
    parsed = load_knowledge()
    assert len(list(tmp_path.glob("rules-*.json"))) == 1  # written on the first load
    cached = load_knowledge()
    assert cached.apis == parsed.apis and cached.problems == []
    # With the cache turned off, the same rules again.
    monkeypatch.setenv("MSPORT_NO_CACHE", "1")
    assert load_knowledge().apis == parsed.apis
