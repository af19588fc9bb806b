from torch import autograd


def r1(critic, real):
    pred = critic(real)
    return autograd.grad(pred.sum(), real, create_graph=True)[0].pow(2).sum()


def r1_of_scores(scores, real):
    return autograd.grad(scores.sum(), real, create_graph=True)[0].pow(2).sum()


def saliency(model, x):
    return autograd.grad(model(x).sum(), x)[0]
