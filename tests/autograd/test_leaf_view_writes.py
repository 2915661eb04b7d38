"""A view made a leaf with ``requires_grad_()`` (``a.reshape(3, 4).requires_grad_()``, ``a``
requiring no grad) is a view of a leaf: changing it, or any view of it, in place while the
graph records is refused with PyTorch's error (the leaf kept no history; the change was
recorded on it as an ``AsStridedBackward0``, making it a non-leaf)."""

from __future__ import annotations

import pytest

import symgrad

WORDS = "a view of a leaf Variable that requires grad is being used in an in-place operation"


def _leaf_view(T=symgrad):
    return T.arange(12.0, dtype=T.float64).reshape(3, 4).requires_grad_(True)


CHANGES = {
    "mul_": lambda x: x[0].mul_(2),
    "self_mul_": lambda x: x.mul_(2),
    "setitem": lambda x: x[0].__setitem__(0, 1.0),
    "copy_": lambda x: x[1:, 1].copy_(x.detach()[1:, 0]),
    "unsqueeze_": lambda x: x[0].unsqueeze_(0),
    "t_": lambda x: x[1:].t_(),
}


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_refused(name):
    x = _leaf_view()
    with pytest.raises(RuntimeError, match=WORDS):
        CHANGES[name](x)
    assert x.is_leaf and x.grad_fn is None
    assert x.tolist()[0] == [0.0, 1.0, 2.0, 3.0]


def test_allowed_where_pytorch_allows():
    x = _leaf_view()
    with symgrad.no_grad():
        x[0].mul_(2)
    x.detach()[1].mul_(-1)
    assert x.is_leaf and x[:2, 1].tolist() == [2.0, -5.0]
    a = symgrad.zeros(3, 4, dtype=symgrad.float64)
    w = symgrad.ones(4, dtype=symgrad.float64, requires_grad=True)
    a.view(12)[:4].add_(w)  # a view of a leaf requiring no grad, given a gradient
    assert type(a.grad_fn).__name__ == "CopySlices"


def _run(T):
    out = []
    for name in sorted(CHANGES):
        x = _leaf_view(T)
        try:
            CHANGES[name](x)
            out.append((name, "ok", x.is_leaf))
        except RuntimeError as exc:
            out.append((name, str(exc).splitlines()[0], x.is_leaf))
    return out


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _run(torch) == _run(symgrad)
