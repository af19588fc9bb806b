"""Networks reached through module-level aliases, dicts of classes, registries built from a
configuration, and functools.partial / lambdas wrapping the differentiated function
(second_order_paths.py). Each finding is asserted at its line, and its absence where the same
network is differentiated only once. A registry naming one class is followed; one that can build
several classes reports each candidate's operations one severity lower, saying why."""

import textwrap

from snippets import found, line_of

from msport.analysis.findings import Severity

HEAD = "import functools\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch import autograd\n"

CRITIC = '''
    class Critic(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 1)

        def forward(self, x):
            return self.fc(F.elu(x))
'''

REGISTRY = '''
    class Registry:
        def __init__(self, name):
            self.name, self.classes = name, {}

        def register_module(self, name=None):
            def add(cls):
                self.classes[name or cls.__name__] = cls
                return cls
            return add

        def build(self, cfg):
            cfg = dict(cfg)
            return self.classes[cfg.pop("type")](**cfg)

        def get(self, name):
            return self.classes[name]


    MODELS = Registry("models")


    @MODELS.register_module()
    class EluCritic(nn.Module):
        def forward(self, x):
            return F.elu(x).sum()


    @MODELS.register_module(name="patch")
    class PatchCritic(nn.Module):
        def forward(self, x):
            return F.log_softmax(x, -1).sum()
'''


def src(text, networks=CRITIC):
    return HEAD + textwrap.dedent(networks) + textwrap.dedent(text)


def lines(findings, code):
    return sorted(f.span.start_line for f in found(findings, code))


def test_a_module_level_alias_of_the_critic(analyze):
    text = src('''
        Net = Critic

        def penalty(x):
            d = Net()
            return autograd.grad(d(x).sum(), x, create_graph=True)[0]
    ''')
    findings = analyze(text, backend="cpu")
    assert lines(findings, "MS501") == [line_of(text, "F.elu(x)")]
    (site,) = found(findings, "MS504")
    assert "`Critic.forward`" in site.message and "`d`" not in site.message


def test_a_dict_of_classes_indexed_by_a_name(analyze):
    text = src('''
        NETS = {"critic": Critic}

        def penalty(x, name):
            d = NETS[name]()
            return autograd.grad(d(x).sum(), x, create_graph=True)[0]
    ''')
    (elu,) = found(analyze(text, backend="cpu"), "MS501")
    assert elu.span.start_line == line_of(text, "F.elu(x)")
    assert elu.severity == Severity.ERROR  # the dict holds one class: followed as such


def test_an_alias_differentiated_once_gets_nothing(analyze):
    text = src('''
        Net = Critic

        def saliency(x):
            d = Net()
            return autograd.grad(d(x).sum(), x)[0]
    ''')
    assert found(analyze(text, backend="cpu"), "MS501") == []


def test_a_registry_built_from_a_literal_config_follows_the_class_it_names(analyze):
    text = src('''
        def penalty(x):
            d = MODELS.build(dict(type="EluCritic"))
            return autograd.grad(d(x), x, create_graph=True)[0]
    ''', REGISTRY)
    findings = analyze(text, backend="cpu")
    (elu,) = found(findings, "MS501")
    assert elu.span.start_line == line_of(text, "F.elu(x).sum()")
    assert elu.severity == Severity.ERROR and "one severity lower" not in elu.message


def test_a_registry_get_by_its_registered_name(analyze):
    text = src('''
        def penalty(x):
            d = MODELS.get("patch")()
            return autograd.grad(d(x), x, create_graph=True)[0]
    ''', REGISTRY)
    assert lines(analyze(text, backend="cpu"), "MS501") == [line_of(text, "F.log_softmax(x, -1)")]


def test_a_registry_built_from_an_unknown_config_reports_its_candidates_one_severity_lower(analyze):
    text = src('''
        class GAN:
            def __init__(self, cfg):
                self.net_d = MODELS.build(cfg.discriminator)

            def r1(self, real):
                grad = autograd.grad(self.net_d(real), real, create_graph=True)[0]
                return grad.pow(2).sum()
    ''', REGISTRY)
    findings = analyze(text, backend="cpu")
    reported = found(findings, "MS501")
    assert sorted(f.span.start_line for f in reported) == sorted([line_of(text, "F.elu(x).sum()"), line_of(text, "F.log_softmax(x, -1)")])
    for finding in reported:
        assert finding.severity == Severity.WARNING  # MS501 is an error when the class is known
        assert "`MODELS` builds" in finding.message and "one of the 2 classes" in finding.message
        assert "one severity lower" in finding.message


