"""The per-chunk findings cache stays correct with cross-chunk dynamic-shape facts.

A chunk's findings depend on other chunks (a helper's return value, a caller's arguments,
whether any caller is graph code) only through ModuleContext.key; an analyzer that has seen
earlier versions of a document must give exactly what a fresh one gives.
"""

from hypothesis import given, settings as hsettings, strategies as st

from msport.analysis import Analyzer, Settings

IMPORTS = "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\n"
COUNT = [
    "def count(m):\n    return int(m.sum())\n",
    "def count(m):\n    return m.shape[0]\n",
    "def count(m):\n    return 3\n",
    "",
]
FIRST = [
    "def first(x, k):\n    return x[:k]\n",
    "def first(x, k):\n    return torch.nonzero(x)[:2]\n",
    "",
]
MODEL = [
    "class Net(nn.Module):\n    def forward(self, x, mask):\n        n = count(mask)\n        return first(x, n), x[:n]\n",
    "class Net(nn.Module):\n    def forward(self, x, mask):\n        return x * 2\n",
    "class Net:\n    def forward(self, x, mask):\n        n = count(mask)\n        return x[:n]\n",
    "",
]
PIPELINE = ["loader = DataLoader([], collate_fn=first)\n", ""]
SETTINGS = Settings().merged({"backend": "ascend", "jit-level": "O2"}, "test")


def document(parts, gaps):
    chunks = [IMPORTS, COUNT[parts[0]], FIRST[parts[1]], MODEL[parts[2]], PIPELINE[parts[3]]]
    return "".join(chunk + "\n" * gap for chunk, gap in zip(chunks, gaps) if chunk)


def observable(result):
    return [
        (f.code, f.span, f.severity, f.message, tuple(r.span for r in f.related), tuple(r.message for r in f.related))
        for f in result.findings
    ]


def test_editing_a_helper_changes_the_findings_of_its_caller():
    analyzer = Analyzer()
    static = document((1, 0, 0, 1), (1, 1, 1, 1, 1))
    dynamic = document((0, 0, 0, 1), (1, 1, 1, 1, 1))
    assert not any(f.code == "MS203" and f.span.start_line > 8 for f in analyzer.analyze(static, SETTINGS).findings)
    after = analyzer.analyze(dynamic, SETTINGS)
    # The model chunk's text did not change, yet its x[:n] is now data-dependent.
    assert any(f.code == "MS203" and "x[:n]" in f.message for f in after.findings)
    assert observable(after) == observable(Analyzer().analyze(dynamic, SETTINGS))


def test_a_new_caller_in_graph_code_raises_the_helper_severity():
    analyzer = Analyzer()
    unseen = document((3, 1, 1, 1), (1, 1, 1, 1, 1))
    called = document((3, 1, 0, 1), (1, 1, 1, 1, 1)).replace("count(mask)", "3")
    # (The caller's `first(x, n)` is reported too, as where the data-dependent shape enters it.)
    nonzero = [f for f in analyzer.analyze(unseen, SETTINGS).findings if f.code == "MS201" and f.message.startswith("`torch.nonzero`")]
    assert [f.severity.value for f in nonzero] == ["warning"]  # no caller: one step lower
    nonzero = [f for f in analyzer.analyze(called, SETTINGS).findings if f.code == "MS201" and f.message.startswith("`torch.nonzero`")]
    assert [f.severity.value for f in nonzero] == ["error"]


def test_an_unrelated_edit_rechecks_only_its_chunk():
    analyzer = Analyzer()
    text = document((0, 0, 0, 1), (1, 1, 1, 1, 1))
    analyzer.analyze(text, SETTINGS)
    result = analyzer.analyze(text + "\nprint('done')\n", SETTINGS)
    assert result.checked == 1


@hsettings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 3), st.integers(0, 1)),
            st.tuples(*[st.integers(1, 3)] * 5),
        ),
        min_size=2,
        max_size=6,
    )
)
def test_a_warm_analyzer_agrees_with_a_fresh_one(edits):
    warm = Analyzer()
    for parts, gaps in edits:
        text = document(parts, gaps)
        assert observable(warm.analyze(text, SETTINGS)) == observable(Analyzer().analyze(text, SETTINGS))
