"""Precision and recall of the second-order checks (MS5xx) on a labelled corpus of training-loop
styles: WGAN-GP, R1 and path-length penalties, MAML (functional, learn2learn), Hessians and
Hessian-vector products, torch.func nesting, MindSpore nested grad, GradOperation cells."""

from pathlib import Path

from labelled import coverage, covers_both_frameworks, report

CORPUS = Path(__file__).parent / "corpus"


def test_precision_and_recall_on_the_labelled_corpus(analyze):
    report("second-order corpus", CORPUS, "MS5", analyze, minimum=40)


def test_the_corpus_covers_every_code_and_both_frameworks():
    codes, negatives, texts = coverage(CORPUS, "MS5")
    assert {f"MS50{n}" for n in range(1, 6)} <= codes
    assert negatives >= 15
    assert covers_both_frameworks(texts)
    for style in ("create_graph=True", "hessian", "hvp", "grad(grad(", "jacrev(jacfwd(", ".adapt(", "GradOperation", "derivative"):
        assert any(style in t for t in texts), style
