from torch import autograd

from ..archs import build_head, build_network
from ..losses.gan_loss import r1_penalty


class GANModel:
    """As basicsr's StyleGAN2Model: the networks come from a factory of another package that
    builds whatever class its registry holds under the configured name."""

    def __init__(self, opt):
        self.opt = opt
        self.net_g = build_network(opt["network_g"])
        self.net_d = build_network(self.opt["network_d"])
        self.head = build_head(opt["head"])

    def optimize_parameters(self, noise, real_img):
        fake = self.net_g(noise)
        l_d = self.net_d(fake.detach()).mean() - self.net_d(real_img).mean()
        l_d.backward()
        real_img.requires_grad = True
        real_pred = self.net_d(real_img)
        l_d_r1 = r1_penalty(real_pred, real_img)
        l_d_r1.backward()

    def saliency(self, x):
        return autograd.grad(self.head(x).sum(), x)[0]
