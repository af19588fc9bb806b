"""The second-order and sparse sections of hover cards and `msport explain` (support_cards.py)."""

import subprocess
import sys


def test_a_torch_api_card_shows_its_counterparts_second_order_support(knowledge):
    from msport.knowledge.cards import api_card

    card = api_card(knowledge, "torch.nn.functional.elu", (2, 10), "cpu")
    section = card[card.index("**Second-order gradients**"):]
    row = next(line for line in section.splitlines() if line.startswith("| `mindspore.ops.elu` (here)"))
    assert "missing (EluGrad)" in row and "no bprop" in row
    assert "ops.where(x > 0, x, alpha * (ops.exp(x) - 1))" in card  # the proven replacement
    # The card's own structure stays: the verdict comes first.
    assert card.index("**`torch.nn.functional.elu`**") < card.index("**Second-order gradients**")


def test_pynative_zeros_are_spelled_out(knowledge):
    from msport.knowledge.cards import api_card

    card = api_card(knowledge, "torch.Tensor.sum", (2, 10), "cpu")
    section = card[card.index("**Second-order gradients**"):]
    row = next(line for line in section.splitlines() if line.startswith("| `mindspore.Tensor.sum`"))
    assert "ZEROS" in row
    assert "compile the inner gradient with mindspore.jit" in card


def test_sparse_section_per_backend(knowledge):
    from msport.knowledge.cards import api_card

    card = api_card(knowledge, "torch.sparse.mm", (2, 10), "ascend")
    assert "**On a sparse tensor**" in card
    csr = next(line for line in card.splitlines() if line.startswith("| CSR"))
    assert "`mindspore.CSRTensor.mm`" in csr and "not documented" in csr and "fails" in csr
    coo = next(line for line in card.splitlines() if line.startswith("| COO"))
    assert "runs" in coo
    assert "Dense fallback:" in card


def test_a_mindspore_sparse_api_and_a_deprecated_one(knowledge):
    from msport.knowledge.cards import api_card

    assert "**On a sparse tensor**" in api_card(knowledge, "mindspore.CSRTensor.mm", (2, 10), "cpu")
    assert "**Deprecated**" in api_card(knowledge, "mindspore.ops.SparseTensorDenseMatmul", (2, 10), "cpu")


def test_msport_explain_prints_the_sections():
    done = subprocess.run([sys.executable, "-m", "msport", "explain", "torch.nn.functional.log_softmax", "--backend", "cpu"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "LogSoftmaxGrad" in done.stdout and "logsumexp" in done.stdout
