"""Precision and recall of the graph-mode checks on a labelled corpus.

Every line of tests/graph_mode/corpus/*.py that ends in ``# MS4xx`` (several codes separated by
commas) must get those findings (starting on that line); a line ending in ``# ok`` must get none,
and so must every unlabelled line: any MS4 finding elsewhere counts as a false positive. The
corpus is written from patterns of the dev projects (timm, yolov5, ultralytics, speechbrain, mmdet,
torchvision) and fresh MindSpore code, in both frameworks.
"""

from pathlib import Path

import pytest

import labelled  # tests/labelled.py: the label syntax every labelled corpus shares

CORPUS = Path(__file__).parent / "corpus"


def labels(text):
    return labelled.labels(text, "MS4")


def found_codes(analyze, text, path):
    found = {}
    for finding in analyze(text, path=path):
        if finding.code.startswith("MS4"):
            found.setdefault(finding.span.start_line, set()).add(finding.code)
    return found


def test_precision_and_recall_on_the_labeled_corpus(analyze):
    tp = fp = fn = labelled = 0
    misses, false_alarms = [], []
    for path in sorted(CORPUS.glob("*.py")):
        text = path.read_text()
        expected, negatives = labels(text)
        labelled += len(expected) + len(negatives)
        found = found_codes(analyze, text, path.name)
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
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    print(f"\ngraph-mode corpus: {labelled} labelled lines, TP={tp} FP={fp} FN={fn}, precision={precision:.3f} recall={recall:.3f}")
    for line in misses + false_alarms:
        print("  " + line)
    assert labelled >= 60
    assert precision >= 0.95, false_alarms
    assert recall >= 0.90, misses


def test_the_corpus_covers_both_frameworks_and_every_code(knowledge):
    codes, negatives, texts = set(), 0, {p.name: p.read_text() for p in CORPUS.glob("*.py")}
    for text in texts.values():
        expected, neg = labels(text)
        negatives += len(neg)
        for found in expected.values():
            codes |= found
    assert {code for code in knowledge.codes if code.startswith("MS4")} <= codes
    assert negatives >= 30
    assert any("import torch" in t for t in texts.values()) and any("import mindspore" in t for t in texts.values())


@pytest.mark.parametrize("name", sorted(p.name for p in CORPUS.glob("*.py")))
def test_every_label_in_each_file(analyze, name):
    """Per file, so that a regression names the file and the lines."""
    text = (CORPUS / name).read_text()
    expected, _ = labels(text)
    found = found_codes(analyze, text, name)
    wrong = [f"{name}:{line + 1}: expected {sorted(expected.get(line, ()))}, found {sorted(found.get(line, ()))}"
             for line in sorted(set(expected) | set(found)) if expected.get(line, set()) != found.get(line, set())]
    assert not wrong, "\n".join(wrong)
