"""Helpers of the second-order snippet tests: where a fragment is, and the findings of a code."""


def line_of(text, fragment):
    """The 0-based line of the one line of *text* holding *fragment* (as finding spans count)."""
    (number,) = [i for i, line in enumerate(text.split("\n")) if fragment in line]
    return number


def found(findings, code):
    return [f for f in findings if f.code == code]
