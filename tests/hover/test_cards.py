"""The Markdown cards (hover and `msport explain`): every rule gets one, and each says what
the rule data and the snapshots of the real packages say, for the configured version and
backend."""

import shutil
import subprocess
import sys

from msport.analysis.findings import Category, Finding, Related, Severity, Span
from msport.knowledge import default_knowledge, load_knowledge
from msport.knowledge.api_history import default_history
from msport.knowledge.cards import HOVER_LIMIT, RULE_PAGE, SEPARATOR, api_card, code_card, finding_card, join_cards
from msport.knowledge.loader import rules_dir

CODES = {"missing": "MS101", "divergent": "MS102", "equivalent": "MS103"}
VERSION, BACKEND = (2, 10), "ascend"


def test_every_rule_has_a_card_with_its_verdict_and_links(knowledge):
    assert len(knowledge.apis) > 10
    for name, rule in knowledge.apis.items():
        card = api_card(knowledge, name, VERSION, BACKEND)
        verdict = knowledge.verdict(name, VERSION, BACKEND)
        assert card is not None, name
        title = card.split("\n", 1)[0]
        assert f"**`{name}`**" in title
        if verdict.mindspore:
            assert f"`{verdict.mindspore}`" in title
        else:
            assert "no MindSpore counterpart" in title
        assert f"**{verdict.status.capitalize()}** in MindSpore 2.10 on Ascend" in card
        assert RULE_PAGE.format(code=CODES[verdict.status]) in card
        if verdict.diff:
            assert f"[Official differences]({verdict.diff})" in card
        if verdict.consequence:
            assert "**Measured:**" in card
        for target in rule.targets:
            if target.mindspore:
                assert f"`{target.mindspore}`" in card  # the versions/backends table lists them all


def test_every_mindspore_target_lists_the_torch_apis_mapping_to_it(knowledge):
    targets = {t.mindspore for rule in knowledge.apis.values() for t in rule.targets if t.mindspore}
    for target in sorted(targets):
        card = api_card(knowledge, target, VERSION, BACKEND)
        assert card is not None and card.startswith(f"**`{target}`** (MindSpore API"), target
        for rule in knowledge.torch_rules_for(target):
            assert f"`{rule.torch}`" in card


def test_cards_follow_the_version_and_backend(knowledge):
    """A target that starts after 2.2 is not offered for versions before it."""
    changed = 0
    for name, rule in knowledge.apis.items():
        late = [t for t in rule.targets if t.mindspore and t.first > (2, 2)]
        if not late:
            continue
        before = (late[0].first[0], late[0].first[1] - 1)
        old = knowledge.verdict(name, before, BACKEND)
        card = api_card(knowledge, name, before, BACKEND)
        assert f"MindSpore {before[0]}.{before[1]} on Ascend" in card
        if old.mindspore != late[0].mindspore:
            assert f"-> **`{late[0].mindspore}`**" not in card.split("\n", 1)[0]
            changed += 1
    assert changed > 0


def test_parameter_changes_between_releases_come_from_the_snapshots(knowledge):
    history = default_history()
    changes = history.changes("mindspore.ops.transpose")
    assert [(c.version, c.what) for c in changes] == [((2, 8), "parameters")]
    card = api_card(knowledge, "mindspore.ops.transpose", VERSION, BACKEND, history)
    assert "parameters changed in 2.8: (input, input_perm) -> (input, dims)" in card
    assert "**Signature:** MindSpore 2.10 `transpose(input, dims)`" in card
    # The 2.7 snapshot shows the old parameter names.
    assert "transpose(input, input_perm)" in api_card(knowledge, "mindspore.ops.transpose", (2, 7), BACKEND, history)


def test_names_that_are_not_apis_get_no_card(knowledge):
    for name in ("os.path.join", "numpy.zeros", "torch", "torch.nn", "torch.nn.functional", "mindspore.ops", "torch.not_an_api"):
        assert api_card(knowledge, name, VERSION, BACKEND) is None, name


def test_misspelt_mindspore_name_is_called_out(knowledge):
    card = api_card(knowledge, "mindspore.ops.flaten", VERSION, BACKEND)
    assert "is not in the public API of MindSpore 2.10" in card


