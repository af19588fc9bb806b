"""Precision and recall of the sparse-tensor checks (MS6xx) on a labelled corpus."""

from pathlib import Path

from labelled import coverage, covers_both_frameworks, report

CORPUS = Path(__file__).parent / "corpus"


def test_precision_and_recall_on_the_labelled_corpus(analyze):
    report("sparse corpus", CORPUS, "MS6", analyze, minimum=20)


def test_the_corpus_covers_every_code_and_both_frameworks():
    codes, negatives, texts = coverage(CORPUS, "MS6")
    assert {f"MS60{n}" for n in range(1, 7)} <= codes
    assert negatives >= 10
    assert covers_both_frameworks(texts)
