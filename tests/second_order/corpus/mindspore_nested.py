# msport-test: backend=cpu mode=pynative
# MindSpore code that differentiates twice: nested ms.grad in PyNative (where reductions make it
# silently zero), the tutorial's GradNet cell with GradOperation, and ops.derivative.
import mindspore as ms
from mindspore import nn, ops


def energy(x):
    return ops.sum(x, 0).pow(2).sum()  # MS503


def penalty(x):
    return ms.grad(energy)(x).sum()  # MS504, MS505


def second_derivative(x):
    return ms.grad(penalty)(x)  # ok


def compiled(x):
    return ms.grad(lambda t: ms.jit(ms.grad(energy))(t).sum())(x)  # MS504


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)  # ok

    def construct(self, x):
        return ops.log_softmax(self.dense(x), -1)  # MS501


class GradNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.net = Net()
        self.grad_op = ops.GradOperation()

    def construct(self, x):
        return self.grad_op(self.net)(x)  # MS504


def hessian_of_net(x):
    return ops.GradOperation()(GradNet())(x)  # ok


def sine(x):
    return ops.sin(x)  # ok


def taylor(x):
    return ops.derivative(sine, (x,), 3)  # MS504


def first_order_only(x):
    return ms.grad(energy)(x)  # ok
