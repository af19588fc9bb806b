# msport-test: backend=ascend
# Sparse embeddings handled in both layouts, guarded by is_sparse the way retrieval code does it
# (labels for MindSpore 2.10 on Ascend, where msport reads each counterpart's documented platforms).
import torch


def to_same_kind(a, b):
    if a.is_sparse and not b.is_sparse:
        return a, b.to_sparse()  # ok
    return a, b


def dot_scores(a, b):
    if a.is_sparse:
        return torch.mm(a, b.transpose(0, 1)).to_dense()  # MS602
    return torch.mm(a, b.transpose(0, 1))  # ok


def normalize(embeddings):
    if not embeddings.is_sparse:
        return torch.nn.functional.normalize(embeddings, p=2, dim=1)  # ok
    else:
        norms = torch.sparse.sum(embeddings * embeddings, dim=1)  # MS601
        return norms


def count_active(embeddings):
    sparse = embeddings.to_sparse()  # ok
    sparse = sparse.coalesce()  # MS602
    ones = torch.sparse_coo_tensor(sparse.indices(), torch.ones_like(sparse.values()), sparse.size())  # MS605
    return torch.sparse.sum(ones, dim=0).to_dense()  # MS601


def stacked(items):
    return torch.cat([items[0].to_sparse(), items[1].to_sparse()])  # MS602