def test_alias_is_named_in_the_title(knowledge):
    card = api_card(knowledge, "torch.masked_select", VERSION, BACKEND, spelled="msel")
    assert card.split("\n", 1)[0].endswith("(written `msel` here)")
    plain = api_card(knowledge, "torch.masked_select", VERSION, BACKEND, spelled="masked_select")
    assert "written" not in plain.split("\n", 1)[0]


def test_tables_line_up_for_the_terminal(knowledge):
    card = api_card(knowledge, "torch.cat", VERSION, BACKEND)
    tables, rows = [], []
    for line in card.split("\n") + [""]:
        if line.startswith("| "):
            rows.append(line)
        elif rows:
            tables.append(rows)
            rows = []
    assert tables and all(len(t) >= 3 for t in tables)
    assert all(len({len(r) for r in t}) == 1 for t in tables), tables  # each table's rows are as wide


def test_finding_card_takes_why_and_fix_from_the_rule_codes(tmp_path):
    """A dynamic-shape code defined in a rules directory (the real loader, a copied rules tree
    with one extra code), and a finding of it: the card joins message, related place, why, fix."""
    rules = tmp_path / "rules"
    shutil.copytree(rules_dir(), rules)
    (rules / "codes" / "zz_test.toml").write_text(
        '[[code]]\ncode = "MS299"\nname = "test-dynamic"\ncategory = "dynamic-shape"\nseverity = "warning"\n'
        'summary = "A test code."\nsummary_zh-CN = "测试代码。"\nwhy = "The output length follows the data"\n'
        'why_zh-CN = "输出长度随数据变化"\nfix = "Use a fixed-size mask"\nfix_zh-CN = "使用固定大小的掩码"\n'
    )
    knowledge = load_knowledge(rules)
    assert not knowledge.problems
    finding = Finding(
        code="MS299", category=Category.DYNAMIC_SHAPE, severity=Severity.WARNING, span=Span(3, 4, 3, 9),
        message="`x[m]` keeps one element per True in m",
        related=(Related(Span(1, 0, 1, 5), "m is computed from x > 0 here"),),
    )
    card = finding_card(knowledge, finding)
    assert card.startswith("**MS299 test-dynamic** (warning)")
    assert "`x[m]` keeps one element per True in m." in card
    assert "- line 2: m is computed from x > 0 here" in card
    assert "**Why it matters on MindSpore:** The output length follows the data." in card
    assert "**Static alternative:** Use a fixed-size mask." in card
    assert RULE_PAGE.format(code="MS299") in card
    chinese = finding_card(knowledge, finding, language="zh-CN")
    assert chinese.startswith("**MS299 test-dynamic**（警告）")
    assert "- 第 2 行：m is computed from x > 0 here" in chinese
    assert "**对 MindSpore 的影响：** 输出长度随数据变化。" in chinese
    assert "**静态替代写法：** 使用固定大小的掩码。" in chinese
    assert join_cards([card, None, "x"]) == card + SEPARATOR + "x"
    assert join_cards([None]) is None


def test_code_card_for_every_code(knowledge):
    for code, info in knowledge.codes.items():
        card = code_card(info)
        assert card.startswith(f"**{code} {info.name}**") and RULE_PAGE.format(code=code) in card


def run_explain(*args):
    return subprocess.run([sys.executable, "-m", "msport", "explain", *args], capture_output=True, text=True, timeout=120)


def test_explain_prints_the_hover_card():
    knowledge = default_knowledge()
    for name in ("torch.nn.GELU", "torch.Tensor.size", "mindspore.ops.cat"):
        run = run_explain(name, "--backend", "cpu", "--target-version", "2.8")
        assert run.returncode == 0, run.stderr
        assert run.stdout.rstrip("\n") == api_card(knowledge, name, (2, 8), "cpu")


