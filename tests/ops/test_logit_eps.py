"""``logit(x, eps)``: one ``LogitBackward0`` node saving ``eps``, as PyTorch records it (not a
clamp and a logit), whose gradient is 0 outside ``[eps, 1 - eps]`` and at nan (PyTorch's
vectorized kernel: only the scalar tail of a short tensor gives nan there)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

NAN = float("nan")


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
def test_logit_with_eps_is_one_node(dtype: symgrad.dtype) -> None:
    values = [0.05, 0.95, 0.5, -1.0, 2.0, NAN, 0.3]
    x = symgrad.tensor(values, dtype=dtype, requires_grad=True)
    y = symgrad.logit(x, eps=0.1)
    assert y.grad_fn.name() == "LogitBackward0" and y.grad_fn._saved_eps == 0.1
    # no clamp before it: its one edge leads to the leaf
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AccumulateGrad"
    y.sum().backward()
    lo, hi = math.log(0.1 / 0.9), math.log(0.9 / 0.1)
    expected = [lo, hi, 0.0, lo, hi, NAN, math.log(0.3 / 0.7)]
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-6)
    grad = [0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 1 / (0.3 * 0.7)]
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-6)
    assert x.grad.dtype == dtype


def test_logit_eps_crossing_bounds_and_integers() -> None:
    """With eps above 1/2 PyTorch's kernel gives eps below it and 1 - eps above (no clamp)."""
    np.testing.assert_allclose(
        symgrad.logit(symgrad.tensor([0.3]), eps=0.6).numpy(), [math.log(1.5)], rtol=1e-6
    )
    out = symgrad.logit(symgrad.tensor([1, 0]), eps=0.25)
    assert out.dtype == symgrad.float32
    np.testing.assert_allclose(out.numpy(), [math.log(3), -math.log(3)], rtol=1e-6)
