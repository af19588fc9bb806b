"""Discriminators reached through objects (second_order_members.py): an attribute of an
attribute picked by a conditional (lightweight-gan's `D_aug = self.GAN.D_aug if ... else ...`), a
wrapper whose forward calls the network it was built around, blocks handed to blocks
(`Residual(PreNorm(dim, Attention(dim)))`) and layers appended to a ModuleList. Each finding is
asserted at its line; code reached only by what is assigned to self attributes, or run under
no_grad for the penalty's other branch, is not on the path."""

import textwrap

from snippets import found, line_of

PENALTY = '''
import torch
from torch import nn
import torch.nn.functional as F
from torch.autograd import grad as torch_grad


class PreNorm(nn.Module):
    def __init__(self, dim, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class Residual(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x) + x


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.to_q = nn.Conv2d(dim, dim, 1)

    def forward(self, fmap):
        return F.elu(self.to_q(fmap))


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 3, 3), nn.ELU())

    def forward(self, z):
        return F.hardswish(self.net(z))


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([])
        for _ in range(3):
            self.layers.append(nn.Sequential(nn.Conv2d(3, 3, 3), nn.AvgPool2d(2)))
        self.to_out = nn.Sequential(nn.Conv2d(3, 8, 3), Residual(PreNorm(8, Attention(8))))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        small = F.interpolate(x, size=(32, 32), mode="bilinear")
        return self.to_out(small)


class AugWrapper(nn.Module):
    def __init__(self, D):
        super().__init__()
        self.D = D

    def forward(self, images):
        return self.D(images)


class GAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.G = Generator()
        self.D = Discriminator()
        self.D_aug = AugWrapper(self.D)


class Trainer:
    def init_gan(self):
        self.GAN = GAN()

    def train(self, images, latents):
        G = self.GAN.G if not self.is_ddp else self.G_ddp
        D_aug = self.GAN.D_aug if not self.is_ddp else self.D_aug_ddp
        for _ in range(2):
            with torch.no_grad():
                fake = G(latents)
            images.requires_grad_()
            out = D_aug(images)
            g = torch_grad(outputs=out, inputs=images, grad_outputs=torch.ones_like(out), create_graph=True)[0]
            gp = (g.norm(2, dim=1) ** 2).mean()
            self.last_gp = gp.item()
            self.last_fake = fake
        return gp
'''


def test_a_discriminator_behind_a_wrapper_attribute_and_a_conditional_is_followed(analyze):
    text = textwrap.dedent(PENALTY)
    findings = analyze(text, backend="cpu")
    (site,) = found(findings, "MS504")
    for function in ("AugWrapper.forward", "Discriminator.forward"):
        assert f"`{function}`" in site.message
    assert "Not followed" not in site.message
    reported = {f.span.start_line for f in found(findings, "MS501")}
    assert line_of(text, 'mode="bilinear"') in reported  # in the forward the wrapper's self.D runs


def test_layers_appended_to_a_module_list_and_blocks_handed_to_blocks_are_on_the_path(analyze):
    text = textwrap.dedent(PENALTY)
    findings = analyze(text, backend="cpu")
    reported = {f.span.start_line for f in found(findings, "MS501")}
    assert line_of(text, "nn.AvgPool2d(2)))") in reported  # self.layers.append(nn.Sequential(...))
    assert line_of(text, "return F.elu(self.to_q(fmap))") in reported  # Residual(PreNorm(8, Attention(8)))
    (site,) = found(findings, "MS504")
    assert "`Attention.forward`" in site.message and "`Residual.forward`" in site.message


def test_what_self_attributes_are_set_to_after_the_penalty_is_not_on_its_path(analyze):
    # `self.last_fake = fake` once made `self` (and with it G, the generator) part of the slice.
    text = textwrap.dedent(PENALTY)
    findings = analyze(text, backend="cpu")
    generator = {line_of(text, "return F.hardswish(self.net(z))"), line_of(text, "nn.ELU())")}
    assert not generator & {f.span.start_line for f in findings if f.code.startswith("MS50")}
    (site,) = found(findings, "MS504")
    assert "Generator.forward" not in site.message


def test_a_wrapper_built_around_a_network_once_differentiated_gets_nothing(analyze):
    text = textwrap.dedent(PENALTY).replace("create_graph=True", "create_graph=False")
    findings = analyze(text, backend="cpu")
    assert not [f for f in findings if f.code.startswith("MS50")]


def test_a_result_detached_at_once_is_not_differentiated(analyze):
    text = textwrap.dedent(PENALTY).replace(
        "return F.elu(self.to_q(fmap))", "q = self.to_q(fmap)\n        q = q - F.elu(q).detach()\n        return q.softmax(-1)")
    findings = analyze(text, backend="cpu")
    reported = {f.span.start_line for f in findings if f.code.startswith("MS50")}
    assert line_of(text, "F.elu(q).detach()") not in reported
    assert line_of(text, "return q.softmax(-1)") in reported  # the same path, not detached: MS502 in PyNative


SEQUENTIAL_SUBCLASS = '''
import torch
from torch import autograd


class ConvBlock(torch.nn.Module):
    def __init__(self, c, max_pool=True):
        super().__init__()
        self.conv = torch.nn.Conv2d(c, c, 3, padding=1)
        if max_pool:
            self.max_pool = torch.nn.MaxPool2d(2)
        else:
            self.max_pool = lambda x: x

    def forward(self, x):
        return self.max_pool(torch.relu(self.conv(x)))


class ConvBase(torch.nn.Sequential):
    def __init__(self, hidden=32, layers=4):
        core = [ConvBlock(hidden)]
        for _ in range(layers - 1):
            core.append(ConvBlock(hidden))
        super(ConvBase, self).__init__(*core)


class Backbone(ConvBase):
    def forward(self, x):
        x = super(Backbone, self).forward(x)
        return x.reshape(x.size(0), -1)


def r1(x):
    net = NET
    out = net(x)
    return autograd.grad(out.sum(), x, create_graph=True)[0].pow(2).sum()
'''


def test_a_sequential_subclass_runs_the_blocks_it_passes_to_its_constructor(analyze):
    for net in ("Backbone()", "ConvBase(layers=2)"):
        text = textwrap.dedent(SEQUENTIAL_SUBCLASS).replace("NET", net)
        findings = analyze(text, backend="cpu")
        assert line_of(text, "torch.nn.MaxPool2d(2)") in {f.span.start_line for f in findings if f.code.startswith("MS50")}, net
        (site,) = found(findings, "MS504")
        assert "`ConvBlock.forward`" in site.message
