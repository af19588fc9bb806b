"""rules/second_order.toml: loads without a problem, agrees with the API rules and snapshots,
and every message template is filled by what the check passes it."""

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_loads_without_problems_and_is_not_empty():
    from msport.knowledge.second_order import load_second_order

    rules = load_second_order()
    assert rules.problems == ()
    assert len([s for s in rules.measured if not s.unprobed]) >= 300
    assert rules.support("mindspore.ops.elu", (2, 10)).grad_primitive == "EluGrad"
    # Another version falls back to the measured one.
    assert rules.support("mindspore.ops.elu", (2, 7)).version == (2, 10)


def test_measured_names_are_targets_of_api_rules_and_exist_in_the_package(knowledge):
    from msport.knowledge.second_order import load_second_order

    snapshot = json.loads((ROOT / "rules" / "snapshots" / "mindspore-2.10.0.json").read_text())["apis"]
    targets = {t.mindspore for r in set(knowledge.apis.values()) for t in r.targets if t.mindspore}
    for support in load_second_order().measured:
        assert support.mindspore in targets, support.mindspore
        assert support.mindspore in snapshot, support.mindspore
        for torch_name in support.torch:
            assert knowledge.lookup(torch_name) is not None, torch_name


def test_replacements_name_primitives_the_table_reports():
    from msport.knowledge.second_order import load_second_order

    rules = load_second_order()
    primitives = {s.grad_primitive for s in rules.measured if s.grad_primitive}
    for replacement in rules.replacements:
        assert set(replacement.grad_primitives) & primitives, replacement.grad_primitives


def test_message_placeholders_are_the_ones_the_check_fills():
    from msport.knowledge.second_order import load_second_order

    rules = load_second_order()
    filled = {
        "no_bprop": {"api", "target", "site", "version", "measured", "how", "modes", "primitive"},
        "crash": {"api", "target", "site", "version", "measured", "how", "modes", "primitive", "error"},
        "silent": {"api", "target", "site", "version", "measured", "how", "modes", "primitive", "wrongness"},
        "site": {"site", "followed", "checked", "total", "version", "problems", "unfollowed"},
        "site_unfollowed": {"names"},
        "pynative_nested": {"site", "version", "wrongness", "ops", "how"},
        "conditional": {"condition"},
        "other_version": {"measured_version", "version"},
    }
    for key, names in filled.items():
        used = set(re.findall(r"(?<!\{)\{(\w+)\}(?!\})", rules.message(key)))
        assert used <= names, (key, used - names)
