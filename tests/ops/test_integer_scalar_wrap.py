"""A number given with a tensor is converted to the dtype the op computes in, as PyTorch does.

PyTorch turns a Python number operand (``x + 1000``) and a 0-d tensor of another dtype
(``x * torch.tensor(0.1, dtype=torch.float64)`` for a float32 ``x``) into the op's common dtype
before computing: an int an integer dtype can't hold wraps around (two's complement), a float64
0-d tensor is rounded to float32. Ops that take the number as a checked parameter (``pow``'s
exponent, ``clamp``'s bounds, fill values) raise instead. The expected values are PyTorch
2.13's.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

X = [1, 100, -24]  # int8

WRAPPING = {
    "add": (lambda T, x: x + 1000, [-23, 76, -48]),
    "radd": (lambda T, x: 1000 + x, [-23, 76, -48]),
    "sub": (lambda T, x: x - 1000, [25, 124, 0]),
    "rsub": (lambda T, x: 1000 - x, [-25, -124, 0]),
    "mul": (lambda T, x: x * 1000, [-24, -96, 64]),
    "floor_divide": (lambda T, x: x // 1000, [-1, -5, 1]),
    "rfloor_divide": (lambda T, x: 1000 // x, [-24, -1, 1]),
    "remainder": (lambda T, x: x % 1000, [-23, -20, 0]),
    "rremainder": (lambda T, x: T.remainder(1000, x), [0, 76, 0]),
    "fmod": (lambda T, x: T.fmod(x, 1000), [1, 4, 0]),
    "div_floor": (lambda T, x: T.div(x, 1000, rounding_mode="floor"), [-1, -5, 1]),
    "div_trunc": (lambda T, x: T.div(x, 1000, rounding_mode="trunc"), [0, -4, 1]),
    "rpow": (lambda T, x: 1000**x, [-24, 0, 0]),
    "and": (lambda T, x: x & 1000, [0, 96, -24]),
    "or": (lambda T, x: x | 1000, [-23, -20, -24]),
    "xor": (lambda T, x: x ^ 1000, [-23, -116, 0]),
    "lshift": (lambda T, x: x << 1000, [0, 0, 0]),
    "rshift": (lambda T, x: x >> 1000, [0, 0, -1]),
    "iadd": (lambda T, x: x.clone().__iadd__(1000), [-23, 76, -48]),
    "mul_": (lambda T, x: x.clone().mul_(1000), [-24, -96, 64]),
    "eq": (lambda T, x: x == 1000, [False, False, True]),
    "ne": (lambda T, x: x != 1000, [True, True, False]),
    "lt": (lambda T, x: x < 1000, [False, False, False]),
    "le": (lambda T, x: x <= 1000, [False, False, True]),
    "gt": (lambda T, x: x > -1000, [False, True, False]),
    "ge": (lambda T, x: x.ge(1000), [True, True, True]),
    # a 0-d int64 tensor is cast (wrapped) to int8 too, before the op
    "maximum_0d": (lambda T, x: T.maximum(x, T.tensor(1000)), [1, 100, -24]),
    "minimum_0d": (lambda T, x: T.minimum(x, T.tensor(1000)), [-24, -24, -24]),
    "lt_0d": (lambda T, x: x < T.tensor(1000), [False, False, False]),
    "floor_divide_0d": (lambda T, x: x // T.tensor(1000), [-1, -5, 1]),
    "add_0d": (lambda T, x: x + T.tensor(1000), [-23, 76, -48]),
}

OTHERS = {
    "uint8_sub": (lambda T: T.tensor([1, 200], dtype=T.uint8) - 300, [213, 156]),
    "uint8_add_negative": (lambda T: T.tensor([1, 200], dtype=T.uint8) + (-1000), [25, 224]),
    "uint8_mul_negative": (lambda T: T.tensor([1, 200], dtype=T.uint8) * -3, [253, 168]),
    "uint8_eq": (lambda T: T.tensor([1, 200], dtype=T.uint8) == 300, [False, False]),
    "uint8_lt_negative": (lambda T: T.tensor([1, 200], dtype=T.uint8) < -1, [True, True]),
    "int64_add_2_63": (lambda T: T.tensor([1, -5]) + 2**63, [-(2**63) + 1, 2**63 - 5]),
    "int64_mul_2_64_minus_1": (lambda T: T.tensor([1, -5]) * (2**64 - 1), [-1, 5]),
    "int64_eq_2_63": (lambda T: T.tensor([1, -5]) == 2**63, [False, False]),
    "searchsorted": (
        lambda T: T.searchsorted(T.tensor([-30, 0, 50], dtype=T.int8), 1000),
        1,
    ),
    "isin": (lambda T: T.isin(T.tensor(X, dtype=T.int8), 1000), [False, False, True]),
    # alpha within the result's dtype (for an unsigned one, down to minus its largest value)
    "int8_add_alpha_127": (
        lambda T: T.add(T.tensor([1, 2], dtype=T.int8), 1, alpha=127),
        [-128, -127],
    ),
    "uint8_add_alpha_minus_255": (
        lambda T: T.add(T.tensor([1, 2], dtype=T.uint8), 1, alpha=-255),
        [2, 3],
    ),
    "int8_int64_add_alpha_1000": (
        lambda T: T.add(T.tensor([1, 2], dtype=T.int8), T.tensor([1, 2]), alpha=1000),
        [1001, 2002],
    ),
    "int16_floor_divide_0d": (
        lambda T: T.tensor([1, 2], dtype=T.int16) // T.tensor(70000),
        [0, 0],
    ),
}

RAISING = {
    "pow": lambda T, x: x**1000,
    "clamp": lambda T, x: T.clamp(x, -1000, 1000),
    "clamp_max": lambda T, x: x.clamp(max=1000),
    "fill_": lambda T, x: x.clone().fill_(1000),
    "full_like": lambda T, x: T.full_like(x, 1000),
    "masked_fill": lambda T, x: x.masked_fill(x > 0, 1000),
    "where": lambda T, x: T.where(x > 0, x, 1000),
    # alpha is converted to the result's dtype with PyTorch's check
    "add_alpha": lambda T, x: T.add(x, x, alpha=128),
    "add_number_alpha": lambda T, x: T.add(x, 1, alpha=-129),
    "sub_alpha": lambda T, x: T.sub(x, 1, alpha=1000),
    "rsub_alpha": lambda T, x: T.rsub(x, 1, alpha=1000),
}


def _int8(T):
    return T.tensor(X, dtype=T.int8)


@pytest.mark.parametrize("name", WRAPPING)
def test_an_int_the_dtype_cannot_hold_wraps_around(name):
    op, expected = WRAPPING[name]
    result = op(symgrad, _int8(symgrad))
    assert result.tolist() == expected
    assert result.dtype == (symgrad.bool if isinstance(expected[0], bool) else symgrad.int8)


@pytest.mark.parametrize("name", OTHERS)
def test_other_dtypes_wrap_the_same_way(name):
    op, expected = OTHERS[name]
    assert op(symgrad).tolist() == expected


@pytest.mark.parametrize("name", RAISING)
def test_a_checked_number_parameter_still_raises(name):
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8"):
        RAISING[name](symgrad, _int8(symgrad))


def test_a_float64_zero_dim_tensor_is_rounded_to_float32_first():
    xs = np.random.default_rng(0).standard_normal(2000).astype(np.float32)
    x = symgrad.tensor(xs)
    product = x * symgrad.tensor(0.1, dtype=symgrad.float64)
    assert product.dtype == symgrad.float32
    # computed in float32 with 0.1 rounded to float32 first, not in float64 then rounded
    np.testing.assert_array_equal(product.numpy(), xs * np.float32(0.1))
    assert (symgrad.tensor([0.1]) == symgrad.tensor(0.1, dtype=symgrad.float64)).tolist() == [True]
    y = symgrad.tensor(xs, requires_grad=True)
    (y * symgrad.tensor(0.1, dtype=symgrad.float64)).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), np.full(2000, np.float32(0.1)))


@pytest.mark.parametrize("name", [*WRAPPING, *OTHERS, *RAISING])
def test_against_torch(name):
    torch = pytest.importorskip("torch")
    results = []
    for T in (torch, symgrad):
        try:
            if name in OTHERS:
                value = OTHERS[name][0](T)
            else:
                value = {**{k: v[0] for k, v in WRAPPING.items()}, **RAISING}[name](T, _int8(T))
            results.append((value.tolist(), str(value.dtype).split(".")[-1]))
        except RuntimeError:
            results.append("RuntimeError")
    assert results[0] == results[1]


def test_bucketize_needs_tensor_boundaries():
    with pytest.raises(TypeError, match="boundaries"):
        symgrad.bucketize(symgrad.tensor([1, 2]), 1000)
