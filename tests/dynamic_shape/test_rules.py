"""rules/dynamic_shape.toml: loads cleanly, names real APIs, and bad entries are reported precisely."""

import ast
import json
import os
from pathlib import Path

from msport.knowledge.loader import rules_dir
from msport.knowledge.triggers import load_triggers

SNAPSHOTS = rules_dir() / "snapshots"
CORPUS = Path(os.environ.get("MSPORT_CORPUS") or Path(__file__).resolve().parents[2] / ".cache" / "corpus")


def snapshot_names(prefix):
    names = set()
    for path in sorted(SNAPSHOTS.glob(f"{prefix}-*.json")):
        names |= set(json.loads(path.read_text())["apis"])
    return names


def test_trigger_rules_load_without_problems(knowledge):
    assert knowledge.problems == []
    rules = knowledge.triggers
    assert len(rules.triggers) >= 20
    codes = {t.code for t in rules.triggers} | {rule.code for _, rule in rules.syntax}
    assert codes == {f"MS2{n:02d}" for n in range(1, 12)}
    for code in codes:
        info = knowledge.code(code)
        assert info.category == "dynamic-shape" and info.summary and info.why and info.example and info.fix


def torchvision_ops():
    """The public names of torchvision.ops, read from the real torchvision source (the wheel
    tools/test.sh unpacks for the coverage test): what `from ... import` puts in its __init__."""
    init = CORPUS / "torchvision" / "torchvision" / "ops" / "__init__.py"
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return {f"torchvision.ops.{alias.asname or alias.name}" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}


def test_every_api_named_by_a_trigger_exists_in_the_real_packages(knowledge):
    torch_names = snapshot_names("torch")
    mindspore_names = snapshot_names("mindspore")
    vision_names = torchvision_ops()
    assert torch_names and mindspore_names and "torchvision.ops.nms" in vision_names
    unknown = []
    for name in knowledge.triggers.api_names():
        known = torch_names if name.startswith("torch.") else vision_names if name.startswith("torchvision.") else mindspore_names
        if name not in known and not _private_torch_function(name):
            unknown.append(name)
    assert unknown == []


def _private_torch_function(name):
    """A private torch function (torch._shape_as_tensor, which models call to keep a shape traceable):
    the snapshots list public names only, so the real package is asked."""
    import torch

    module, _, attribute = name.rpartition(".")
    return module == "torch" and attribute.startswith("_") and callable(getattr(torch, attribute, None))


def test_both_frameworks_and_primitive_classes_are_covered(knowledge):
    rules = knowledge.triggers
    assert rules.for_api("torch.nonzero").id == rules.for_api("mindspore.ops.nonzero").id == "nonzero"
    assert rules.for_api("torch.Tensor.masked_select").id == "masked-select"
    assert rules.for_primitive("mindspore.ops.operations.Unique").id == "unique-with-index"  # `from mindspore.ops import operations as P`
    assert rules.for_api("mindspore.ops.functional.masked_select").id == "masked-select"
    assert rules.for_primitive("mindspore.ops.TopK").test == "value"
    assert rules.for_api("torch.nonzero_static") is None  # a fixed-size variant: static


def test_malformed_trigger_entries_name_file_entry_and_field(tmp_path, knowledge):
    path = tmp_path / "dynamic_shape.toml"
    good = (rules_dir() / "dynamic_shape.toml").read_text()
    path.write_text(
        good
        + '\n[[trigger]]\nid = "broken"\ncode = "MS299"\ntest = "sometimes"\nconstruct = "X"\nwhy = "w"\nworkaround = "w"\napis = ["numpy.unique"]\n'
        + '\n[[trigger]]\nid = "no-arg"\ncode = "MS204"\ntest = "value"\nconstruct = "X"\nwhy = "w"\nworkaround = "w"\nrole = "k"\n'
        + 'apis = ["mindspore.ops.operations.TopKish"]\npositions = [-1]\nspeed = 3\n'
        + '\n[[trigger]]\nid = "unique"\ncode = "MS201"\ntest = "always"\nconstruct = "X"\nwhy = "w"\nworkaround = "w"\napis = ["torch.unique"]\n'
    )
    problems = []
    rules = load_triggers(path, problems, knowledge.codes)
    text = [str(p) for p in problems]
    assert any("dynamic_shape.toml, trigger #" in t and "(broken), field 'code': MS299 is not defined" in t for t in text)
    assert any("(broken), field 'test': expected one of always, single-argument, value, shape" in t for t in text)
    assert any("(broken), field 'apis': expected a qualified torch, torchvision or mindspore name, got 'numpy.unique'" in t for t in text)
    assert any("(no-arg), field 'positions': expected a list of argument positions" in t for t in text)
    assert any("(no-arg), field 'apis'" in t and "alias prefix mindspore.ops.operations" in t for t in text)
    assert any("(no-arg), field 'speed': unknown field" in t for t in text)
    assert any("(unique), field 'id': duplicate id 'unique'" in t for t in text)
    assert any("(unique), field 'apis': torch.unique is also listed in" in t for t in text)
    # The good entries still load; the bad ones are skipped.
    assert rules.for_api("torch.nonzero") is not None
    assert {t.id for t in rules.triggers}.isdisjoint({"broken", "no-arg"})
    assert sum(1 for t in rules.triggers if t.id == "unique") == 1


def test_missing_sections_are_reported(tmp_path):
    path = tmp_path / "dynamic_shape.toml"
    path.write_text('[consequence]\nerror = "e"\n')
    problems = []
    load_triggers(path, problems, ())
    text = [str(p) for p in problems]
    assert "dynamic_shape.toml, [consequence], field 'warning': is required" in text
    assert "dynamic_shape.toml, [syntax.mask_index]: is required" in text


def test_a_rules_directory_without_the_file_has_no_triggers(tmp_path):
    problems = []
    assert load_triggers(tmp_path / "dynamic_shape.toml", problems, ()).triggers == ()
    assert problems == []
