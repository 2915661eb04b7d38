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
