"""The version of a leaf's ``.grad`` after backward, as PyTorch's AccumulateGrad leaves it: a
gradient summed in the engine's buffer was summed in place (one bump per sum), a gradient no one
else holds is kept with its version, one the caller holds or laid out otherwise is copied into a
new tensor (version 1), and a later backward adds into ``.grad`` in place (one more).

Each case returns the versions read after each step; the table holds PyTorch's.
"""

from __future__ import annotations

import warnings

from _torch_table import table_tests


def _x(T, values=(1.0, 2.0, 3.0)):
    return T.tensor(list(values), requires_grad=True)


def _square_after_no_grad_write(T):
    x = _x(T)
    with T.no_grad():
        x.mul_(2)
    seen = []
    for _ in range(2):
        (x * x).sum().backward()
        seen.append(x.grad._version)
    x.grad = None
    (x * x).sum().backward()
    return (*seen, x.grad._version)


def _versions(T, loss, steps=2, **kwargs):
    x = kwargs.pop("x", None)
    x = _x(T) if x is None else x
    seen = []
    for _ in range(steps):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the reference-cycle warning of create_graph
            loss(T, x).backward(**kwargs)
        seen.append(x.grad._version)
    return tuple(seen)


def _two_leaves_one_gradient(T):
    x, y = _x(T), _x(T)
    ((x + y) * 1).sum().backward()
    return x.grad._version, y.grad._version


def _zeroed(T):
    x = _x(T)
    (x * x).sum().backward()
    x.grad.zero_()
    return x.grad._version


def _hook(T, returned):
    x = _x(T)
    x.register_hook(lambda g: returned(g))
    (x * x).sum().backward()
    return x.grad._version


def _returned_by_function(T):
    class Twice(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = _x(T)
    Twice.apply(x).sum().backward()
    return x.grad._version


def _scalar(T, x):
    return x * x


CASES = {
    "square after a no_grad write": (_square_after_no_grad_write, (1, 2, 1)),
    # the two gradients of x * x are summed in place in the buffer
    "square": (lambda T: _versions(T, lambda T, x: (x * x).sum()), (1, 2)),
    "square of a 0-d leaf": (
        lambda T: _versions(T, _scalar, x=T.tensor(2.0, requires_grad=True)),
        (1, 2),
    ),
    "three uses": (lambda T: _versions(T, lambda T, x: (x * 2 + x * 3 + x * 4).sum()), (2, 3)),
    "one use, a new gradient kept": (lambda T: _versions(T, lambda T, x: (x * 3).sum()), (0, 1)),
    "retain_graph": (
        lambda T: _versions(T, lambda T, x: (x * 3).sum(), 1, retain_graph=True),
        (0,),
    ),
    # the expanded gradient of sum is copied
    "sum": (lambda T: _versions(T, lambda T, x: x.sum()), (1, 2)),
    "inputs=": (lambda T: _versions(T, lambda T, x: (x * x).sum(), inputs=None), (1, 2)),
    "summed into expanded": (lambda T: _versions(T, lambda T, x: (x.sum() * x).sum()), (1, 2)),
    "two adds": (
        lambda T: _versions(T, lambda T, x: ((x + 0) * (x + 0)).sum(), 1),
        (1,),
    ),
    "summed, then passed on by add": (
        lambda T: _versions(T, lambda T, x: (lambda y: y * y)(x + 0).sum(), 1),
        (1,),
    ),
    "large": (
        lambda T: _versions(T, lambda T, x: (x * x).sum(), x=T.ones(200, 200, requires_grad=True)),
        (1, 2),
    ),
    # the caller's gradient is copied
    "a leaf's own backward": (
        lambda T: _versions(T, lambda T, x: x, gradient=T.ones(3)),
        (1, 2),
    ),
    "create_graph copies": (
        lambda T: _versions(T, lambda T, x: (x + 1).sum(), create_graph=True),
        (1, 0),
    ),
    "create_graph copies a recorded gradient": (
        lambda T: _versions(T, lambda T, x: (x * x).sum(), 1, create_graph=True),
        (1,),
    ),
    "transposed gradient copied": (
        lambda T: _versions(T, lambda T, x: (x.t() * 2).sum(), x=T.ones(2, 3, requires_grad=True)),
        (1, 2),
    ),
    "two leaves, one gradient": (_two_leaves_one_gradient, (1, 0)),
    "zero_": (_zeroed, 2),
    "hook returning a new gradient": (lambda T: _hook(T, lambda g: g * 5), 0),
    "hook returning None": (lambda T: _hook(T, lambda g: None), 1),
    "custom Function": (_returned_by_function, 0),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