def test_explain_short_names_codes_and_unknowns():
    knowledge = default_knowledge()
    unique = next(n for n in sorted(knowledge.apis) if sum(1 for m in knowledge.apis if m.endswith("." + n.rsplit(".", 1)[1])) == 1)
    short = run_explain(unique.rsplit(".", 1)[1])
    assert short.returncode == 0 and f"**`{unique}`**" in short.stdout
    code = run_explain("ms101")
    assert code.returncode == 0 and code.stdout.startswith("**MS101 ")
    tails = {}
    for name in sorted(knowledge.apis):
        tails.setdefault(name.rsplit(".", 1)[1], []).append(name)
    tail, names = next((t, n) for t, n in sorted(tails.items()) if len(n) > 1)
    run = run_explain(tail)
    assert run.returncode == 1 and "ambiguous" in run.stderr and names[0] in run.stderr
    unknown = run_explain("torch.not_an_api")
    assert unknown.returncode == 1 and "torch.not_an_api" in unknown.stderr and unknown.stdout == ""


# -- cards that read well (issue 18) -----------------------------------------------------------

def test_the_action_comes_first(knowledge):
    """The paragraph after the title says the verdict here and what to do."""
    for name in knowledge.apis:
        verdict = knowledge.verdict(name, VERSION, BACKEND)
        action = api_card(knowledge, name, VERSION, BACKEND).split("\n\n")[1]
        assert action.startswith(f"**{verdict.status.capitalize()}** in MindSpore 2.10 on Ascend: "), (name, action)
        if verdict.status in ("equivalent", "divergent"):
            assert f": use `{verdict.mindspore}`" in action, (name, action)


def test_no_card_says_a_paragraph_twice(knowledge):
    for name in knowledge.apis:
        paragraphs = api_card(knowledge, name, VERSION, BACKEND).split("\n\n")
        assert len(paragraphs) == len(set(paragraphs)), name


def test_overloaded_signatures_are_all_shown_as_the_docstrings_write_them(knowledge):
    """mindspore 2.10's Tensor.max has three overloads (its docstring's first line is only the
    first, `max()`); torch's first line carries a return type in parentheses, not a parameter."""
    card = api_card(knowledge, "torch.Tensor.max", VERSION, BACKEND)
    assert ("**Signatures:** PyTorch `max(dim=None, keepdim=False)`; MindSpore 2.10 `max()` or `max(dim, keepdim=False)` or "
            "`max(axis=None, keepdims=False, *, initial=None, where=True, return_indices=False)`") in card
    # A release msport read no docstrings of: the overloads are those of the release it read, said so.
    assert "MindSpore 2.10 `max()` or `max(dim, keepdim=False)`" in api_card(knowledge, "torch.Tensor.max", (2, 8), BACKEND)


def test_missing_api_cards_are_about_their_api_not_a_shared_policy(knowledge):
    history = default_history()
    inferred = [n for n, kind in knowledge.torch_apis.items()
                if knowledge.is_torch_api(n) and n not in knowledge.apis and knowledge.rule_for(n) is not None
                and knowledge.rule_for(n).basis == "inferred"][:200]
    assert len(inferred) >= 50
    actions = set()
    for name in inferred:
        card = api_card(knowledge, name, VERSION, BACKEND, history)
        assert "Squeeze" not in card, name
        action = card.split("\n\n")[1]
        assert name.rsplit(".", 1)[-1] in action and "Msport" not in action, action  # said of this API
        actions.add(action)
    assert len(actions) == len(inferred)  # no two say the same


def test_hover_cards_are_cut_to_fit_and_say_where_the_rest_is(knowledge):
    cut = 0
    for name in knowledge.apis:
        whole = api_card(knowledge, name, VERSION, BACKEND)
        card = api_card(knowledge, name, VERSION, BACKEND, limit=HOVER_LIMIT)
        assert len(card) <= HOVER_LIMIT, name
        if card == whole:
            continue
        cut += 1
        *_, more, links = card.split("\n\n")
        assert more == f"_Cut to fit: `msport explain {name}` prints the whole card; the rule page has the rest._"
        assert links == whole.split("\n\n")[-1]
        assert card.split("\n\n")[:2] == whole.split("\n\n")[:2]  # title and action are never cut
    assert cut >= 1
