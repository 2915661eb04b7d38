"""A view with no elements of a tensor with some (``x[3:]`` of 3 elements, ``x[1:1, ::2]``)
is a view as in PyTorch: it shares the version counter and ``_base``, and an in-place change
of it is recorded on the base (``CopySlices``, the view re-read by ``AsStridedBackward0``),
while an empty result of a copying op (``repeat(0, 1)``) is no view."""

from __future__ import annotations

import pytest

import symgrad


def _run(T):
    x = T.ones(2, 3, dtype=T.float64, requires_grad=True)
    a = x * 1
    v = a[2:]
    v.add_(1)
    b = x * 1
    b[1:1, ::2] += T.ones((), dtype=T.float64)
    c = x * 1
    c[:, 3:] = 2.0
    names = [
        a.grad_fn.name(),
        v.grad_fn.name(),
        b.grad_fn.name(),
        b.grad_fn.next_functions[1][0].name(),
        c.grad_fn.name(),
    ]
    facts = [a._version, b._version, c._version, v._base is a, x.repeat(0, 1)._base is None]
    (a.sum() + b.sum() + c.sum()).backward()
    return names, facts, x.grad.tolist()


def test_in_place_changes_of_empty_views_are_recorded():
    names, facts, grad = _run(symgrad)
    assert names == [
        "torch::autograd::CopySlices",
        "AsStridedBackward0",
        "torch::autograd::CopySlices",
        "AsStridedBackward0",
        "torch::autograd::CopySlices",
    ]
    assert facts == [1, 2, 1, True, True]
    assert grad == [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _run(symgrad) == _run(torch)


_OF_EMPTY = {
    # an out-of-range diagonal of a tensor with elements, and views of an empty tensor
    "diagonal(5)": ((2, 3), lambda a: a.diagonal(5)),
    "diagonal(-5)": ((2, 3), lambda a: a.diagonal(-5)),
    "diagonal of (0, 3)": ((0, 3), lambda a: a.diagonal()),
    "diagonal(0, 1, 2) of (2, 0, 3)": ((2, 0, 3), lambda a: a.diagonal(0, 1, 2)),
    "t() of (0, 3)": ((0, 3), lambda a: a.t()),
    "view(-1) of (0, 3)": ((0, 3), lambda a: a.view(-1)),
}


def _changed_empty_view(T, shape, view):
    x = T.ones(*shape, requires_grad=True)
    a = x * 1
    v = view(a)
    facts = [v._base is a, type(v.grad_fn).__name__]
    v.add_(1)
    facts += [type(v.grad_fn).__name__, type(a.grad_fn).__name__, a._version]
    a.sum().backward()
    return facts, x.grad.sum().item()


@pytest.mark.parametrize("name", list(_OF_EMPTY))
def test_empty_views_of_any_input_are_views(name):
    shape, view = _OF_EMPTY[name]
    facts, grad = _changed_empty_view(symgrad, shape, view)
    assert facts[0] is True
    assert facts[2:] == ["AsStridedBackward0", "CopySlices", 1]
    assert grad == float(symgrad.ones(shape).numel())


@pytest.mark.torch
@pytest.mark.parametrize("name", list(_OF_EMPTY))
def test_empty_views_of_any_input_against_pytorch(name):
    torch = pytest.importorskip("torch")
    shape, view = _OF_EMPTY[name]
    assert _changed_empty_view(symgrad, shape, view) == _changed_empty_view(torch, shape, view)
