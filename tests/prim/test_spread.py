"""``NP.expand`` of a 0-d gradient (every sum's and mean's backward) builds the view itself:
the same values, shape, dtype and read-only flag as ``np.broadcast_to``."""

import numpy as np
import pytest

from symgrad.prim.numpy_xp import NP, spread

SHAPES = [(), (1,), (0,), (2, 3), (4, 0, 2), (1, 1, 5)]
DTYPES = [np.float32, np.float64, np.int64, np.bool_, np.complex128]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_spread_is_broadcast_to(shape, dtype):
    a = np.array(3, dtype)
    got, want = NP.expand(a, shape), np.broadcast_to(a, shape)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want, strict=True)
    assert not got.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        got[...] = 0


def test_spread_of_a_view_and_of_a_read_only_array():
    base = np.arange(6.0).reshape(2, 3)
    view = base[1:2, 2:3].reshape(())
    np.testing.assert_array_equal(spread(view, (2, 2)), np.full((2, 2), 5.0))
    frozen = np.array(-1.5)
    frozen.flags.writeable = False
    np.testing.assert_array_equal(spread(frozen, (3,)), np.full(3, -1.5))


def test_other_arrays_still_broadcast():
    row = np.arange(3.0)
    np.testing.assert_array_equal(NP.expand(row, (2, 3)), np.broadcast_to(row, (2, 3)))
    with pytest.raises(ValueError):
        NP.expand(row, (2, 4))