def test_build_from_cfg_with_the_registry_as_argument(analyze):
    text = src('''
        def build_from_cfg(cfg, registry):
            return registry.build(cfg)

        def penalty(x, cfg):
            d = build_from_cfg(cfg, MODELS)
            return autograd.grad(d(x), x, create_graph=True)[0]
    ''', REGISTRY)
    assert len(found(analyze(text, backend="cpu"), "MS501")) == 2


def test_a_registry_differentiated_once_gets_nothing(analyze):
    text = src('''
        def saliency(x, cfg):
            d = MODELS.build(cfg)
            return autograd.grad(d(x), x)[0]
    ''', REGISTRY)
    assert found(analyze(text, backend="cpu"), "MS501") == []


def test_getattr_on_a_module_is_named_as_not_followed(analyze):
    text = src('''
        import sys

        def penalty(x, cfg):
            d = getattr(sys.modules[__name__], cfg.type)()
            return autograd.grad(d(x).sum(), x, create_graph=True)[0]
    ''')
    findings = analyze(text, backend="cpu")
    assert found(findings, "MS501") == []
    (site,) = found(findings, "MS504")
    assert "Not followed (check by hand)" in site.message and "`d`" in site.message


def test_functools_partial_binding_the_model_to_a_name(analyze):
    text = src('''
        def loss(model, x):
            return model(x).sum()

        def curvature(x):
            f = functools.partial(loss, Critic())
            return torch.autograd.functional.hessian(f, x, create_graph=True)
    ''')
    findings = analyze(text, backend="cpu")
    assert lines(findings, "MS501") == [line_of(text, "F.elu(x)")]
    (site,) = found(findings, "MS504")
    assert "`loss`" in site.message and "`Critic.forward`" in site.message


def test_functools_partial_inside_nested_transforms(analyze):
    text = src('''
        from torch.func import grad

        def loss(model, x):
            return model(x).sum()

        def curvature(x):
            d = Critic()
            return grad(grad(functools.partial(loss, model=d)))(x)
    ''')
    assert lines(analyze(text, backend="cpu"), "MS501") == [line_of(text, "F.elu(x)")]


def test_a_partial_differentiated_once_gets_nothing(analyze):
    text = src('''
        from torch.func import grad

        def loss(model, x):
            return model(x).sum()

        def saliency(x):
            return grad(functools.partial(loss, Critic()))(x)
    ''')
    assert found(analyze(text, backend="cpu"), "MS501") == []


def test_a_lambda_calling_a_helper_with_the_model(analyze):
    text = src('''
        def loss(model, x):
            return model(x).sum()

        def curvature(x):
            d = Critic()
            return torch.autograd.functional.hessian(lambda y: loss(d, y), x)
    ''')
    assert lines(analyze(text, backend="cpu"), "MS501") == [line_of(text, "F.elu(x)")]


def test_a_registry_of_many_classes_reports_its_candidates_as_hints(analyze):
    """basicsr's ARCH_REGISTRY builds every architecture of the toolbox from one call: each is so
    unlikely to be the configured one that its findings are hints (registries.many in the rules)."""
    many = "".join(f'''
    @MODELS.register_module()
    class Extra{index}(nn.Module):
        def forward(self, x):
            return torch.tanh(x).sum()
''' for index in range(3))
    text = src('''
        class GAN:
            def __init__(self, cfg):
                self.net_d = MODELS.build(cfg.discriminator)

            def r1(self, real):
                grad = autograd.grad(self.net_d(real), real, create_graph=True)[0]
                return grad.pow(2).sum()
    ''', REGISTRY + many)
    findings = analyze(text, backend="cpu")
    reported = found(findings, "MS501")
    assert sorted(f.span.start_line for f in reported) == sorted([line_of(text, "F.elu(x).sum()"), line_of(text, "F.log_softmax(x, -1)")])
    for finding in reported:
        assert finding.severity == Severity.HINT
        assert "one of the 5 classes" in finding.message and "reported as a hint" in finding.message
