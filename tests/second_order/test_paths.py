"""Where a module differentiates twice, and what lies on each path (second_order_paths.py), as
seen through the MS504 site finding and the related locations of MS501-MS503."""

import textwrap

import pytest

TORCH = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch import autograd\n"
MS = "import mindspore as ms\nfrom mindspore import nn, ops\n"


def codes(findings, prefix="MS5"):
    return sorted((f.span.start_line + 1, f.code) for f in findings if f.code.startswith(prefix))


def site(findings):
    (found,) = [f for f in findings if f.code == "MS504"]
    return found


def src(text, header=TORCH):
    return header + textwrap.dedent(text)


def test_create_graph_follows_the_model_passed_to_the_helper(analyze):
    text = src('''
        class D(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 1)

            def forward(self, x):
                return self.fc(F.elu(x))


        def penalty(net, x):
            out = net(x)
            g = autograd.grad(out.sum(), x, create_graph=True)[0]
            return (g.norm(2, dim=1) - 1).pow(2).mean()


        def step(x):
            d = D()
            return penalty(d, x)
    ''')
    found = analyze(text, backend="cpu")
    message = site(found).message
    assert "`D.forward`" in message and "Not followed" not in message
    (elu,) = [f for f in found if f.code == "MS501"]
    assert elu.span.start_line == text.split("\n").index("        return self.fc(F.elu(x))")
    # The related location is the gradient call, in another chunk than the finding.
    (related,) = elu.related
    assert text.split("\n")[related.span.start_line].strip().startswith("g = autograd.grad(")


def test_ops_after_the_gradient_are_not_on_the_second_order_path(analyze):
    text = src('''
        def penalty(x, w):
            y = F.elu(x @ w)
            g = autograd.grad(y.sum(), x, create_graph=True)[0]
            return F.elu(g).mean()
    ''')
    lines = [line for line, code in codes(analyze(text, backend="cpu")) if code == "MS501"]
    assert lines == [7]  # the first elu, in the backward slice; not the one applied to the gradient


def test_an_unknown_model_is_named_as_not_followed(analyze):
    text = src('''
        def r1(real_pred, real_img):
            g = autograd.grad(outputs=real_pred.sum(), inputs=real_img, create_graph=True)[0]
            return g.pow(2).sum()
    ''')
    message = site(analyze(text)).message
    assert "Not followed (check by hand): `real_pred`" in message


@pytest.mark.parametrize("flag, expected", [("True", ["MS504"]), ("False", []), ("second_order", ["MS504"])])
def test_create_graph_value(analyze, flag, expected):
    text = src(f'''
        def inner(model, x, y, second_order=True):
            loss = F.mse_loss(model(x), y)
            return autograd.grad(loss, model.parameters(), create_graph={flag})
    ''')
    found = analyze(text)
    assert [c for _, c in codes(found) if c == "MS504"] == expected
    if flag == "second_order":
        assert "(when `second_order` is true)" in site(found).message


def test_backward_with_create_graph_is_a_site_and_plain_backward_is_not(analyze):
    text = src('''
        def step(model, x, y):
            loss = F.cross_entropy(model(x), y)
            loss.backward(create_graph=True)


        def plain(model, x, y):
            loss = F.cross_entropy(model(x), y)
            loss.backward()
    ''')
    # The loss the site differentiates is on its path: cross-entropy with class indices crashes
    # when differentiated twice (rules/second_order.toml [[shape]]); the plain backward is silent.
    assert codes(analyze(text)) == [(7, "MS502"), (8, "MS504")]


def test_torch_func_nesting_and_hessian(analyze):
    text = src('''
        from torch.func import grad, jacrev, jacfwd, hessian, vmap


        def f(x):
            return torch.log_softmax(x, -1).sum()


        def use(x):
            a = grad(grad(f))(x)
            b = vmap(jacrev(jacfwd(f)))(x)
            c = hessian(f)(x)
            d = grad(f)(x)
            return a, b, c, d
    ''')
    found = analyze(text, backend="cpu")
    sites = [line for line, code in codes(found) if code == "MS504"]
    assert sites == [14, 15, 16]  # not the first-order grad(f)
    assert [line for line, code in codes(found) if code == "MS501"] == [10]  # log_softmax: LogSoftmaxGrad


