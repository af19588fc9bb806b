"""Every rule file is read through a JSON copy keyed by its text (knowledge/cache.py, at each
start of the server): the copy must give back exactly what tomllib parses, follow an edited
file at once, and never stand in the way when it is damaged or turned off."""

import tomllib

from msport.knowledge.loader import read_toml, rules_dir

RULE = '[[rule]]\nname = "first"\nratio = 1.0\nlimits = [1, 2]\n'


def test_every_bundled_rule_file_reads_back_as_tomllib_parses_it(tmp_path, monkeypatch):
    monkeypatch.setenv("MSPORT_CACHE_DIR", str(tmp_path))
    files = sorted(rules_dir().rglob("*.toml"))
    assert len(files) > 20
    for path in files:
        expected = tomllib.loads(path.read_text(encoding="utf-8"))
        assert read_toml(path) == expected, path  # parsed, and the copy written
        assert read_toml(path) == expected, path  # from the copy
    assert len(list(tmp_path.glob("toml-*.json"))) == len(files)  # rules/ and rules/messages/ share file names


def test_an_edited_rule_file_is_read_anew_and_a_damaged_copy_is_parsed_again(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("MSPORT_CACHE_DIR", str(cache))
    path = tmp_path / "mine.toml"
    path.write_text(RULE, encoding="utf-8")
    assert read_toml(path)["rule"][0]["name"] == "first"
    (copy,) = cache.glob("toml-*mine-*.json")
    path.write_text(RULE.replace("first", "second"), encoding="utf-8")
    assert read_toml(path)["rule"][0]["name"] == "second"
    assert not copy.exists()  # the stale copy is replaced, not kept beside the new one
    (copy,) = cache.glob("toml-*mine-*.json")
    copy.write_text("{not json", encoding="utf-8")
    assert read_toml(path) == tomllib.loads(path.read_text(encoding="utf-8"))
    monkeypatch.setenv("MSPORT_NO_CACHE", "1")
    path.write_text(RULE.replace("first", "third"), encoding="utf-8")
    assert read_toml(path)["rule"][0]["name"] == "third"
