"""The MS505 fix (compile the inner gradient with mindspore.jit), run before and after on the real
mindspore 2.10 in PyNative, against PyTorch's double backward of the same function: before, the
nested gradient is silently zero; after, it is PyTorch's. Both call forms the fix rewrites: a
gradient taken inside a differentiated function, and grad(grad(f)) written directly."""

import json
import subprocess
import sys
import textwrap

import pytest

NESTED = textwrap.dedent('''
    import mindspore as ms
    from mindspore import ops


    def f(x):
        return ops.sum(x, 0).pow(2).sum()


    def penalty(x):
        return ms.grad(f)(x).sum()


    def second(x):
        return ms.grad(penalty)(x)
''')

DIRECT = textwrap.dedent('''
    import mindspore as ms
    from mindspore import ops


    def f(x):
        return ops.sum(x, 0).pow(2).sum()


    def second(x):
        return ms.grad(ms.grad(f))(x)
''')

RUN = textwrap.dedent('''
    import json, numpy as np
    ms.set_device("CPU")
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 10)
    print(json.dumps(second(x).asnumpy().tolist()))
''')


def _torch_second():
    import torch

    x = torch.arange(12, dtype=torch.float32).reshape(3, 4).div(10).requires_grad_(True)
    (g,) = torch.autograd.grad(x.sum(0).pow(2).sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    return h.tolist()


def _run(source, tmp_path, name):
    script = tmp_path / f"{name}.py"
    script.write_text(source + RUN)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("source", [NESTED, DIRECT], ids=["inside-a-differentiated-function", "grad-of-grad"])
def test_wrapping_the_inner_gradient_in_jit_gives_torchs_second_derivative(analyze, tmp_path, source):
    from msport.analysis.fixes import apply_fix

    findings = analyze(source, backend="cpu", mode="pynative")
    (nested,) = [f for f in findings if f.code == "MS505"]
    (fix,) = nested.fixes
    assert fix.safety.value == "unsafe" and "jit" in fix.title
    fixed = apply_fix(source, fix)
    assert "ms.jit(ms.grad(f))" in fixed
    reference = _torch_second()
    before, after = _run(source, tmp_path, "before"), _run(fixed, tmp_path, "after")
    assert any(v != 0 for row in reference for v in row)
    assert all(v == 0 for row in before for v in row), before  # the trap: silently zero
    assert [v for row in after for v in row] == pytest.approx([v for row in reference for v in row], rel=1e-5)
    assert not [f for f in analyze(fixed, backend="cpu", mode="pynative") if f.code in ("MS503", "MS505")]
