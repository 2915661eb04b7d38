"""``y.backward()`` on one output of an op with several: the gradient is that output's.

A graph of one node whose edges all lead to leaves runs without the engine's walk; the
output ``backward`` starts from must still be the one called, not the node's first."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad


def _x(values: list) -> symgrad.Tensor:
    return symgrad.tensor(values, requires_grad=True)


CASES = {
    "unbind": (lambda x: x.unbind()[2], [1.0, 2.0, 3.0], [0.0, 0.0, 1.0]),
    "iteration": (lambda x: list(x)[1], [1.0, 2.0, 3.0], [0.0, 1.0, 0.0]),
    "split": (lambda x: x.split(1)[1], [1.0, 2.0, 3.0], [0.0, 1.0, 0.0]),
    "std_mean": (lambda x: symgrad.std_mean(x)[1], [1.0, 2.0, 4.0], [1 / 3, 1 / 3, 1 / 3]),
    "var_mean": (lambda x: symgrad.var_mean(x)[1], [1.0, 2.0, 4.0], [1 / 3, 1 / 3, 1 / 3]),
    "aminmax": (lambda x: symgrad.aminmax(x).max, [1.0, 2.0, 4.0], [0.0, 0.0, 1.0]),
}


@pytest.mark.parametrize("retain", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_backward_of_a_later_output(name: str, retain: bool) -> None:
    fn, values, expected = CASES[name]
    x = _x(values)
    fn(x).backward(retain_graph=retain)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)


def test_autograd_backward_of_a_later_output() -> None:
    x = _x([1.0, 2.0, 3.0])
    symgrad.autograd.backward(x.unbind()[1])
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, 0.0])


def test_slogdet_logabsdet_backward() -> None:
    """The second output alone: ``d log|det A| / dA = A^-T``."""
    a = np.array([[2.0, 1.0], [0.0, 3.0]])
    x = symgrad.tensor(a, requires_grad=True)
    symgrad.linalg.slogdet(x).logabsdet.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.linalg.inv(a).T, rtol=1e-12, atol=1e-15)
