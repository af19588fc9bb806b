"""Messages and state in forward: logging, warnings and stream writes (MS424), print of a shape
(MS423), a dict handed over by the owner and changed with string keys (MS408), a sub-layer's
attribute set in forward (MS419), a norm layer updating its base's buffer; and the look-alikes
that compile and agree: messages formatting a tensor value, warnings under a shape test, a
print of one string variable, a device cache refilled under its own test, a module put back
into its holder list. Reduced from patterns of mmdet's YOLOv3 head, DDQ decoder and grid RoI
head, sentence-transformers' contrastive losses, basicsr's DCN pack, ultralytics' model base,
torch_geometric's InstanceNorm, kornia's DeDoDe encoder and speechbrain's beam searcher (an
attribute a helper creates and a later method reads, in a subclass of a base of the same module),
written fresh."""

import logging
import sys
import warnings

import torch
import torch.nn as nn
from torch.nn.modules.instancenorm import _InstanceNorm

from mmdet.registry import MODELS

logger = logging.getLogger(__name__)


class OverlapHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 1)
        self.checked = False

    def forward(self, x, target):
        pos_and_neg = target.sum(-1)
        if torch.max(pos_and_neg) > 1.0:  # MS413
            warnings.warn("positive and negative samples overlap")  # MS424
            pos_and_neg = pos_and_neg.clamp(0, 1)
        offset = self.conv(x).abs().mean()
        if offset > 50:  # MS413
            logger.warning(f"offset mean {offset} is larger than 50")  # ok: the tensor value goes to Python when taken
        if x.shape[1] != 8:
            warnings.warn("expected 8 channels")  # ok: a shape test, shown once either way
        logger.info("head forward")  # MS424
        logger.debug("input %s", x.shape)  # MS424
        logger.info(f"loss {offset.mean()}")  # ok: formats a tensor value
        logger.warning_once("the head runs in float32")  # ok: once in PyNative too
        sys.stdout.write("step\n")  # MS424
        print(f"feature map {x.shape}")  # MS423
        print(f"mean offset {offset}")  # ok: formats a tensor value
        print("channels {}".format(x.shape[1]))  # MS423
        print("offset %s of %s" % (offset, x.shape))  # ok: Python formats it
        print("offset {}".format(offset))  # ok: formats a tensor value
        note = "head" + " done"
        print(note)  # ok: one string
        return x * pos_and_neg[..., None, None]


class DistinctQueryDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16)
        self.bias_cache = {}
        self.table = nn.ParameterDict({"scale": nn.Parameter(torch.ones(1))})

    def select(self, query):
        mask = query.sum(-1) > 0
        self.cache_dict["distinct_query_mask"].append(~mask)  # MS408
        return query

    def forward(self, query):
        self.cache_dict["distinct_query_mask"] = []  # MS408
        key = str(query.device)
        if key not in self.bias_cache:
            self.bias_cache[key] = self.proj.weight[:4]  # ok: refilled under its own test
        self.table["scale"] = self.table["scale"]  # ok: a ParameterDict, not a Python dict
        return self.select(self.proj(query))


class GridRoIHead(nn.Module):
    def __init__(self, grid_head):
        super().__init__()
        self.grid_head = MODELS.build(grid_head)
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        self.grid_head.test_mode = True  # MS419
        self.fc.weight.requires_grad = False  # ok: a parameter's flag, not a sub-layer attribute
        return self.grid_head(self.fc(x))


class InstanceNorm(_InstanceNorm):
    def forward(self, x):
        mean = x.mean(0)
        self.running_mean = 0.9 * self.running_mean + 0.1 * mean  # ok: the base's buffer
        return x - mean


class FrozenEncoder(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = [backbone]

    def forward(self, x):
        backbone = self.backbone[0]
        if backbone.weight.dtype != x.dtype:
            self.backbone[0] = backbone.to(x.dtype)  # ok: the same module put back
        return self.backbone[0](x)


class BaseSearcher(nn.Module):
    def __init__(self, beam_size):
        super().__init__()
        self.beam_size = beam_size


class BeamSearcher(BaseSearcher):
    def init_search(self, enc):
        self.batch_size = enc.shape[0]  # MS419
        self.steps_taken = 0  # ok: nothing compiled reads it

    def step(self, enc):
        return enc.reshape(self.batch_size, -1) * self.beam_size

    def forward(self, enc):
        self.init_search(enc)
        return self.step(enc)


class ListDataParallel(nn.DataParallel):
    def forward(self, data_list):
        if len(data_list) == 0:
            logging.warning("received an empty data list")  # ok: host code, never compiled
            return None
        return self.module(data_list[0])


def train_step(model, batch):
    loss = model(batch).mean()
    logger.info("step done")  # ok: the training loop is not compiled
    sys.stdout.write(f"loss {loss.item()}\n")  # ok
    return loss
