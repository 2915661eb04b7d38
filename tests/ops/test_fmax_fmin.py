"""``fmax`` and ``fmin``: PyTorch's values and gradients, a tie's and a nan's included.

PyTorch's rule gives the whole gradient to ``input`` where ``input >= other`` (``<=``) or
``other`` is nan, and to ``other`` elsewhere; ``maximum`` shares a tie half and half."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

NAN = float("nan")
A = [0.0, 1.0, NAN, 2.0, NAN, -1.0]
B = [0.0, 0.0, 1.0, NAN, NAN, 3.0]

# values, input's gradient, other's gradient (of the sum)
EXPECTED = {
    "fmax": ([0.0, 1.0, 1.0, 2.0, NAN, 3.0], [1, 1, 0, 1, 1, 0], [0, 0, 1, 0, 0, 1]),
    "fmin": ([0.0, 0.0, 1.0, 2.0, NAN, -1.0], [1, 0, 0, 1, 1, 1], [0, 1, 1, 0, 0, 0]),
}


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
@pytest.mark.parametrize("name", ["fmax", "fmin"])
def test_values_and_gradients(name: str, dtype: symgrad.dtype) -> None:
    a = symgrad.tensor(A, dtype=dtype, requires_grad=True)
    b = symgrad.tensor(B, dtype=dtype, requires_grad=True)
    out = getattr(symgrad, name)(a, b)
    assert out.grad_fn.name() == f"{name.capitalize()}Backward0"
    assert out.dtype == dtype
    (out * -1).sum().backward()
    values, ga, gb = EXPECTED[name]
    np.testing.assert_array_equal(out.detach().numpy(), values)
    np.testing.assert_array_equal(a.grad.numpy(), -np.array(ga, float))
    np.testing.assert_array_equal(b.grad.numpy(), -np.array(gb, float))
    # the input left out gets +0 (a select), never -0 or nan
    assert not np.signbit(a.grad.numpy()[np.array(ga) == 0]).any()
    assert not np.signbit(b.grad.numpy()[np.array(gb) == 0]).any()


def test_method_broadcast_and_integers() -> None:
    a = symgrad.tensor([[1.0], [5.0]], requires_grad=True)
    b = symgrad.tensor([1.0, 3.0], requires_grad=True)
    out = a.fmax(b)
    out.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), [[1.0, 3.0], [5.0, 5.0]])
    np.testing.assert_array_equal(a.grad.numpy(), [[1.0], [2.0]])
    np.testing.assert_array_equal(b.grad.numpy(), [0.0, 1.0])
    ints = symgrad.fmin(symgrad.tensor([1, 5]), symgrad.tensor([2, 3]))
    assert ints.dtype == symgrad.int64 and ints.tolist() == [1, 3]


def test_gradient_of_the_gradient_is_masked() -> None:
    """PyTorch's gradient is a masked_fill of the incoming one: nothing leads back to x."""
    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    out = symgrad.fmax(a, symgrad.tensor([1.0, 3.0]))
    (g,) = symgrad.autograd.grad(out.sum(), a, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [1.0, 0.0])
    assert g.grad_fn is None
