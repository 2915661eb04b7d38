"""Integers at and beyond their dtype's range, integer division by zero, and the rounding
divisions (``//``, ``%``, ``fmod``).

Each case holds its expected result (values, or the exception type PyTorch raises), so it runs
without PyTorch; with PyTorch installed, the same table is checked against it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

INF, NAN = math.inf, math.nan
I64_MAX, I64_MIN = 2**63 - 1, -(2**63)

# (name, f(T) -> tensor, expected values or exception type)
CASES = [
    # building tensors: ints beyond int64 are an error, never a wrapped number
    ("tensor_2_63", lambda T: T.tensor(2**63), ValueError),
    ("tensor_2_64_minus_1", lambda T: T.tensor(2**64 - 1), ValueError),
    ("tensor_below_int64", lambda T: T.tensor(-(2**63) - 1), ValueError),
    ("tensor_list_2_63", lambda T: T.tensor([1, 2**63]), ValueError),
    ("tensor_nested_2_64", lambda T: T.tensor([[1], [2**64]]), ValueError),
    ("tensor_2_63_as_int64", lambda T: T.tensor([2**63], dtype=T.int64), ValueError),
    ("tensor_int64_limits", lambda T: T.tensor([I64_MIN, I64_MAX]), [I64_MIN, I64_MAX]),
    ("tensor_big_int_with_float", lambda T: T.tensor([1.5, 2**70]), [1.5, 2.0**70]),
    ("tensor_big_int_as_float64", lambda T: T.tensor(2**63, dtype=T.float64), 2.0**63),
    ("tensor_int_beyond_float", lambda T: T.tensor([10**400, 1.0]), OverflowError),
    ("tensor_2_40_as_int32", lambda T: T.tensor([2**40], dtype=T.int32), RuntimeError),
    ("tensor_2_31_as_int32", lambda T: T.tensor([2**31], dtype=T.int32), RuntimeError),
    (
        "tensor_int32_limits",
        lambda T: T.tensor([-(2**31), 2**31 - 1], dtype=T.int32),
        [-(2**31), 2**31 - 1],
    ),
    ("tensor_1e20_as_int64", lambda T: T.tensor(1e20, dtype=T.int64), RuntimeError),
    ("tensor_nan_as_int64", lambda T: T.tensor([NAN], dtype=T.int64), RuntimeError),
    ("tensor_inf_as_int64", lambda T: T.tensor([INF], dtype=T.int64), RuntimeError),
    ("tensor_floats_truncate_to_int", lambda T: T.tensor([1.5, -2.7], dtype=T.int64), [1, -2]),
    ("tensor_1e300_as_float32", lambda T: T.tensor([1e300], dtype=T.float32), [INF]),
    # number arguments: beyond 64 bits an OverflowError, whatever the tensor's dtype
    ("add_2_70", lambda T: T.tensor([1]) + 2**70, OverflowError),
    ("float_add_2_70", lambda T: T.tensor([1.0]) + 2**70, OverflowError),
    ("mul_2_70", lambda T: T.tensor([1]) * 2**70, OverflowError),
    ("rsub_2_70", lambda T: 2**70 - T.tensor([1]), OverflowError),
    ("lt_2_70", lambda T: T.tensor([1]) < 2**70, OverflowError),
    ("eq_2_70", lambda T: T.tensor([1.0]) == 2**70, OverflowError),
    ("add_below_int64", lambda T: T.tensor([1]) + (-(2**63) - 1), OverflowError),
    ("add_int64_max_wraps_in_tensor", lambda T: T.tensor([1]) + I64_MAX, [I64_MIN]),
    # a number within 64 bits that the tensor's dtype can't hold wraps around into it first
    ("add_2_63", lambda T: T.tensor([1]) + 2**63, [I64_MIN + 1]),
    ("lt_2_63", lambda T: T.tensor([1]) < 2**63, [False]),
    ("floordiv_2_63", lambda T: T.tensor([5]) // 2**63, [-1]),
    ("int32_add_2_40", lambda T: T.tensor([1], dtype=T.int32) + 2**40, [1]),
    ("int_tensor_overflow_wraps", lambda T: T.tensor([2**62]) * 4, [0]),
    ("float_add_2_63", lambda T: T.tensor([1.0], dtype=T.float64) + 2**63, [2.0**63 + 1]),
    ("float_lt_2_63", lambda T: T.tensor([1.0]) < 2**63, [True]),
    ("where_2_70", lambda T: T.where(T.tensor([True]), T.tensor([1]), 2**70), OverflowError),
    ("clamp_2_70", lambda T: T.clamp(T.tensor([1.0]), max=2**70), OverflowError),
    ("clamp_min_int_2_63", lambda T: T.tensor([1]).clamp_min(2**63), RuntimeError),
    ("clamp_int_one_bound", lambda T: T.clamp(T.tensor([1, 5]), min=2), [2, 5]),
    ("clamp_int_big_bound", lambda T: T.clamp(T.tensor([1, 2**62 + 1]), max=2**62), [1, 2**62]),
    (
        "masked_fill_2_70",
        lambda T: T.tensor([1]).masked_fill(T.tensor([True]), 2**70),
        OverflowError,
    ),
    (
        "masked_fill_int_2_63",
        lambda T: T.tensor([1]).masked_fill(T.tensor([True]), 2**63),
        RuntimeError,
    ),
    (
        "masked_fill_float_2_63",
        lambda T: T.tensor([1.0]).masked_fill(T.tensor([True]), 2**63),
        [2.0**63],
    ),
    ("fill_2_70", lambda T: T.tensor([1]).fill_(2**70), OverflowError),
    ("fill_int_2_63", lambda T: T.tensor([1]).fill_(2**63), RuntimeError),
    ("setitem_2_63", lambda T: _setitem(T.tensor([1.0]), 0, 2**63), ValueError),
    ("setitem_2_62", lambda T: _setitem(T.tensor([1]), 0, 2**62), [2**62]),
    # full() and arange()
    ("full_2_63", lambda T: T.full((2,), 2**63), RuntimeError),
    ("full_2_70_float", lambda T: T.full((1,), 2**70, dtype=T.float64), OverflowError),
    ("full_below_int64", lambda T: T.full((1,), -(2**63) - 1), OverflowError),
    ("full_2_62", lambda T: T.full((2,), 2**62), [2**62, 2**62]),
    ("full_2_40_int32", lambda T: T.full((1,), 2**40, dtype=T.int32), RuntimeError),
    ("full_1e20_int64", lambda T: T.full((1,), 1e20, dtype=T.int64), RuntimeError),
    ("full_nan_int64", lambda T: T.full((1,), NAN, dtype=T.int64), RuntimeError),
    ("full_2_63_float64", lambda T: T.full((1,), 2**63, dtype=T.float64), [2.0**63]),
    ("arange_2_63", lambda T: T.arange(2**63), RuntimeError),
    ("arange_2_64", lambda T: T.arange(0, 2**64, 2**62), OverflowError),
    ("arange_big_exact", lambda T: T.arange(2**62, 2**62 + 3), [2**62, 2**62 + 1, 2**62 + 2]),
    ("arange_int64_limit", lambda T: T.arange(I64_MAX - 2, I64_MAX), [I64_MAX - 2, I64_MAX - 1]),
    ("arange_int64_min", lambda T: T.arange(I64_MIN, I64_MIN + 2), [I64_MIN, I64_MIN + 1]),
    ("arange_negative_step", lambda T: T.arange(10, 0, -3), [10, 7, 4, 1]),
    # division by zero: integers raise, floats give inf and nan
    ("int_floordiv_0", lambda T: T.tensor([1, 2]) // 0, RuntimeError),
    ("int_floordiv_tensor_0", lambda T: T.tensor([1, 2]) // T.tensor([1, 0]), RuntimeError),
    ("int_div_floor_0", lambda T: T.div(T.tensor([1]), 0, rounding_mode="floor"), RuntimeError),
    ("int_div_trunc_0", lambda T: T.div(T.tensor([1]), 0, rounding_mode="trunc"), RuntimeError),
    ("int_mod_0", lambda T: T.tensor([5, -5]) % 0, RuntimeError),
    ("int_fmod_0", lambda T: T.fmod(T.tensor([5, -5]), 0), RuntimeError),
    ("number_mod_int_0", lambda T: 5 % T.tensor([1, 0]), RuntimeError),
    ("float_floordiv_0", lambda T: T.tensor([1.0, -1.0, 0.0]) // 0, [INF, -INF, NAN]),
    ("int_truediv_0", lambda T: T.tensor([1, -1, 0]) / 0, [INF, -INF, NAN]),
    ("int_truediv_tensor_0", lambda T: T.tensor([1, -1, 0]) / T.tensor(0), [INF, -INF, NAN]),
    ("float_mod_0", lambda T: T.tensor([5.0, -5.0, 0.0]) % 0, [NAN, NAN, NAN]),
    ("float_fmod_0", lambda T: T.fmod(T.tensor([5.0, -5.0]), 0.0), [NAN, NAN]),
    # rounding divisions: the signs, exact integers, dtypes
    (
        "int_floordiv",
        lambda T: T.tensor([7, -7, 7, -7]) // T.tensor([2, 2, -2, -2]),
        [3, -4, -4, 3],
    ),
    (
        "int_floordiv_exact_beyond_2_53",
        lambda T: T.tensor([2**62 + 1, -(2**62) - 1]) // 1,
        [2**62 + 1, -(2**62) - 1],
    ),
    (
        "int_trunc",
        lambda T: T.div(T.tensor([7, -7, 7, -7]), T.tensor([2, 2, -2, -2]), rounding_mode="trunc"),
        [3, -3, -3, 3],
    ),
    (
        "int_trunc_exact_beyond_2_53",
        lambda T: T.div(T.tensor([2**62 + 3]), 2, rounding_mode="trunc"),
        [2**61 + 1],
    ),
    ("int_min_floordiv_minus_1_wraps", lambda T: T.tensor([I64_MIN]) // -1, [I64_MIN]),
    (
        "float_floordiv",
        lambda T: T.tensor([5.5, -5.5, 1.0], dtype=T.float64) // 0.1 * 1,
        [54.0, -55.0, 9.0],
    ),
    ("floor_divide_fn", lambda T: T.floor_divide(T.tensor([7, -7]), 2), [3, -4]),
    ("rfloordiv", lambda T: 7 // T.tensor([2, -2]), [3, -4]),
    (
        "int_remainder",
        lambda T: T.tensor([5, -5, 5, -5]) % T.tensor([3, 3, -3, -3]),
        [2, 1, -1, -2],
    ),
    (
        "int_fmod",
        lambda T: T.fmod(T.tensor([5, -5, 5, -5]), T.tensor([3, 3, -3, -3])),
        [2, -2, 2, -2],
    ),
    ("int_min_mod_minus_1", lambda T: T.tensor([I64_MIN]) % -1, [0]),
    ("rmod", lambda T: 7 % T.tensor([3, -3]), [1, -2]),
    ("remainder_number_first", lambda T: T.remainder(7, T.tensor([3, -3])), [1, -2]),
    (
        "float_remainder",
        lambda T: T.remainder(
            T.tensor([5.5, -5.5, 5.5, -5.5, 0.0, -0.0], dtype=T.float64),
            T.tensor([2.0, 2.0, -2.0, -2.0, 3.0, 3.0], dtype=T.float64),
        ),
        [1.5, 0.5, -0.5, -1.5, 0.0, -0.0],
    ),
    (
        "float_fmod",
        lambda T: T.fmod(
            T.tensor([5.5, -5.5, 5.5, -5.5], dtype=T.float64),
            T.tensor([2.0, 2.0, -2.0, -2.0], dtype=T.float64),
        ),
        [1.5, -1.5, 1.5, -1.5],
    ),
    ("remainder_zero_keeps_fmod_sign", lambda T: T.tensor([5, -5]) % 2.5, [0.0, -0.0]),
    ("remainder_by_inf", lambda T: T.tensor([5.0, -5.0]) % INF, [5.0, INF]),
    ("fmod_by_inf", lambda T: T.fmod(T.tensor([5.0, -5.0]), INF), [5.0, -5.0]),
    ("remainder_of_inf", lambda T: T.tensor([INF, NAN]) % 2, [NAN, NAN]),
    (
        "remainder_broadcast",
        lambda T: T.tensor([[7.0], [-7.0]]) % T.tensor([2.0, -3.0, 4.0]),
        [[1.0, -2.0, 3.0], [1.0, -1.0, 1.0]],
    ),
    ("remainder_empty", lambda T: T.zeros(0, 3) % 2, np.zeros((0, 3))),
    ("remainder_2_70", lambda T: T.tensor([5.0]) % 2**70, OverflowError),
    ("remainder_two_numbers", lambda T: T.remainder(5, 3), TypeError),
    ("fmod_number_first", lambda T: T.fmod(5, T.tensor([3])), TypeError),
    ("imod", lambda T: _imod(T.tensor([7.0, -8.0]), 3), [1.0, 1.0]),
    ("remainder_method_", lambda T: T.tensor([7.0, -8.0]).remainder_(3), [1.0, 1.0]),
    ("fmod_method_", lambda T: T.tensor([7.0, -8.0]).fmod_(3), [1.0, -2.0]),
    ("ifloordiv", lambda T: _ifloordiv(T.tensor([7, -7]), 2), [3, -4]),
]

# PyTorch wraps these silently (its answer in the comment); symgrad raises instead
# dtypes of results, as PyTorch gives them
DTYPES = [
    ("int_mod_float", lambda T: T.tensor([5]) % 2.5, "float32"),
    ("int32_mod_int64", lambda T: T.tensor([5], dtype=T.int32) % T.tensor([3]), "int64"),
    ("int32_mod_number", lambda T: T.tensor([5], dtype=T.int32) % 3, "int32"),
    (
        "float32_mod_float64",
        lambda T: T.tensor([5.0]) % T.tensor([3.0], dtype=T.float64),
        "float64",
    ),
    ("bool_mod_int", lambda T: T.tensor([True]) % 2, "int64"),
    ("int_floordiv_float", lambda T: T.tensor([5]) // 2.0, "float32"),
    ("arange_int32", lambda T: T.arange(3, dtype=T.int32), "int32"),
]


def _setitem(t, key, value):
    t[key] = value
    return t


def _imod(t, value):
    t %= value
    return t


def _ifloordiv(t, value):
    t //= value
    return t


def _check(T, fn, expected):
    if isinstance(expected, type):
        with pytest.raises(expected):
            fn(T)
        return
    out = fn(T)
    got = out.detach().numpy() if hasattr(out, "detach") else np.asarray(out)
    want = np.asarray(expected, dtype=got.dtype if got.dtype.kind in "biu" else np.float64)
    assert got.shape == want.shape
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)  # exact: no float round trip
    else:
        np.testing.assert_array_equal(got, want.astype(got.dtype))
        number = ~np.isnan(want)  # a nan's sign bit means nothing
        np.testing.assert_array_equal(np.signbit(got)[number], np.signbit(want)[number])


@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_symgrad(name, fn, expected):
    _check(symgrad, fn, expected)


@pytest.mark.parametrize("name,fn,dtype", DTYPES, ids=[c[0] for c in DTYPES])
def test_result_dtype(name, fn, dtype):
    assert fn(symgrad).dtype.name == dtype


def test_messages_say_what_went_wrong():
    with pytest.raises(ValueError, match=r"9223372036854775808 is outside int64's range"):
        symgrad.tensor([1, 2**63])
    with pytest.raises(OverflowError, match=r"add\(\): int too big to convert.*float"):
        symgrad.tensor([1]) + 2**70
    with pytest.raises(RuntimeError, match=r"^ZeroDivisionError: floor_divide\(\) of int64"):
        symgrad.tensor([1, 2]) // 0
    with pytest.raises(RuntimeError, match=r"int32 without overflow: 1099511627776"):
        symgrad.tensor([2**40], dtype=symgrad.int32)
    with pytest.raises(OverflowError, match=r"an int of 1329 bits is beyond float64's range"):
        symgrad.tensor([10**400, 1.0])
    with pytest.raises(OverflowError, match=r"an int of 16610 bits needs more than 64 bits"):
        symgrad.tensor([1.0]) * 10**5000


# -- gradients of remainder and fmod ----------------------------------------------------------
X = [[5.5, -5.5, 3.25], [-3.0, 0.5, 7.25]]  # no exact multiple: a jump there
Y = [2.0, -2.0, 1.5]
WEIGHTS = [1.0, 2.0, 3.0]
# op -> (node, dx, dy) of sum(op(x, y) * weights): dx = weights, dy = -weights * quotient summed
GRADIENTS = {
    "remainder": ("RemainderBackward1", [[1.0, 2.0, 3.0]] * 2, [0.0, -2.0, -18.0]),
    "fmod": ("FmodBackward1", [[1.0, 2.0, 3.0]] * 2, [-1.0, -4.0, -18.0]),
}


def _grads(T, op):
    x = T.tensor(X, dtype=T.float64, requires_grad=True)
    y = T.tensor(Y, dtype=T.float64, requires_grad=True)
    out = getattr(T, op)(x, y)
    (out * T.tensor(WEIGHTS, dtype=T.float64)).sum().backward()
    return out.grad_fn.name(), x.grad.tolist(), y.grad.tolist()


@pytest.mark.parametrize("op", sorted(GRADIENTS))
def test_gradients(op):
    assert _grads(symgrad, op) == GRADIENTS[op]


@pytest.mark.parametrize(
    "op,node", [("remainder", "RemainderBackward0"), ("fmod", "FmodBackward0")]
)
def test_gradient_by_a_number(op, node):
    x = symgrad.tensor(X, dtype=symgrad.float64, requires_grad=True)
    out = getattr(symgrad, op)(x, -1.5)
    out.sum().backward()
    assert out.grad_fn.name() == node
    assert x.grad.tolist() == [[1.0] * 3] * 2


@pytest.mark.parametrize("op", sorted(GRADIENTS))
def test_gradients_under_create_graph_and_gradcheck(op):
    x = symgrad.tensor(X, dtype=symgrad.float64, requires_grad=True)
    y = symgrad.tensor(Y, dtype=symgrad.float64, requires_grad=True)
    gx, gy = symgrad.autograd.grad(getattr(symgrad, op)(x, y).sum(), (x, y), create_graph=True)
    assert gx.tolist() == [[1.0] * 3] * 2
    assert gy.tolist() == [g / w for g, w in zip(GRADIENTS[op][2], WEIGHTS)]
    assert symgrad.autograd.gradcheck(getattr(symgrad, op), (x, y))


def test_gradients_broadcast_and_keep_each_dtype():
    x = symgrad.tensor([[5.5], [-1.0]], requires_grad=True)  # float32
    y = symgrad.tensor([2.0, 3.0], dtype=symgrad.float64, requires_grad=True)
    out = x % y
    out.sum().backward()
    assert out.dtype is symgrad.float64
    assert (x.grad.dtype, y.grad.dtype) == (symgrad.float32, symgrad.float64)
    assert x.grad.tolist() == [[2.0], [2.0]]
    assert y.grad.tolist() == [-2.0 + 1.0, -1.0 + 1.0]  # -floor(x / y) summed over x


def test_number_by_tensor_has_no_derivative():
    """PyTorch records a NotImplemented node for ``number % tensor``: backward raises."""
    y = symgrad.tensor([2.0, -3.0], requires_grad=True)
    out = 7 % y
    assert out.requires_grad and out.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for remainder"):
        out.sum().backward()


# -- the same tables against PyTorch ----------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_pytorch_agrees(name, fn, expected):
    torch = pytest.importorskip("torch")
    _check(torch, fn, expected)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,dtype", DTYPES, ids=[c[0] for c in DTYPES])
def test_pytorch_dtype_agrees(name, fn, dtype):
    torch = pytest.importorskip("torch")
    assert str(fn(torch).dtype) == f"torch.{dtype}"


@pytest.mark.torch
@pytest.mark.torch
@pytest.mark.parametrize("op", sorted(GRADIENTS))
def test_pytorch_gradients_agree(op):
    torch = pytest.importorskip("torch")
    assert _grads(torch, op) == GRADIENTS[op]
