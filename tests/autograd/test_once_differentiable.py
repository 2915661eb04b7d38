"""once_differentiable as PyTorch's: the backward records nothing, and a double backward
through it raises (it was silently differentiated)."""

from __future__ import annotations

import pytest

import symgrad
from symgrad.autograd.function import once_differentiable


class _Square(symgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # noqa: ANN001, ANN205
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):  # noqa: ANN001, ANN205
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_a_double_backward_through_it_raises() -> None:
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    (g,) = symgrad.autograd.grad((_Square.apply(x) ** 2).sum(), x, create_graph=True)
    assert g.tolist() == [4.0, 32.0] and type(g.grad_fn).__name__ == "Error"
    with pytest.raises(RuntimeError, match="differentiate twice a function that was marked"):
        g.sum().backward()


def test_the_error_is_raised_where_a_path_reaches_it() -> None:
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    (g,) = symgrad.autograd.grad((_Square.apply(x) * x).sum(), x, create_graph=True)
    assert g.tolist() == [3.0, 12.0]
    names = [type(n).__name__ for n, _ in g.grad_fn.next_functions]
    assert names == ["MulBackward0", "Error"]
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_a_constant_incoming_gradient_gives_a_plain_result() -> None:
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    (g,) = symgrad.autograd.grad(_Square.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 4.0] and not g.requires_grad


def test_a_first_backward_is_unchanged() -> None:
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    (_Square.apply(x) ** 2).sum().backward()
    assert x.grad.tolist() == [4.0, 32.0]
