"""Helpers, factories and data-pipeline code around models: what is compiled and what is not.
Reduced from timm's layers/ and _builder.py, yolov5's utils, mmdet's losses and data pipelines."""

import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset


def ndgrid(*tensors):
    try:  # MS401
        return torch.meshgrid(*tensors, indexing="ij")
    except TypeError:
        return torch.meshgrid(*tensors)


def fast_layer_norm(x, shape, weight, bias, eps=1e-5):
    with torch.autocast(device_type=x.device.type, enabled=False):  # MS404
        return F.layer_norm(x, shape, weight, bias, eps)


def box_iou_loss(pred, target, eps=1e-7):
    with torch.no_grad():  # MS404
        area = (target[:, 2] - target[:, 0]) * (target[:, 3] - target[:, 1])
    if area.min() < eps:  # MS413
        area = area + eps
    return 1 - F.cosine_similarity(pred, target).mean() / area.mean()


def checkpoint_filter_fn(state_dict, model):
    import re  # ok
    out = {}
    for k, v in state_dict.items():
        k = re.sub(r"^module\.", "", k)
        out[k] = v.float()
    del state_dict  # ok
    return out


def create_model(name, pretrained=False, **kwargs):
    kwargs.setdefault("num_classes", 1000)  # ok
    try:  # ok
        from timm import create_model as create
    except ImportError:
        return None
    return create(name, pretrained=pretrained, **kwargs)


def init_seeds(seed=0):
    random.seed(seed)  # ok
    np.random.seed(seed)  # ok
    torch.manual_seed(seed)


class MosaicDataset(Dataset):
    def __init__(self, files):
        self.files = files
        self.cache = {}

    def __getitem__(self, index):
        try:  # ok
            img = np.load(self.files[index])
        except OSError:
            img = np.zeros((3, 32, 32), np.float32)
        if random.random() < 0.5:  # ok
            img = img[:, ::-1]
        self.cache[index] = img  # ok
        return torch.from_numpy(img.copy())

    def __len__(self):
        return len(self.files)


def collate_fn(batch):
    images = torch.stack([b for b in batch])
    del batch  # ok
    return images


class Detector(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.cache = {}
        self.cache["anchors"] = torch.zeros(1)  # ok
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        feats = self.backbone(x)
        grid = ndgrid(torch.arange(4), torch.arange(4))
        return self.norm(feats), grid

    def fuse(self):
        for m in self.modules():  # ok
            if hasattr(m, "bn"):
                del m.bn  # ok
        return self

    def no_weight_decay(self):
        return {"pos_embed", "cls_token"}  # ok


def register_feature_hooks(model, features):
    def hook(module, inputs, output):
        features.append(output)

    for name, module in model.named_modules():
        module.register_forward_pre_hook(hook)  # MS414


if __name__ == "__main__":
    try:  # ok
        detector = Detector(nn.Identity())
    except RuntimeError:
        detector = None
