from copy import deepcopy

from .registry import ARCH_REGISTRY, HEAD_REGISTRY
from . import critic_arch, generator_arch, head_arch  # noqa: F401  (registers the classes)

__all__ = ["build_network", "build_head"]


def build_network(opt):
    opt = deepcopy(opt)
    network_type = opt.pop("type")
    net = ARCH_REGISTRY.get(network_type)(**opt)
    return net


def build_head(opt):
    return HEAD_REGISTRY.get(opt["type"])()
