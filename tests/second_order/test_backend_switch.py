"""A gradient spelled `torch.autograd.grad(..., create_graph=True)` where `torch` comes from a
project's backend switch msport cannot follow (deepxde: `from ..backend import torch`, bound when
the backend loads) is still a second-order site; the same call of another framework
(`paddle.grad`, `paddle.autograd.grad`) and a first-order one are not."""

import textwrap

TEXT = textwrap.dedent('''
    from ..backend import backend_name, torch, paddle


    class Jacobian:
        def __call__(self, ys, xs):
            if backend_name == "pytorch":
                return torch.autograd.grad(ys, xs, grad_outputs=torch.ones_like(ys), create_graph=True)[0]
            if backend_name == "paddle":
                return paddle.grad(ys, xs, create_graph=True)[0]
            return paddle.autograd.grad(ys, xs, create_graph=True)[0]

        def first_order(self, ys, xs):
            return torch.autograd.grad(ys, xs, grad_outputs=torch.ones_like(ys))[0]
''')


def test_torch_from_a_backend_switch_is_recognised_and_other_frameworks_are_not(analyze):
    sites = [f for f in analyze(TEXT, path="pkg/gradients/reverse.py") if f.code == "MS504"]
    (torch_line,) = [i for i, line in enumerate(TEXT.split("\n")) if "torch.autograd.grad(" in line and "create_graph" in line]
    assert [f.span.start_line for f in sites] == [torch_line]
