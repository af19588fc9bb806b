"""Finding English prose left in a text meant to be Chinese (shared by the tests of this folder)."""

import re

#: Parenthesised text with no Chinese in it: arguments, a call, a shape.
_PARENTHESES = re.compile(r"\([^()\u4e00-\u9fff]*\)")
#: Other text that is not prose: code spans, quoted texts (the packages' own error messages,
#: quoted as they are printed), dotted or snake_case names, calls, keyword arguments.
_NOT_PROSE = re.compile(r"`[^`]*`|“[^”]*”|\"[^\"]*\"|'[^']*'|\S*[._=\[\]<>/\d]\S*")
#: Three English words in a row: a sentence, or part of one.
_ENGLISH = re.compile(r"\b[A-Za-z]+(?:[ ,;:]+[A-Za-z]+){2,}\b")


def english_in(text: str):
    """The runs of English words in *text* outside code, names and quotes."""
    # Calls nest (tuple(f(g) for g in grads)): the innermost parentheses first, then theirs.
    prose, before = text, None
    while prose != before:
        before, prose = prose, _PARENTHESES.sub(" § ", prose)
    return _ENGLISH.findall(_NOT_PROSE.sub(" § ", prose))