def test_mindspore_nested_grad_in_pynative_gets_the_jit_fix(analyze):
    text = src('''
        def f(x):
            return ops.sum(x, 0).pow(2).sum()


        def penalty(x):
            return ms.grad(f)(x).sum()


        def run(x):
            return ms.grad(penalty)(x)
    ''', MS)
    found = analyze(text, backend="cpu", mode="pynative")
    assert (5, "MS503") in codes(found)
    (nested,) = [f for f in found if f.code == "MS505"]
    (fix,) = nested.fixes
    assert fix.safety.value == "unsafe" and fix.edits[0].new_text == "ms.jit(ms.grad(f))"
    # In graph mode, or with the inner gradient compiled, nothing is silently wrong.
    assert not [c for _, c in codes(analyze(text, backend="cpu", mode="graph")) if c in ("MS503", "MS505")]
    compiled = text.replace("return ms.grad(f)(x).sum()", "return ms.jit(ms.grad(f))(x).sum()")
    assert not [c for _, c in codes(analyze(compiled, backend="cpu", mode="pynative")) if c in ("MS503", "MS505")]


def test_grad_operation_cell_pattern(analyze):
    text = src('''
        class Net(nn.Cell):
            def construct(self, x):
                return ops.log_softmax(x, -1)


        class GradNet(nn.Cell):
            def __init__(self):
                super().__init__()
                self.net = Net()
                self.grad_op = ops.GradOperation()

            def construct(self, x):
                return self.grad_op(self.net)(x)


        def second(x):
            return ops.GradOperation()(GradNet())(x)
    ''', MS)
    found = analyze(text, backend="cpu")
    assert (6, "MS501") in codes(found)
    assert "`Net.construct`" in site(found).message


def test_derivative_order(analyze):
    text = src('''
        def f(x):
            return ops.sin(x)


        def run(x):
            first = ops.derivative(f, (x,), 1)
            second = ops.derivative(f, (x,), 2)
            return first, second
    ''', MS)
    assert [c for _, c in codes(analyze(text))] == ["MS504"]
    assert codes(analyze(text))[0][0] == 10


def test_container_layers_are_reported_where_they_are_built(analyze):
    text = src('''
        class D(nn.Module):
            def __init__(self):
                super().__init__()
                layers = [nn.Linear(4, 8)]
                layers.append(nn.ELU())
                self.body = nn.Sequential(*layers, nn.Linear(8, 1))

            def forward(self, x):
                return self.body(x)


        def penalty(x):
            out = D()(x)
            return autograd.grad(out.sum(), x, create_graph=True)[0]
    ''')
    assert (10, "MS501") in codes(analyze(text, backend="cpu"))


def test_related_location_follows_moved_chunks(analyze):
    from msport.analysis import Analyzer, Settings

    text = src('''
        class D(nn.Module):
            def forward(self, x):
                return F.elu(x)


        def penalty(x):
            out = D()(x)
            return autograd.grad(out.sum(), x, create_graph=True)[0]
    ''')
    analyzer = Analyzer()
    settings = Settings(backend="cpu")

    def related_line(source):
        (finding,) = [f for f in analyzer.analyze(source, settings).findings if f.code == "MS501"]
        (related,) = finding.related
        return source.split("\n")[related.span.start_line].strip()

    assert related_line(text).startswith("return autograd.grad(")
    # Lines inserted between the two chunks: the model's chunk is re-used from the cache and
    # its related location still lands on the gradient call.
    moved = text.replace("\n\ndef penalty", "\n\nSCALE = 1\nOFFSET = 2\n\n\ndef penalty")
    assert related_line(moved).startswith("return autograd.grad(")


def test_chunks_without_gradient_words_cost_nothing(analyze):
    from msport.analysis.second_order_paths import SecondOrderPathsBuilder
    from msport.knowledge import default_knowledge

    builder = SecondOrderPathsBuilder(default_knowledge())
    assert not builder._has_words("x = conv(x)\nreturn relu(x)\n")
    text = src('''
        def f(x):
            return F.relu(x)
    ''')
    assert codes(analyze(text)) == []
