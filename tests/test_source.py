"""Position conversions between code points, UTF-8 and UTF-16, on non-ASCII text."""

import pytest

from msport.analysis.source import (
    Source,
    cp_to_utf16,
    cp_to_utf8,
    from_encoding,
    split_lines,
    to_encoding,
    utf8_to_cp,
    utf16_to_cp,
)

LINE = "y = torch.cat(x)  # 拼接 🚀 done"


def test_utf8_round_trip_on_chinese_and_emoji():
    for col in range(len(LINE) + 1):
        assert utf8_to_cp(LINE, cp_to_utf8(LINE, col)) == col


def test_utf16_counts_astral_characters_twice():
    rocket = LINE.index("🚀")
    assert cp_to_utf16(LINE, rocket) == rocket
    assert cp_to_utf16(LINE, rocket + 1) == rocket + 2
    assert utf16_to_cp(LINE, rocket + 2) == rocket + 1


def test_chinese_is_one_utf16_unit_but_three_utf8_bytes():
    col = LINE.index("拼") + 1
    assert cp_to_utf16(LINE, col) == col
    assert cp_to_utf8(LINE, col) == col + 2


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_encodings_round_trip(encoding):
    for col in range(len(LINE) + 1):
        assert from_encoding(LINE, to_encoding(LINE, col, encoding), encoding) == col


def test_positions_past_the_line_end_clamp():
    assert from_encoding("abc", 99, "utf-16") == 3
    assert utf8_to_cp("é", 99) == 1


def test_split_lines_only_breaks_on_cr_lf_crlf():
    # Form feed and U+2028 are not line breaks for ast or LSP.
    assert split_lines("a\r\nb\rc\nd\x0ce\u2028f") == ["a", "b", "c", "d\x0ce\u2028f"]
    assert split_lines("x\n") == ["x", ""]


def test_clamp():
    source = Source.from_text("ab\ncde")
    assert source.clamp(5, 0) == (1, 3)
    assert source.clamp(0, 10) == (0, 2)
    assert source.clamp(-1, 3) == (0, 0)
