"""Bitwise operations and their operators on integer and bool tensors, PyTorch's errors on
floating ones."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

A = [12, -3, 7]
B = [10, 5, 1]


def _t(values, dtype=None):
    return symgrad.tensor(values, dtype=dtype)


@pytest.mark.parametrize(
    "fn,expected",
    [
        (lambda a, b: symgrad.bitwise_and(a, b), [8, 5, 1]),
        (lambda a, b: symgrad.bitwise_or(a, b), [14, -3, 7]),
        (lambda a, b: symgrad.bitwise_xor(a, b), [6, -8, 6]),
        (lambda a, b: a & b, [8, 5, 1]),
        (lambda a, b: a | b, [14, -3, 7]),
        (lambda a, b: a ^ b, [6, -8, 6]),
        (lambda a, b: a << 2, [48, -12, 28]),
        (lambda a, b: a >> 1, [6, -2, 3]),
        (lambda a, b: 6 & a, [4, 4, 6]),
        (lambda a, b: 6 | a, [14, -1, 7]),
        (lambda a, b: 6 ^ a, [10, -5, 1]),
        (lambda a, b: 1 << b, [1024, 32, 2]),
        (lambda a, b: 1024 >> b, [1, 32, 512]),
        (lambda a, b: symgrad.bitwise_left_shift(a, b), [12288, -96, 14]),
        (lambda a, b: symgrad.bitwise_right_shift(a, b), [0, -1, 3]),
        (lambda a, b: ~a, [-13, 2, -8]),
        (lambda a, b: symgrad.bitwise_not(a), [-13, 2, -8]),
        (lambda a, b: a.bitwise_and(b), [8, 5, 1]),
        # shifts by a negative amount or the width or more: 0 to the left, the sign right
        (lambda a, b: a << 70, [0, 0, 0]),
        (lambda a, b: a << -1, [0, 0, 0]),
        (lambda a, b: a >> 64, [0, -1, 0]),
        (lambda a, b: a >> -1, [0, -1, 0]),
    ],
)
def test_integer_values(fn, expected):
    out = fn(_t(A), _t(B))
    assert out.dtype is symgrad.int64 and out.tolist() == expected


def test_bool_tensors():
    t = _t([True, False, True])
    assert (t & t).tolist() == [True, False, True]
    assert (t ^ True).tolist() == [False, True, False]
    assert (~t).tolist() == [False, True, False]
    assert (t | 1).dtype is symgrad.int64 and (t | 1).tolist() == [1, 1, 1]
    assert (t << 1).tolist() == [2, 0, 2]
    with pytest.raises(NotImplementedError, match="\"lshift_cpu\" not implemented for 'Bool'"):
        t << t


def test_small_dtypes_promote_and_wrap():
    u = _t([200, 3, 7], symgrad.uint8)
    s = _t([-1, 3, 7], symgrad.int8)
    assert (u & s).dtype is symgrad.int16 and (u ^ s).tolist() == [-201, 0, 0]
    assert (s << 7).tolist() == [-128, -128, -128]
    assert (~u).tolist() == [55, 252, 248] and (~u).dtype is symgrad.uint8
    assert (u >> 9).tolist() == [0, 0, 0]
    assert (_t([1, 2], symgrad.int32) & _t(3)).dtype is symgrad.int32


def test_floating_tensors_are_refused():
    f = _t([1.0, 2.0])
    with pytest.raises(
        NotImplementedError, match="\"bitwise_and_cpu\" not implemented for 'Float'"
    ):
        f & f
    with pytest.raises(NotImplementedError, match="\"rshift_cpu\" not implemented for 'Float'"):
        f >> 1
    with pytest.raises(NotImplementedError, match='"bitwise_or_cpu"'):
        _t([1]) | 2.0
    with pytest.raises(NotImplementedError, match='"bitwise_not_cpu"'):
        symgrad.bitwise_not(f)
    with pytest.raises(TypeError, match="only implemented on integer and Boolean"):
        _ = ~f


def test_in_place():
    x = _t(A)
    version = x._version
    x &= _t(B)
    assert x.tolist() == [8, 5, 1] and x._version == version + 1
    x = _t(A)
    x <<= 1
    assert x.tolist() == [24, -6, 14]
    y = _t([1, 2], symgrad.int32)
    y ^= _t([3, 3])
    assert y.dtype is symgrad.int32 and y.tolist() == [2, 1]
    assert _t(A).bitwise_not_().tolist() == [-13, 2, -8]
    with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output"):
        t = _t([True])
        t |= _t([3])
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        z = _t([1])
        z &= 2.0


def test_out_and_logical_xor():
    out = symgrad.empty(3, dtype=symgrad.int64)
    assert symgrad.bitwise_and(_t(A), _t(B), out=out) is out and out.tolist() == [8, 5, 1]
    got = symgrad.logical_xor(_t([0.0, 1.0, 2.0]), _t([1, 1, 0]))
    assert got.tolist() == [True, False, True]


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        info = np.iinfo(name)
        a = rng.integers(info.min, info.max, 20, endpoint=True).astype(name)
        b = rng.integers(-3, 70, 20).astype(name) if info.min < 0 else rng.integers(0, 70, 20)
        b = b.astype(name)
        for op in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
                   "bitwise_right_shift"):  # fmt: skip
            want = getattr(torch, op)(torch.tensor(a), torch.tensor(b))
            got = getattr(symgrad, op)(symgrad.tensor(a), symgrad.tensor(b))
            assert got.dtype.name == str(want.dtype)[6:]
            np.testing.assert_array_equal(got.numpy(), want.numpy(), err_msg=f"{op} {name}")
        np.testing.assert_array_equal((~symgrad.tensor(a)).numpy(), (~torch.tensor(a)).numpy())
