"""In-place changes between a compiled call and its backward: PyTorch's error exactly where
the backward reads what changed (an argument or a view of it that the program saved, an output
it saved), and none where it reads nothing of it, as eager symgrad and PyTorch do."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F

_MODIFIED = "modified by an inplace operation"


def _layer(w, b, x, y):
    return F.binary_cross_entropy_with_logits(symgrad.matmul(x, w) + b, y)


def _tensors():
    w = symgrad.tensor(np.linspace(-1.0, 1.0, 15).reshape(5, 3), requires_grad=True)
    b = symgrad.tensor([0.1, -0.2, 0.3], dtype=symgrad.float64, requires_grad=True)
    x = symgrad.tensor([1.0, 2.0, -1.0, 0.5, 0.0], dtype=symgrad.float64)
    y = symgrad.tensor([0.0, 1.0, 1.0], dtype=symgrad.float64)
    return w, b, x, y


@pytest.mark.parametrize("compiled", [False, True])
def test_data_the_gradient_reads_changed_in_place_is_pytorchs_error(compiled):
    # x is saved (a view of it) for w's gradient: changing it would silently change w.grad
    w, b, x, y = _tensors()
    fn = symgrad.compile(_layer) if compiled else _layer
    loss = fn(w, b, x, y)
    with symgrad.no_grad():
        x.mul_(3.0)
    with pytest.raises(RuntimeError, match=_MODIFIED):
        loss.backward()


@pytest.mark.parametrize("compiled", [False, True])
def test_a_bias_changed_in_place_breaks_nothing(compiled):
    # PyTorch saves nothing of b (an addition's gradient reads no operand): no error, and the
    # gradient is the one of the values used in the forward pass
    w, b, x, y = _tensors()
    fn = symgrad.compile(_layer) if compiled else _layer
    loss = fn(w, b, x, y)
    with symgrad.no_grad():
        b.add_(1.0)
    loss.backward()
    # sigmoid(z) - y over 3, with z = x @ w + b before the change
    z = np.array([1.0, 2.0, -1.0, 0.5, 0.0]) @ np.linspace(-1.0, 1.0, 15).reshape(5, 3)
    z += [0.1, -0.2, 0.3]
    expected = (1 / (1 + np.exp(-z)) - [0.0, 1.0, 1.0]) / 3
    np.testing.assert_allclose(b.grad.numpy(), expected, rtol=1e-12)


def test_a_compiled_output_the_backward_reads_changed_in_place_is_pytorchs_error():
    x = symgrad.tensor([0.5, 1.0, 2.0], requires_grad=True)
    f = symgrad.compile(lambda x: (x * 2.0).sqrt())  # sqrt's gradient reads its output
    y = f(x)
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match=_MODIFIED):
        y.sum().backward()
