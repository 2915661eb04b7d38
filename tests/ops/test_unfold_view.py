"""``Tensor.unfold`` is a view of the tensor's memory, as in PyTorch: writes go both ways,
in-place changes of the windows reach the gradient, and its node is ``UnfoldBackward0``."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad


def test_writes_go_both_ways() -> None:
    x = symgrad.arange(6.0)
    v = x.unfold(0, 2, 2)
    assert v._base is x
    v[0, 0] = 100
    assert x.tolist() == [100.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    x.add_(1)
    assert v.tolist() == [[101.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_in_place_change_of_the_windows_reaches_the_gradient() -> None:
    x0 = symgrad.arange(6.0, requires_grad=True)
    x = x0 * 1
    x.unfold(0, 2, 2).mul_(2)
    x.sum().backward()
    assert x0.grad.tolist() == [2.0] * 6


def test_overlapping_windows_sum_their_gradients() -> None:
    x = symgrad.arange(6.0, requires_grad=True)
    u = x.unfold(0, 3, 1)
    assert u.grad_fn.name() == "UnfoldBackward0" and u.shape == (4, 3)
    (u * symgrad.arange(12.0).view(4, 3)).sum().backward()
    assert x.grad.tolist() == [0.0, 4.0, 12.0, 21.0, 18.0, 11.0]


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_other_layouts_and_dims(dim: int) -> None:
    base = np.arange(12.0).reshape(3, 4).T
    y = symgrad.arange(12.0).view(3, 4).t()  # the same values, a view laid out by columns
    found = y.unfold(dim, 2, 1).numpy()
    d = dim % 2
    expected = np.stack(
        [np.take(base, range(i, i + 2), axis=d) for i in range(base.shape[d] - 1)], axis=d
    )
    np.testing.assert_array_equal(found, np.moveaxis(expected, d + 1, -1))


def test_zero_dim_and_vmap_keep_working() -> None:
    assert symgrad.tensor(3.0).unfold(0, 1, 1).tolist() == [3.0]
    rows = symgrad.func.vmap(lambda r: r.unfold(0, 2, 2))(symgrad.arange(8.0).view(2, 4))
    assert rows.tolist() == [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]
