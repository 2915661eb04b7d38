"""The version of a leaf's ``.grad`` after a compiled function's backward, as PyTorch's
``torch.compile`` leaves it: the compiled backward returns each gradient as a new tensor, which
AccumulateGrad keeps (version 0) unless another leaf or the caller holds it (a copy, version 1);
a later backward adds into ``.grad`` in place (one more). Eager programs sum the two gradients of
``x * x`` in place first, so there the version differs; the values are torch.compile's (2.13.0).
"""

from __future__ import annotations

import pytest

import symgrad


def _shared(x, y):
    return ((x + y) * 1).sum()  # one gradient array for both leaves


def _square(x, y):
    return (x * x).sum() + y.sum()


def _transposed(x, y):
    return (x.t() * 2).sum() + (y * 3).sum()


CASES = {
    # (versions of x.grad and y.grad after the first backward, after the second)
    "one gradient for two leaves": (_shared, [(1, 0), (2, 1)], [(1, 0), (2, 1)]),
    "a gradient summed by the program": (_square, [(1, 1), (2, 2)], [(0, 1), (1, 2)]),
    "a transposed leaf": (_transposed, [(1, 0), (2, 1)], [(1, 0), (2, 1)]),
}


def _versions(fn):
    x = symgrad.ones(2, 2, requires_grad=True)
    y = symgrad.ones(2, 2, requires_grad=True)
    seen = []
    for _ in range(2):
        fn(x, y).backward()
        seen.append((x.grad._version, y.grad._version))
    return seen


@pytest.mark.parametrize("name", CASES)
def test_grad_versions_are_torch_compiles(name):
    fn, eager, compiled = CASES[name]
    assert _versions(fn) == eager
    assert _versions(symgrad.compile(fn)) == compiled


def test_the_callers_gradient_is_copied():
    # backward(gradient=g): the leaf copies g (version 1), and g itself is left untouched
    fn = symgrad.compile(lambda x: x * 2)
    x = symgrad.ones(3, requires_grad=True)
    g = symgrad.tensor([1.0, 2.0, 3.0])
    fn(x).backward(g)
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    fn(x).backward(g)
    assert (x.grad._version, g._version, g.tolist()) == (1, 0, [1.0, 2.0, 3.0])


@pytest.mark.parametrize(
    "fn, version",
    [
        (lambda x: x * 1, 0),  # a new gradient: kept
        (lambda x: x + 0, 1),  # the caller's gradient passed through: copied
        (lambda x: x.clone(), 1),
    ],
    ids=["mul", "add", "clone"],
)
def test_a_passed_through_callers_gradient_is_copied(fn, version):
    x = symgrad.ones(3, requires_grad=True)
    g = symgrad.tensor([1.0, 2.0, 3.0])
    symgrad.compile(fn)(x).backward(g)
    assert x.grad._version == version
    assert x.grad.data_ptr() != g.data_ptr()
