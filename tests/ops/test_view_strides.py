"""``view_strides``: whether (and with which strides) memory is seen in a new shape without a
copy, as NumPy and PyTorch decide, for transposed, sliced, broadcast, size-1 and empty layouts."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import symgrad
from symgrad.ops._strides import view_strides

CASES = [  # (shape, strides in elements, new shape, expected strides in elements or None)
    ((2, 3), (3, 1), (6,), (1,)),
    ((2, 3), (3, 1), (3, 2), (2, 1)),
    ((3, 2), (1, 3), (6,), None),  # a transposed matrix
    ((3, 2), (1, 3), (3, 2, 1), (1, 3, 3)),
    ((2, 2), (4, 1), (4,), None),  # every other row of a (4, 2) array... columns of (2, 4)
    ((2, 2), (4, 1), (2, 1, 2), (4, 2, 1)),
    ((4, 3), (0, 1), (2, 2, 3), (0, 0, 1)),  # broadcast rows
    ((4, 3), (0, 1), (12,), None),
    ((1, 5), (99, 1), (5,), (1,)),  # a size-1 dimension's stride does not matter
    ((2, 0, 3), (3, 3, 1), (0, 6), (6, 1)),
    ((), (), (1, 1), (1, 1)),
]


@pytest.mark.parametrize("shape, strides, new, expected", CASES)
def test_plain_cases(shape, strides, new, expected):
    got = view_strides(shape, tuple(4 * s for s in strides), new)
    if expected is None:
        assert got is None
    else:
        assert got is not None
        # strides of size-1 dimensions are free: compare the others
        assert [g for g, n in zip(got, new) if n != 1] == [
            4 * e for e, n in zip(expected, new) if n != 1
        ]


def _numpy_views(a, new):
    seen = a.view()
    try:
        seen.shape = new
    except AttributeError:
        return None
    return seen.strides


def test_agrees_with_numpy_on_transposed_and_sliced_layouts():
    base = np.arange(2 * 3 * 4 * 2, dtype=np.float32).reshape(2, 3, 4, 2)
    layouts = [base[:, :, ::2], base[:, ::2], base[..., :1]]
    layouts += [base.transpose(p) for p in itertools.permutations(range(4))]
    checked = 0
    for a in layouts:
        n = a.size
        for new in [(n,), (1, n), (n, 1)] + [
            s for s in itertools.product(range(1, n + 1), repeat=2) if s[0] * s[1] == n
        ]:
            want, got = _numpy_views(a, new), view_strides(a.shape, a.strides, new)
            assert (want is None) == (got is None), (a.shape, a.strides, new)
            if got is not None:
                assert np.array_equal(np.lib.stride_tricks.as_strided(a, new, got), a.reshape(new))
            checked += 1
    assert checked > 100


def test_reshape_and_view_decisions():
    x = symgrad.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
    assert x.t().reshape(6).grad_fn is None and x.t().reshape(6)._base is None
    assert x.t().reshape(3, 2, 1)._base is x
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.t().view(6)
    assert x.t().view(3, 1, 2).tolist() == [[[0.0, 3.0]], [[1.0, 4.0]], [[2.0, 5.0]]]
    w = symgrad.zeros(2, 3, requires_grad=True)
    assert w.t().reshape(6).grad_fn.name() == "UnsafeViewBackward0"
    assert w.t().reshape(3, 2, 1).grad_fn.name() == "ReshapeAliasBackward0"
