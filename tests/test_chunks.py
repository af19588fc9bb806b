"""Chunked parsing: a syntax error stays in its chunk; the rest is still checked."""

from msport.analysis.chunks import parse_chunk, split_chunks
from msport.analysis.source import split_lines

CODE = '''import torch

@decorator
@other(1,
       2)
def f(x):
    return torch.cat([x,
        x])
# a comment

class A:
    s = """
not a chunk
"""

    def g(self):
        pass
if x:
    pass
else:
    pass
try:
    pass
except Exception:
    pass
'''


def starts(text):
    return [c.start for c in split_chunks(split_lines(text))]


def test_chunks_follow_top_level_statements():
    assert starts(CODE) == [0, 2, 10, 17, 21]


def test_chunks_cover_every_line_once():
    lines = split_lines(CODE)
    chunks = split_chunks(lines)
    assert "\n".join(c.text for c in chunks) == "\n".join(lines)


def test_every_chunk_parses_alone():
    for chunk in split_chunks(split_lines(CODE)):
        assert parse_chunk(chunk).tree is not None, chunk.text


def test_unclosed_bracket_does_not_swallow_the_rest():
    text = "x = foo(\n\ndef g():\n    return torch.cat(a)\n"
    assert starts(text) == [0, 2]


def test_syntax_error_in_one_function_leaves_other_findings(analyze):
    text = (
        "import torch\n"
        "def broken(x:\n"
        "    return torch.cat(x)\n"
        "\n"
        "def fine(x):\n"
        "    return torch.cat(x)\n"
    )
    findings = analyze(text)
    codes = [(f.code, f.span.start_line) for f in findings]
    assert ("MS001", 1) in codes
    assert ("MS103", 5) in codes
    syntax = next(f for f in findings if f.code == "MS001")
    assert "lines 2-4" in syntax.message


def test_parser_failures_never_raise():
    deep = "x = " + "(" * 1000 + ")" * 1000
    parsed = parse_chunk(split_chunks([deep])[0])
    assert parsed.tree is None and parsed.error is not None
    nul = parse_chunk(split_chunks(["x = 1\x00"])[0])
    assert nul.tree is None


# -- re-splitting around an edit ------------------------------------------------------------------
from hypothesis import given, settings, strategies as st  # noqa: E402

from msport.analysis.chunks import chunk_starts  # noqa: E402

#: Lines that move chunk boundaries: openers and closers of brackets and triple-quoted strings,
#: decorators, continuations, hard starts inside an unclosed bracket, comments, blank lines.
PIECES = [
    "import torch", "x = f(", "    1,", ")", "]", "y = [1,", 's = """', '"""', "'''", "@decorator",
    "@other(1,", "def f(x):", "    return x", "class A:", "    pass", "else:", "except E:", "# note",
    "", "    ", "z = 'a' \\", "    + 'b'", "if x:", "from a import (b,", "async def g():", "\tt = 1",
    "u = {'k': (", "v = 1  # (", "w = '('",
]
texts = st.lists(st.sampled_from(PIECES), max_size=40)


@settings(max_examples=400, deadline=None)
@given(before=texts, at=st.integers(min_value=0, max_value=40), cut=st.integers(min_value=0, max_value=6), added=texts)
def test_resplitting_after_an_edit_equals_splitting_from_scratch(before, at, cut, added):
    after = before[:at] + added[:8] + before[at + cut:]
    previous = chunk_starts(before)
    assert previous.starts == chunk_starts(before, chunk_starts(after)).starts
    assert chunk_starts(after, previous).starts == chunk_starts(after).starts


def test_resplitting_scans_from_the_edit_not_the_top():
    lines = split_lines(CODE * 50)
    old = chunk_starts(lines)
    edited = list(lines)
    edited[len(lines) // 2] = edited[len(lines) // 2] + "  # edited"
    assert chunk_starts(edited, old).starts == chunk_starts(edited).starts == old.starts
