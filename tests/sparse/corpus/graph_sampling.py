# msport-test: backend=cpu
# Sparse adjacency handling as graph-learning code writes it (link prediction, pooling, message
# passing over any layout): the tensors arrive as arguments, and coalesce() tells that they are COO.
import torch


def personalized_pagerank(edge_index, weights, n):
    ppr = torch.sparse_coo_tensor(edge_index, weights, (n, n))  # ok
    return ppr.coalesce()  # MS605


def pair_features(adj, ppr, batch):
    adj2 = adj.coalesce().bool().int()  # MS605
    src_adj = torch.index_select(adj2, 0, batch[0])  # MS601
    tgt_adj = adj2.index_select(0, batch[1])  # MS601
    common = src_adj * tgt_adj  # MS601
    scaled = common * 0.5  # ok
    scores = ppr.coalesce()
    rows = scores.indices()  # MS605
    values = scores.values()  # MS605
    return rows[:, values > 0], scaled


def sources(edge_index, dim):
    if edge_index.layout == torch.sparse_coo:
        return edge_index._indices()[1 - dim]  # MS605
    if edge_index.layout == torch.sparse_csr:
        return edge_index.col_indices()  # ok
    return edge_index.row_indices()  # MS601


def column_pointers(adj):
    return adj.ccol_indices()  # MS601


def dense_lookalikes(x, index):
    picked = torch.index_select(x, 0, index)  # ok
    flags = x.int()  # ok
    both = picked * flags  # ok
    return both.t()  # ok
