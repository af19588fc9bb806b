"""A decoupled detection head in the style of YOLOX, written for PyTorch.

msport example: run `msport check examples/` to see what needs porting to MindSpore.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class BaseConv(nn.Module):
    """Conv2d -> BatchNorm -> SiLU."""

    def __init__(self, in_channels, out_channels, ksize, stride=1):
        super().__init__()
        pad = (ksize - 1) // 2
        self.conv = nn.Conv2d(in_channels, out_channels, ksize, stride, padding=pad, bias=False)
        self.bn = nn.BatchNorm2d(out_channels, eps=1e-3, momentum=0.03)
        self.act = nn.SiLU()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class YOLOXHead(nn.Module):
    def __init__(self, num_classes, width=1.0, strides=(8, 16, 32), in_channels=(256, 512, 1024)):
        super().__init__()
        self.num_classes = num_classes
        self.strides = strides
        hidden = int(256 * width)
        self.stems = nn.ModuleList()
        self.cls_convs = nn.ModuleList()
        self.reg_convs = nn.ModuleList()
        self.cls_preds = nn.ModuleList()
        self.reg_preds = nn.ModuleList()
        self.obj_preds = nn.ModuleList()
        for channels in in_channels:
            self.stems.append(BaseConv(int(channels * width), hidden, ksize=1))
            self.cls_convs.append(nn.Sequential(BaseConv(hidden, hidden, 3), BaseConv(hidden, hidden, 3)))
            self.reg_convs.append(nn.Sequential(BaseConv(hidden, hidden, 3), BaseConv(hidden, hidden, 3)))
            self.cls_preds.append(nn.Conv2d(hidden, num_classes, 1))
            self.reg_preds.append(nn.Conv2d(hidden, 4, 1))
            self.obj_preds.append(nn.Conv2d(hidden, 1, 1))
        self.initialize_biases(1e-2)

    def initialize_biases(self, prior_prob):
        for conv in self.cls_preds:
            nn.init.constant_(conv.bias, -math.log((1 - prior_prob) / prior_prob))

    def get_grid(self, hsize, wsize, stride, dtype):
        yv, xv = torch.meshgrid([torch.arange(hsize), torch.arange(wsize)])
        grid = torch.stack((xv, yv), 2).view(1, 1, hsize, wsize, 2).type(dtype)
        return grid * stride

    def forward(self, features):
        outputs = []
        for k, (stem, cls_conv, reg_conv, x) in enumerate(zip(self.stems, self.cls_convs, self.reg_convs, features)):
            x = stem(x)
            cls_out = self.cls_preds[k](cls_conv(x))
            reg_feat = reg_conv(x)
            reg_out = self.reg_preds[k](reg_feat)
            obj_out = self.obj_preds[k](reg_feat)
            outputs.append(torch.cat([reg_out, obj_out.sigmoid(), cls_out.sigmoid()], 1))
        batch = outputs[0].size(0)
        flat = torch.cat([out.flatten(start_dim=2) for out in outputs], dim=2).permute(0, 2, 1)
        return flat.reshape(batch, -1, 5 + self.num_classes)

    def postprocess(self, prediction, conf_thre=0.7):
        """Keeps the boxes whose score passes the threshold: the number kept depends on the data."""
        box_corner = prediction.new(prediction.shape)
        box_corner[:, :, 0] = prediction[:, :, 0] - prediction[:, :, 2] / 2
        scores, class_pred = torch.max(prediction[:, :, 5:], 2, keepdim=True)
        conf_mask = (prediction[:, :, 4] * scores.squeeze(-1) >= conf_thre).squeeze()
        detections = prediction[0][conf_mask]
        num_kept = int(conf_mask.sum())
        top = torch.topk(detections[:, 4], k=num_kept)
        keep = torch.nonzero(conf_mask)
        return detections, top, keep

    def losses(self, obj_preds, obj_targets, fg_mask):
        loss_obj = F.binary_cross_entropy_with_logits(obj_preds, obj_targets, reduction="none")
        num_fg = max(fg_mask.sum().item(), 1)
        return loss_obj.sum() / num_fg
