"""Networks a second-order path reaches indirectly (second_order_paths.py): built by a factory
function of the module and kept in an attribute or a name, or a layer built by a caller and
handed to the helper that differentiates twice. Each finding is asserted at its line, and its
absence where the same network is differentiated only once."""

import textwrap

from snippets import found, line_of

TORCH = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch import autograd\n"

CRITIC = '''
    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 1)

        def forward(self, x):
            return self.fc(F.elu(x))


    def build_critic(opt):
        net = Critic()
        return net
'''


def src(text):
    return TORCH + textwrap.dedent(CRITIC) + textwrap.dedent(text)


def test_a_critic_built_by_a_factory_into_an_attribute_is_on_the_penalty_path(analyze):
    text = src('''
        class GANModel:
            def __init__(self, opt):
                self.net_d = build_critic(opt)

            def r1_penalty(self, real):
                pred = self.net_d(real)
                grad = autograd.grad(pred.sum(), real, create_graph=True)[0]
                return grad.pow(2).sum()
    ''')
    findings = analyze(text, backend="cpu")
    (elu,) = found(findings, "MS501")
    assert elu.span.start_line == line_of(text, "F.elu(x)")
    assert "GANModel.r1_penalty" in elu.message
    (related,) = elu.related
    assert related.span.start_line == line_of(text, "grad = autograd.grad(")
    (site,) = found(findings, "MS504")
    assert "`Critic.forward`" in site.message and "Not followed" not in site.message


def test_a_factory_built_model_in_a_local_name(analyze):
    text = src('''
        def hvp(opt, x, v):
            model = build_critic(opt)
            g = autograd.grad(model(x).sum(), x, create_graph=True)[0]
            return autograd.grad((g * v).sum(), x)[0]
    ''')
    (elu,) = found(analyze(text, backend="cpu"), "MS501")
    assert elu.span.start_line == line_of(text, "F.elu(x)")


def test_a_factory_built_critic_differentiated_once_gets_nothing(analyze):
    text = src('''
        class GANModel:
            def __init__(self, opt):
                self.net_d = build_critic(opt)

            def saliency(self, real):
                pred = self.net_d(real)
                return autograd.grad(pred.sum(), real)[0]
    ''')
    assert not [f for f in analyze(text, backend="cpu") if f.code.startswith("MS5")]


def test_a_factory_msport_cannot_type_stays_a_callable_to_check_by_hand(analyze):
    text = src('''
        REGISTRY = {}


        def build_from_registry(opt):
            return REGISTRY[opt["type"]](**opt)


        class GANModel:
            def __init__(self, opt):
                self.net_d = build_from_registry(opt)

            def r1_penalty(self, real):
                pred = self.net_d(real)
                return autograd.grad(pred.sum(), real, create_graph=True)[0]
    ''')
    findings = analyze(text, backend="cpu")
    assert not found(findings, "MS501")
    (site,) = found(findings, "MS504")
    assert "`build_from_registry(...)`" in site.message


def test_a_layer_built_by_the_caller_is_reported_where_it_is_built(analyze):
    text = src('''
        def penalty(act, x):
            out = act(x * 2.0)
            return autograd.grad(out.sum(), x, create_graph=True)[0]


        def smoothed(x):
            act = nn.ELU()
            return penalty(act, x)


        def saliency(act, x):
            return autograd.grad(act(x).sum(), x)[0]


        def explain(x):
            act = nn.ELU()
            return saliency(act, x)
    ''')
    findings = analyze(text, backend="cpu")
    (elu,) = found(findings, "MS501")
    lines = text.split("\n")
    assert elu.span.start_line == lines.index("    act = nn.ELU()")  # in smoothed, not in explain
    assert "`penalty`" in elu.message
    (related,) = elu.related
    assert related.span.start_line == line_of(text, "return autograd.grad(out.sum()")
    (site,) = found(findings, "MS504")
    assert "torch.nn.ELU" in site.message and "Not followed" not in site.message


def test_a_layer_attribute_handed_to_the_helper_is_reported_in_init(analyze):
    text = src('''
        def penalty(act, x):
            return autograd.grad(act(x).sum(), x, create_graph=True)[0]


        class Regulariser:
            def __init__(self):
                self.smooth = nn.ELU()
                self.spare = nn.ELU()

            def __call__(self, x):
                return penalty(self.smooth, x)
    ''')
    (elu,) = found(analyze(text, backend="cpu"), "MS501")
    assert elu.span.start_line == line_of(text, "self.smooth = nn.ELU()")
