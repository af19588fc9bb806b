"""Labeled corpus: point/centre assigners, pair miners and a class-balanced loss (the style of the
detection and metric-learning libraries, written afresh). Values made in forward reach methods of
the same class and module functions as arguments: a mask stays a mask there. `# MS2xx` marks a
line that must have that finding; `# ok` a line that must have none."""

import torch
import torch.nn as nn


def keep_close(distances, close):
    return distances[close]  # MS202


def scale_all(distances, factor):
    return distances * factor  # ok


class NearestPointAssigner(nn.Module):
    def __init__(self, pos_num=3):
        super().__init__()
        self.pos_num = pos_num

    def forward(self, points, levels, gt_levels):
        order = torch.arange(points.shape[0])
        chosen = order.new_zeros(order.shape)
        for k in range(gt_levels.shape[0]):  # ok
            on_level = gt_levels[k] == levels
            candidates = order[on_level]  # MS202
            dist = points[on_level, 0]  # MS202
            nearest, nearest_idx = torch.topk(dist, self.pos_num, largest=False)  # ok
            picked = candidates[nearest_idx]  # ok
            closer = nearest < 0.5
            chosen[picked[closer]] = k + 1  # MS202
        return self.labels_of(chosen, gt_levels)

    def labels_of(self, chosen, gt_levels):
        labels = chosen.new_full(chosen.shape, -1)
        pos = torch.nonzero(chosen > 0, as_tuple=False).squeeze(1)  # MS201
        if pos.numel() > 0:  # MS211
            labels[pos] = gt_levels[chosen[pos] - 1]  # MS205
        return labels


class PairMiner(nn.Module):
    def __init__(self, margin=0.2, collect_stats=True):
        super().__init__()
        self.margin = margin
        self.collect_stats = collect_stats

    def forward(self, embeddings, labels):
        angles = embeddings.sum(1)
        hard = angles > self.margin
        self.record(angles, hard)
        near = keep_close(angles, hard)
        far = scale_all(angles, 2.0)
        return near, far, labels[hard]  # MS202

    def record(self, angles, hard):
        if self.collect_stats:  # ok
            self.mean_angle = angles.mean()  # ok
            if torch.sum(hard) > 0:  # MS211
                self.mean_hard = angles[hard].mean()  # MS202


class ClassBalancedLoss(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.register_buffer("seen", torch.zeros(num_classes))

    def forward(self, scores, labels):
        present = labels.unique()  # MS201
        for c in present:  # MS211
            self.seen[c] += (labels == c).sum()  # ok
        for row in scores:  # ok
            self.seen += row.sigmoid()  # ok
        weights = self.seen[labels]  # ok
        return (scores.log_softmax(1)[:, 0] * weights).mean()


class KeypointLoss(nn.Module):
    def forward(self, pred_kpt, gt_kpt, kpt_mask):
        if not kpt_mask.any():  # MS211
            return pred_kpt.sum() * 0
        visible = pred_kpt[kpt_mask]  # MS202
        return (visible - gt_kpt[kpt_mask]).abs().mean()  # MS202


class PlainLoss(nn.Module):
    def forward(self, pred, target):
        if not target.any():  # ok
            return pred.sum() * 0
        for row in range(pred.shape[0]):  # ok
            if pred[row].max() > 1:  # ok
                continue
            target = target + pred[row]  # ok
        return (pred - target).abs().mean()
