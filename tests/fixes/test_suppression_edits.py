"""The edits behind "Ignore CODE on this line / in this file": they merge with the comments
already there, never break the code, and make the finding go away."""

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.fixes import apply_edits
from msport.analysis.source import Source
from msport.analysis.suppression_edits import ignore_in_file, ignore_on_line

CAT = "import torch\ny = torch.cat([a, b], 1){comment}\n"


def codes(text):
    return [f.code for f in Analyzer().analyze(text, Settings()).findings]


def after_line_edit(text, line=1, code="MS103"):
    edit = ignore_on_line(Source.from_text(text), line, code)
    return None if edit is None else apply_edits(text, [edit])


@pytest.mark.parametrize("comment,expected", [
    ("", "y = torch.cat([a, b], 1)  # noqa: MS103"),
    ("   ", "y = torch.cat([a, b], 1)  # noqa: MS103"),
    ("  # noqa: E501", "y = torch.cat([a, b], 1)  # noqa: E501, MS103"),
    ("  # noqa:E501,W291", "y = torch.cat([a, b], 1)  # noqa:E501,W291, MS103"),
    ("  # noqa: E501 keeps the long line", "y = torch.cat([a, b], 1)  # noqa: E501, MS103 keeps the long line"),
    ("  # msport: ignore[MS201]", "y = torch.cat([a, b], 1)  # msport: ignore[MS201, MS103]"),
    ("  # 拼接 two tensors", "y = torch.cat([a, b], 1)  # 拼接 two tensors  # noqa: MS103"),
])
def test_ignore_on_line_merges_with_the_comment_there(comment, expected):
    text = CAT.format(comment=comment)
    assert "MS103" in codes(text)
    fixed = after_line_edit(text)
    assert fixed.split("\n")[1] == expected
    assert "MS103" not in codes(fixed)


@pytest.mark.parametrize("comment", ["  # noqa", "  # NOQA", "  # msport: ignore"])
def test_nothing_to_add_when_every_code_is_already_ignored(comment):
    assert after_line_edit(CAT.format(comment=comment)) is None


def test_no_comment_where_the_line_ends_inside_a_string_or_after_a_backslash():
    text = 'import torch\ny = torch.cat(a) + f("""\nz""")\nw = torch.cat(a) + \\\n    1\n'
    source = Source.from_text(text)
    assert ignore_on_line(source, 1, "MS103", source.lines, 0) is None
    assert ignore_on_line(source, 3, "MS103", source.lines, 0) is None
    # A statement continued inside brackets takes a comment at the end of its first line.
    text = "import torch\ny = torch.cat([a,\n               b])\n"
    source = Source.from_text(text)
    fixed = apply_edits(text, [ignore_on_line(source, 1, "MS103", source.lines, 0)])
    assert fixed.split("\n")[1] == "y = torch.cat([a,  # noqa: MS103"
    assert "MS103" not in codes(fixed)


@pytest.mark.parametrize("text,expected_head", [
    ("import torch\ny = torch.cat(a)\n", "# msport: ignore-file[MS103]\nimport torch\n"),
    ("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport torch\ny = torch.cat(a)\n",
     "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# msport: ignore-file[MS103]\nimport torch\n"),
    ('"""Doc."""\n# msport: ignore-file[MS2]\nimport torch\ny = torch.cat(a)\n', '"""Doc."""\n# msport: ignore-file[MS2, MS103]\n'),
    ("# msport: ignore-file[]\nimport torch\ny = torch.cat(a)\n", "# msport: ignore-file[MS103]\n"),
])
def test_ignore_in_file_adds_or_merges_one_comment(text, expected_head):
    edit = ignore_in_file(Source.from_text(text), "MS103")
    fixed = apply_edits(text, [edit])
    assert fixed.startswith(expected_head)
    assert fixed.count("ignore-file") == 1
    assert "MS103" not in codes(fixed)


def test_ignore_in_file_is_not_offered_when_the_file_ignores_everything():
    assert ignore_in_file(Source.from_text("# msport: ignore-file\nimport torch\n"), "MS103") is None
