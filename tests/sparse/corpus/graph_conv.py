# msport-test: backend=cpu
# A graph convolution over a normalised sparse adjacency, as graph libraries write it (labels for
# MindSpore 2.10 on CPU: what each sparse operation becomes there).
import torch
import torch.nn as nn


def normalized_adjacency(edge_index, num_nodes):
    weight = torch.ones(edge_index.size(1))
    adj = torch.sparse_coo_tensor(edge_index, weight, (num_nodes, num_nodes))  # ok
    adj = adj.coalesce()  # MS605
    deg = torch.sparse.sum(adj, dim=1).to_dense()  # MS601
    inv = deg.pow(-0.5)  # ok
    rows, cols = adj.indices()  # MS605
    values = inv[rows] * adj.values() * inv[cols]  # MS605
    return torch.sparse_coo_tensor(adj.indices(), values, adj.shape)  # MS605


class GraphConv(nn.Module):
    def __init__(self, edge_index, num_nodes, width):
        super().__init__()
        self.lin = nn.Linear(width, width)  # ok
        self.adj = torch.sparse_coo_tensor(edge_index, torch.ones(edge_index.size(1)), (2048, 2048))  # ok

    def forward(self, x):
        h = self.lin(x)  # ok
        out = torch.sparse.mm(self.adj, h)  # MS605
        back = torch.sparse.mm(self.adj.t(), h)  # MS601, MS605
        twice = self.adj + self.adj  # ok
        return out + back + twice.to_dense()  # ok


def propagate_csr(adj, x, steps):
    csr = adj.to_sparse_csr()  # ok
    for _ in range(steps):
        x = csr @ x  # MS602
    return torch.mv(csr, x[:, 0])  # MS602


def batched(edge_index, weights):
    return torch.sparse_coo_tensor(edge_index, weights, (8, 512, 512))  # MS603


def dense_only(x, w):
    y = x @ w  # ok
    return y.t().sum(1)  # ok


def column_compressed(ccol, rows, values, n):
    # CSC and block layouts have no MindSpore class; reading a CSR's compressed rows is a rename
    adj = torch.sparse_csc_tensor(ccol, rows, values, (n, n))  # MS601
    blocks = torch.eye(8).to_sparse_bsr((2, 2))  # MS601
    dense = torch.zeros(4, 4).to_sparse(layout=torch.sparse_csc)  # MS601
    csr = torch.eye(4).to_sparse_csr()  # ok
    degree = csr.crow_indices()[1:] - csr.crow_indices()[:-1]  # ok
    return adj, blocks, dense, degree
