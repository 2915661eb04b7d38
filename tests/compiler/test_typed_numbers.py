"""Numbers held as 0-d arrays of their array's dtype: the same bits as the Python number
(NumPy converts the number to the array's dtype first either way), taken faster by NumPy."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import symgrad
from symgrad.prim.kernels import one_like, typed_number, zero_like

NUMBERS = [1, 3, 0.1, 1 / 3, -0.0, 2.5e-40, 16777217, 2**53, -7.25]
OPS = [
    operator.add,
    operator.sub,
    operator.mul,
    operator.truediv,
    operator.lt,
    operator.eq,
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("c", NUMBERS)
def test_a_typed_number_computes_the_python_numbers_bits(dtype, c):
    x = np.array([0.7, -3.0, 1e-30, 0.0, -0.0, 16777216.0], dtype)
    typed = typed_number(c, x)
    assert type(typed) is np.ndarray and typed.shape == () and typed.dtype == dtype
    assert not typed.flags.writeable
    with np.errstate(all="ignore"):
        for op in OPS:
            for expected, got in ((op(x, c), op(x, typed)), (op(c, x), op(typed, x))):
                assert got.dtype == expected.dtype
                assert got.tobytes() == expected.tobytes(), (op, c)


@pytest.mark.parametrize(
    "c, like",
    [
        (2.0, np.float32(1.0)),  # a NumPy scalar: its own arithmetic takes a number faster
        (2.0, np.array(1.0)),  # a 0-d array: the same
        (2, np.arange(3)),  # integers: the number stays
        (0.5, np.ones(3, np.float16)),
        (True, np.ones(3)),
        (float("inf"), np.ones(3)),
        (float("nan"), np.ones(3)),
        (1e39, np.ones(3, np.float32)),  # beyond float32: the number (and NumPy's rule) stays
        (2**53 + 1, np.ones(3)),
        ([1.0], np.ones(3)),
    ],
)
def test_a_number_stays_where_a_typed_one_would_not_help_or_could_differ(c, like):
    assert typed_number(c, like) is c


def test_one_and_zero_for_arithmetic():
    v32 = np.ones(3, np.float32)
    assert one_like(v32).dtype == np.float32 and one_like(v32) == 1
    assert zero_like(np.ones(2)).dtype == np.float64 and zero_like(np.ones(2)) == 0
    assert one_like(np.float32(2.0)) == 1 and type(one_like(np.float32(2.0))) is int
    assert type(zero_like(np.arange(3))) is int


def test_a_compiled_program_holds_its_numbers_as_arrays_of_their_dtype():
    w = symgrad.tensor([0.5, -1.25, 2.0], requires_grad=True)

    def f(w):
        return ((w * 3 - 1) / 7).sum()

    eager = f(w)
    eager.backward()
    expected = w.grad.clone()
    w.grad = None
    compiled = symgrad.compile(f, fullgraph=True)
    out = compiled(w)
    out.backward()
    assert out.item() == eager.item() == pytest.approx(0.75 / 7)
    assert w.grad.tolist() == expected.tolist() == pytest.approx([3 / 7] * 3)
    assert " 3" not in compiled.source and " 7" not in compiled.source
