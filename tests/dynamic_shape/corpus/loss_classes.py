"""Labeled corpus: losses written as plain classes with __call__ and helpers that build lists of
index tensors (the detection-model style of yolov5/ultralytics, written afresh). `# MS2xx` marks a
line that must have that finding; `# ok` a line that must have none."""

import torch
import torch.nn as nn


class AnchorLoss:
    def __init__(self, model, num_layers=3):
        self.nl = num_layers
        self.bce = nn.BCEWithLogitsLoss()
        self.anchors = model.anchors

    def __call__(self, preds, targets):
        lbox = torch.zeros(1)
        tcls, tbox, indices = self.build_targets(preds, targets)
        for i, pi in enumerate(preds):
            b, a, gj, gi = indices[i]
            tobj = torch.zeros(pi.shape[:4])  # ok
            picked = pi[b, a, gj, gi]  # MS205
            tobj[b, a, gj, gi] = 1.0  # ok
            lbox += (1.0 - picked[:, 4]).mean()
            lbox += self.bce(pi[..., 4], tobj)
        return lbox

    def build_targets(self, preds, targets):
        tcls, tbox, indices = [], [], []
        gain = torch.ones(7)
        for i in range(self.nl):
            t = targets * gain
            ratio = t[..., 4:6] / self.anchors[i][:, None]
            match = torch.max(ratio, 1 / ratio).max(2)[0] < 4.0
            t = t[match]  # MS202
            near = (t[:, 2:4] % 1 < 0.5).T
            j, k = near
            both = torch.stack((torch.ones_like(j), j, k))
            t = t.repeat((3, 1, 1))[both]  # MS202
            b, c = t[:, :2].long().T
            gij = t[:, 2:4].long()
            gi, gj = gij.T
            indices.append((b, t[:, 6].long(), gj, gi))
            tbox.append(torch.cat((t[:, 2:4] - gij, t[:, 4:6]), 1))
            tcls.append(c)
        return tcls, tbox, indices


class PairwiseLoss:
    def __call__(self, embeddings, labels):
        same = labels[:, None] == labels[None, :]
        pos = [embeddings[row] for row in same]  # MS202
        widths = [e.shape[0] for e in embeddings]  # ok
        parts = {"pos": same, "count": labels.shape[0]}
        chosen = embeddings[parts["pos"][0]]  # MS202
        total = embeddings[: parts["count"]]  # ok
        return pos, widths, chosen, total


def train_one_epoch(model, loader, optimizer):
    criterion = AnchorLoss(model)
    pairwise = PairwiseLoss()
    for images, targets, labels in loader:
        preds = model(images)
        loss = criterion(preds, targets) + pairwise(preds[0], labels)[2].sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
