# msport-test: backend=cpu
# MindSpore code already on COOTensor/CSRTensor: what fails on CPU, the int32 trap, deprecated ops.
import mindspore as ms
import numpy as np
from mindspore import COOTensor, CSRTensor, Tensor, nn, ops


def build(edges, weights, n):
    adj = COOTensor(Tensor(edges, ms.int32), weights, (n, n))  # MS604
    adj = adj.coalesce()  # ok
    return adj + adj  # ok


def build64(edges, weights, n):
    adj = COOTensor(Tensor(edges, ms.int64), weights, (n, n))  # ok
    adj = adj.coalesce()  # ok
    return adj + adj  # ok


def spmm(indptr, indices, values, dense):
    csr = CSRTensor(indptr, indices, values, (4, 4))  # ok
    out = csr.mm(dense)  # MS602
    total = csr.sum(1)  # MS602
    relu = ops.csr_relu(csr)  # ok
    return out, total, relu.to_dense()  # ok


def old_api(indices, values, dense):
    out = ops.SparseTensorDenseMatmul()(indices, values, (4, 4), dense)  # MS606
    new = nn.SparseTensorDenseMatmul()(indices, values, (4, 4), dense)  # ok
    return out, new


def dense_to_sparse(x):
    coo = x.to_coo()  # ok
    return coo.to_dense()  # ok
