"""``msport check --fix``: apply fixes to files on disk, keeping their encoding and line endings."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path
from typing import List, Tuple

from ..analysis.fixes import fix_all


def fix_file(path: Path, text: str, analyzer, settings, display: str, unsafe: bool, project=None) -> Tuple[str, int, List[str]]:
    """Apply every eligible fix to the file's *text* and write it back when it changed;
    (the new text, how many fixes were applied, warnings for stderr). *project*: the file's
    facts from the project index."""
    outcome = fix_all(text, settings, analyzer, display, unsafe=unsafe, project=project)
    warnings = [
        f"msport: warning: {display}:{rejected.line + 1}: left {rejected.code} unfixed: '{rejected.title}' would not parse here"
        for rejected in outcome.rejected
    ]
    if not outcome.changed:
        return text, 0, warnings
    problem = write_fixed(path, outcome.text)
    if problem:
        warnings.append(f"msport: warning: {display}: {problem}")
        return text, 0, warnings
    return outcome.text, len(outcome.applied), warnings


def write_fixed(path: Path, new_text: str) -> str:
    """Write *new_text* over the file in the file's own encoding (and BOM); what went wrong,
    or "" when it was written."""
    data = path.read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    bom = data.startswith(b"\xef\xbb\xbf")
    try:
        encoded = new_text.encode("utf-8" if encoding == "utf-8-sig" else encoding)
    except UnicodeEncodeError:
        return f"fixes not written: the result cannot be encoded as {encoding}"
    path.write_bytes((b"\xef\xbb\xbf" if bom and not encoded.startswith(b"\xef\xbb\xbf") else b"") + encoded)
    return ""
