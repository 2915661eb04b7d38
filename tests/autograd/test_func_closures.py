"""``symgrad.func`` transforms of a function that closes over tensors requiring grad keep
their results' graph back to them, as PyTorch's do (a meta-gradient through ``grad``); a
function of its inputs alone still gives plain tensors."""

from __future__ import annotations

import pytest

import symgrad
from symgrad import func

W = [1.0, 2.0, 3.0]
X = [0.5, -1.0, 2.0]

TRANSFORMS = {
    "grad": (lambda w, x: func.grad(lambda x: (x * x * w).sum())(x), [1.0, -2.0, 4.0]),
    "grad_and_value": (
        lambda w, x: func.grad_and_value(lambda x: (x * x * w).sum())(x)[0],
        [1.0, -2.0, 4.0],
    ),
    "vjp": (lambda w, x: func.vjp(lambda x: x * x * w, x)[1](symgrad.ones(3))[0], [1.0, -2.0, 4.0]),
    "jacrev": (lambda w, x: func.jacrev(lambda x: x * x * w)(x), [1.0, -2.0, 4.0]),
    "jacfwd": (lambda w, x: func.jacfwd(lambda x: x * x * w)(x), [1.0, -2.0, 4.0]),
    "jvp": (
        lambda w, x: func.jvp(lambda x: x * x * w, (x,), (symgrad.ones(3),))[1],
        [1.0, -2.0, 4.0],
    ),
    "hessian": (lambda w, x: func.hessian(lambda x: (x * x * x * w).sum())(x), [3.0, -6.0, 12.0]),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_closed_over_parameter_gets_its_gradient(name: str) -> None:
    fn, expected = TRANSFORMS[name]
    w = symgrad.tensor(W, requires_grad=True)
    result = fn(w, symgrad.tensor(X))
    assert result.requires_grad
    result.sum().backward()
    assert w.grad.tolist() == pytest.approx(expected)


def test_a_pure_function_gives_plain_tensors() -> None:
    g = func.grad(lambda x: (x * x).sum())(symgrad.tensor(X))
    assert not g.requires_grad and g.grad_fn is None
    w = symgrad.tensor(W, requires_grad=True)
    with symgrad.no_grad():  # no graph to keep under no_grad
        assert not func.grad(lambda x: (x * x * w).sum())(symgrad.tensor(X)).requires_grad


def test_maml_meta_gradient() -> None:
    """One inner step of gradient descent, then the outer loss's gradient through it."""
    w = symgrad.tensor([2.0], requires_grad=True)
    x, y = symgrad.tensor([1.5]), symgrad.tensor([1.0])
    inner = func.grad(lambda v: ((v * x - y) ** 2).sum())(w)
    adapted = w - 0.1 * inner
    ((adapted * x - y) ** 2).sum().backward()
    # d/dw of (x (w - 0.1 * 2 x (w x - y)) - y)^2 = 2 r x (1 - 0.2 x^2), r = x w' - y
    w_adapted = 2.0 - 0.1 * 2 * 1.5 * (2.0 * 1.5 - 1.0)
    r = 1.5 * w_adapted - 1.0
    assert w.grad.item() == pytest.approx(2 * r * 1.5 * (1 - 0.2 * 1.5**2))
