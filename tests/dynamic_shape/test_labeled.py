"""Precision and recall of the dynamic-shape checks on a labeled corpus.

Every line of tests/dynamic_shape/corpus/*.py that ends in ``# MS2xx`` must get that finding
(starting on that line); a line ending in ``# ok`` must get none, and so must every unlabeled
line: any MS2 finding elsewhere counts as a false positive.
"""

from pathlib import Path

import pytest

import labelled  # tests/labelled.py: the label syntax every labelled corpus shares

CORPUS = Path(__file__).parent / "corpus"


def labels(text):
    return labelled.labels(text, "MS2")


def score(analyze):
    tp = fp = fn = 0
    misses, false_alarms = [], []
    labeled = 0
    for path in sorted(CORPUS.glob("*.py")):
        text = path.read_text()
        expected, negatives = labels(text)
        labeled += len(expected) + len(negatives)
        found = {}
        for finding in analyze(text, path=str(path)):
            if finding.code.startswith("MS2"):
                found.setdefault(finding.span.start_line, set()).add(finding.code)
        for line, codes in expected.items():
            for code in codes:
                if code in found.get(line, set()):
                    tp += 1
                else:
                    fn += 1
                    misses.append(f"{path.name}:{line + 1}: expected {code}, found {sorted(found.get(line, ()))}")
        for line, codes in found.items():
            for code in codes - expected.get(line, set()):
                fp += 1
                false_alarms.append(f"{path.name}:{line + 1}: unexpected {code}")
    return tp, fp, fn, labeled, misses, false_alarms


def test_precision_and_recall_on_the_labeled_corpus(analyze):
    tp, fp, fn, labeled, misses, false_alarms = score(analyze)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    print(f"\ndynamic-shape corpus: {labeled} labeled lines, TP={tp} FP={fp} FN={fn}, precision={precision:.3f} recall={recall:.3f}")
    for line in misses + false_alarms:
        print("  " + line)
    assert labeled >= 80
    assert precision >= 0.95, false_alarms
    assert recall >= 0.90, misses


def test_the_corpus_covers_both_frameworks_and_every_code():
    codes, negatives = set(), 0
    texts = {p.name: p.read_text() for p in CORPUS.glob("*.py")}
    for text in texts.values():
        expected, neg = labels(text)
        negatives += len(neg)
        for found in expected.values():
            codes |= found
    assert {f"MS2{n:02d}" for n in range(1, 12)} <= codes
    assert negatives >= 40
    assert any("import torch" in t for t in texts.values()) and any("import mindspore" in t for t in texts.values())


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.py")))
def test_every_label_in_each_file(analyze, name):
    """Per file, so that a regression names the file and the lines."""
    text = (CORPUS / name).read_text()
    expected, negatives = labels(text)
    found = {}
    for finding in analyze(text, path=name):
        if finding.code.startswith("MS2"):
            found.setdefault(finding.span.start_line, set()).add(finding.code)
    wrong = []
    for line in sorted(set(expected) | set(found)):
        if expected.get(line, set()) != found.get(line, set()):
            wrong.append(f"{name}:{line + 1}: expected {sorted(expected.get(line, ()))}, found {sorted(found.get(line, ()))}")
    assert not wrong, "\n".join(wrong)
