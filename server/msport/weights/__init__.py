"""From a PyTorch checkpoint to a MindSpore one, and the check that a port computes what the
original does: ``msport convert-weights`` and ``msport port-check``.

The analysis core never imports torch or mindspore; this package does, lazily, inside the
commands that need them (the language server runs them in a child process). The per-layer naming
and shape facts are data (rules/weights.toml, ``knowledge.weights``).
"""
