"""``special.xlog1py``: one ``SpecialXlog1PyBackward0`` node with PyTorch's gradients.

``d/dx = log1p(y)``, except 0 where ``x == 0`` and ``log1p(y)`` is not finite (``y <= -1``);
``d/dy = x / (1 + y)``. A ``where`` around ``x * log1p(y)`` would also cut the ``x``
gradient where ``x == 0``, which PyTorch keeps."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

NAN = float("nan")


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
def test_values_and_gradients(dtype: symgrad.dtype) -> None:
    x = symgrad.tensor([0.0, 2.0, 0.0, 0.0, 0.0, 3.0], dtype=dtype, requires_grad=True)
    y = symgrad.tensor([1.0, 1.0, NAN, -1.0, -2.0, 0.5], dtype=dtype, requires_grad=True)
    z = symgrad.special.xlog1py(x, y)
    assert z.grad_fn.name() == "SpecialXlog1PyBackward0"
    np.testing.assert_allclose(
        z.detach().numpy(), [0.0, 2 * math.log(2), NAN, 0.0, 0.0, 3 * math.log1p(0.5)], rtol=1e-6
    )
    z.sum().backward()
    log2 = math.log(2)
    np.testing.assert_allclose(
        x.grad.numpy(), [log2, log2, NAN, 0.0, 0.0, math.log1p(0.5)], rtol=1e-6
    )
    np.testing.assert_allclose(y.grad.numpy(), [0.0, 1.0, NAN, NAN, 0.0, 2.0], rtol=1e-6)
    assert np.signbit(y.grad.numpy()[4])  # 0 / -1


def test_small_other_keeps_log1p_precision() -> None:
    x = symgrad.tensor([1.0], dtype=symgrad.float64, requires_grad=True)
    y = symgrad.tensor([1e-12], dtype=symgrad.float64, requires_grad=True)
    z = symgrad.special.xlog1py(x, y)
    z.backward()
    assert z.item() == math.log1p(1e-12)
    assert x.grad.item() == math.log1p(1e-12)


def test_numbers_and_integers() -> None:
    found = symgrad.special.xlog1py(2.0, symgrad.tensor([1.0]))
    np.testing.assert_allclose(found.numpy(), [2 * math.log(2)], rtol=1e-6)
    ints = symgrad.special.xlog1py(symgrad.tensor([2]), symgrad.tensor([1]))
    assert ints.dtype == symgrad.float32
