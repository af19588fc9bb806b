"""Labeled corpus: patterns taken from real model code (torchvision, timm) during an audit of
the dynamic-shape checks; each class names the file it was reduced from. `# MS2xx` marks a
line that must have that finding; `# ok` a line that must have none."""

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision.ops import boxes as box_ops


class DegenerateBoxCheck(nn.Module):
    # torchvision/models/detection/{generalized_rcnn,fcos,retinanet,ssd}.py: the first bad box
    # is looked up with where(...)[0][0], a single index: its row has a fixed shape.
    def forward(self, boxes):
        degenerate = boxes[:, 2:] <= boxes[:, :2]
        bb_idx = torch.where(degenerate.any(dim=1))[0][0]  # MS201
        first_bad = boxes[bb_idx]  # ok
        rows = torch.nonzero(degenerate.any(dim=1))  # MS201
        first_row = rows[0]  # ok
        first_pair = boxes[rows[0, 0]]  # ok
        column = rows[:, 0]
        picked = boxes[column]  # MS205
        ids = torch.where(degenerate.any(dim=1))[0]  # MS201
        all_bad = boxes[ids]  # MS205
        return first_bad, first_row, first_pair, picked, all_bad


def _fake_cast(v: torch.Tensor) -> float:
    # torchvision/models/detection/transform.py (_fake_cast_onnx): an identity helper typed
    # as taking a tensor; what it returns is what its caller passes.
    return v


class ResizeBySizeTensor(nn.Module):
    # torchvision/models/detection/transform.py (_resize_image_and_masks): a scale computed from
    # a tensor built out of the image's shape is known when the graph is compiled.
    def forward(self, image):
        im_shape = torch.tensor(image.shape[-2:])
        min_size = torch.min(im_shape).to(dtype=torch.float32)
        scale = torch.min(800.0 / min_size, 1333.0 / torch.max(im_shape).to(dtype=torch.float32))
        factor = scale.item()
        resized = F.interpolate(image[None], scale_factor=factor, mode="bilinear")  # ok
        data_scale = image.mean().item()
        blurred = F.interpolate(image[None], scale_factor=data_scale)  # MS210
        cast = _fake_cast(scale)
        traced = F.interpolate(image[None], scale_factor=cast)  # ok
        cast_data = _fake_cast(image.amax())
        traced_data = F.interpolate(image[None], scale_factor=cast_data)  # MS210
        return resized, blurred, traced, traced_data


class PerImageScores(nn.Module):
    # torchvision/models/detection/ssd.py (postprocess_detections): rows of tensors iterated
    # together with zip are tensors, and comparing them gives masks.
    def forward(self, bbox_regression, pred_scores, thresh: float = 0.05):
        outputs = []
        for boxes, scores in zip(bbox_regression, F.softmax(pred_scores, dim=-1)):
            score = scores[:, 1]
            keep_idxs = score > thresh
            kept = score[keep_idxs]  # MS202
            outputs.append(kept)
        for index, row in enumerate(pred_scores):
            outputs.append(row[row > 0])  # MS202
        return outputs


class AdaptiveSampling(nn.Module):
    # torchvision/ops/roi_align.py (_roi_align): the grid size is a constant when the flag is set
    # and a tensor otherwise; the range is only built under the same flag.
    def __init__(self, sampling_ratio=2):
        super().__init__()
        self.sampling_ratio = sampling_ratio

    def forward(self, rois, pooled_height: int = 7):
        exact_sampling = self.sampling_ratio > 0
        roi_height = rois[:, 4] - rois[:, 2]
        grid_h = self.sampling_ratio if exact_sampling else torch.ceil(roi_height / pooled_height)
        if exact_sampling:
            iy = torch.arange(grid_h)  # ok
        else:
            iy = torch.arange(rois.shape[0])  # ok
        if not exact_sampling:
            ok_too = torch.arange(rois.shape[0])  # ok
        else:
            ok_too = torch.arange(grid_h)  # ok
        count = torch.arange(grid_h)  # MS210
        return iy, ok_too, count


class DetectionPostprocess(nn.Module):
    # torchvision/models/detection/{rpn,roi_heads,fcos,retinanet,ssd}.py: non-maximum suppression
    # keeps as many boxes as survive, and the results are gathered with what it kept.
    def forward(self, boxes, scores, labels):
        small = box_ops.remove_small_boxes(boxes, 1e-3)  # MS201
        boxes, scores = boxes[small], scores[small]  # MS205
        keep = box_ops.batched_nms(boxes, scores, labels, 0.5)  # MS201
        kept = boxes[keep]  # MS205
        plain = torchvision.ops.nms(boxes, scores, 0.7)  # MS201
        top = plain[:100]  # ok
        return kept, top
