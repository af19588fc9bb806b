"""Precision and recall of a check family on a labelled corpus (tests/<family>/corpus/*.py).

A line ending in ``# MS5xx`` (or several codes, comma-separated) must get those findings,
starting on that line; a line ending in ``# ok`` must get none of the family, and a finding of
the family on any line not labelled with it is a false positive. A first-line comment
``# msport-test: backend=cpu mode=pynative`` gives the settings the labels hold for.
"""

import re
from pathlib import Path

SETTINGS = re.compile(r"#\s*msport-test:\s*(.*)$")


def labels(text, family):
    pattern = re.compile(rf"#\s*({family}\d\d(?:\s*,\s*{family}\d\d)*|ok)\s*$")
    expected, negatives = {}, set()
    for number, line in enumerate(text.split("\n")):
        match = pattern.search(line)
        if not match:
            continue
        if match.group(1) == "ok":
            negatives.add(number)
        else:
            expected[number] = {c.strip() for c in match.group(1).split(",")}
    return expected, negatives


def settings_of(text):
    first = text.split("\n", 1)[0]
    match = SETTINGS.search(first)
    if not match:
        return {}
    return dict(item.split("=", 1) for item in match.group(1).split())


def score(corpus: Path, family: str, analyze):
    """(true positives, false positives, false negatives, labelled lines, misses, false alarms)."""
    tp = fp = fn = labelled = 0
    misses, false_alarms = [], []
    for path in sorted(corpus.glob("*.py")):
        text = path.read_text()
        expected, negatives = labels(text, family)
        labelled += len(expected) + len(negatives)
        found = {}
        for finding in analyze(text, path=str(path), **{k.replace("-", "_"): v for k, v in settings_of(text).items()}):
            if finding.code.startswith(family):
                found.setdefault(finding.span.start_line, set()).add(finding.code)
        for line, codes in expected.items():
            for code in sorted(codes):
                if code in found.get(line, set()):
                    tp += 1
                else:
                    fn += 1
                    misses.append(f"{path.name}:{line + 1}: expected {code}, found {sorted(found.get(line, ()))}")
        for line, codes in sorted(found.items()):
            for code in sorted(codes - expected.get(line, set())):
                fp += 1
                false_alarms.append(f"{path.name}:{line + 1}: unexpected {code}")
    return tp, fp, fn, labelled, misses, false_alarms


def coverage(corpus: Path, family: str):
    """(codes labelled, count of `# ok` lines, texts) of a labelled corpus: what it exercises."""
    codes, negatives = set(), 0
    texts = [path.read_text() for path in sorted(corpus.glob("*.py"))]
    for text in texts:
        expected, neg = labels(text, family)
        negatives += len(neg)
        for found in expected.values():
            codes |= found
    return codes, negatives, texts


def covers_both_frameworks(texts) -> bool:
    return any("import torch" in t for t in texts) and any("import mindspore" in t for t in texts)


def report(name, corpus, family, analyze, minimum):
    tp, fp, fn, labelled, misses, false_alarms = score(corpus, family, analyze)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    print(f"\n{name}: {labelled} labelled lines, TP={tp} FP={fp} FN={fn}, precision={precision:.3f} recall={recall:.3f}")
    for line in misses + false_alarms:
        print("  " + line)
    assert labelled >= minimum
    assert precision >= 0.95, false_alarms
    assert recall >= 0.90, misses
