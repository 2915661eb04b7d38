"""func.grad of a function whose output does not depend on its inputs: zeros, as PyTorch's
(it raised, since the output required no grad)."""

from __future__ import annotations

import numpy as np

import symgrad
from symgrad import func


def test_grad_of_a_constant_function_is_zeros() -> None:
    x = symgrad.tensor([1.0, 2.0])
    g = func.grad(lambda x: symgrad.tensor(3.0))(x)
    assert g.tolist() == [0.0, 0.0] and g.dtype is symgrad.float32 and not g.requires_grad


def test_grad_and_value_of_a_detached_function() -> None:
    x = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64)
    g, value = func.grad_and_value(lambda x: (x.detach() ** 2).sum())(x)
    assert g.tolist() == [0.0, 0.0] and g.dtype is symgrad.float64 and value.item() == 5.0


def test_grad_with_several_argnums_of_a_constant_function() -> None:
    x, y = symgrad.ones(2), symgrad.ones(3)
    gx, gy = func.grad(lambda x, y: symgrad.tensor(1.0), argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.numpy(), np.zeros(2))
    np.testing.assert_array_equal(gy.numpy(), np.zeros(3))
