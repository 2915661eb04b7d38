"""dtypes, the default dtype and PyTorch's type-promotion rules."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import symgrad
from symgrad.dtypes import as_dtype

ALL = [
    symgrad.bool,
    symgrad.int32,
    symgrad.int64,
    symgrad.float16,
    symgrad.float32,
    symgrad.float64,
]
F32, F64, I32, I64, B = symgrad.float32, symgrad.float64, symgrad.int32, symgrad.int64, symgrad.bool


def vec(dtype):
    return symgrad.ones(2, dtype=dtype)


def scalar_tensor(dtype):
    return symgrad.ones((), dtype=dtype)


# -- dtypes --------------------------------------------------------------------------------------


def test_reprs_and_names():
    assert repr(F32) == "symgrad.float32" and repr(B) == "symgrad.bool"
    assert [d.name for d in ALL] == ["bool", "int32", "int64", "float16", "float32", "float64"]


def test_pytorch_aliases():
    assert symgrad.float is F32 and symgrad.double is F64
    assert symgrad.long is I64 and symgrad.int is I32 and symgrad.half is symgrad.float16


def test_is_floating_point():
    assert [d.is_floating_point for d in ALL] == [False, False, False, True, True, True]


@pytest.mark.parametrize("value, dtype", [(F64, F64), (float, F64), (int, I64), (bool, B)])
def test_as_dtype(value, dtype):
    assert as_dtype(value) is dtype


@pytest.mark.parametrize(
    "value, hint",
    [
        ("float64", "give symgrad.float64"),
        (np.float32, "give symgrad.float32"),
        (np.dtype("int64"), "give symgrad.int64"),
        ("bfloat16", ""),
        ("complex64", ""),
    ],
)
def test_names_and_numpy_dtypes_are_not_dtypes(value, hint):
    # PyTorch takes a torch.dtype or Python's float, int, bool: never a name or a NumPy dtype
    with pytest.raises(TypeError, match=f"argument 'dtype' must be torch.dtype.*{hint}"):
        as_dtype(value)
    with pytest.raises(TypeError, match="argument 'dtype' must be torch.dtype"):
        symgrad.zeros(2, dtype=value)


def test_unsupported_dtype_is_a_clear_error():
    with pytest.raises(TypeError, match="unsupported dtype.*symgrad supports"):
        as_dtype(complex)


def test_float32_is_the_default():
    assert symgrad.get_default_dtype() is F32
    assert symgrad.tensor(1.5).dtype is F32 and symgrad.ones(1).dtype is F32


def test_set_default_dtype():
    symgrad.set_default_dtype(F64)
    assert symgrad.get_default_dtype() is F64
    assert symgrad.tensor([1.5]).dtype is F64
    assert symgrad.arange(3.0).dtype is F64
    assert symgrad.tensor([1]).dtype is I64  # integers are untouched
    symgrad.set_default_dtype(F32)
    assert symgrad.tensor([1.5]).dtype is F32


@pytest.mark.parametrize("dtype", [I64, B, I32])
def test_only_floating_default_dtypes(dtype):
    with pytest.raises(TypeError, match="only floating-point types are supported as the default"):
        symgrad.set_default_dtype(dtype)
    assert symgrad.get_default_dtype() is F32


# -- promotion ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a, b, expected",
    [
        (B, I32, I32),
        (I32, I64, I64),
        (I64, F32, F32),
        (I64, symgrad.float16, symgrad.float16),
        (F32, F64, F64),
        (symgrad.float16, F32, F32),
        (B, B, B),
        (B, F64, F64),
    ],
)
def test_promote_types(a, b, expected):
    assert symgrad.promote_types(a, b) is expected
    assert symgrad.promote_types(b, a) is expected


@given(st.sampled_from(ALL), st.sampled_from(ALL), st.sampled_from(ALL))
def test_promote_types_is_a_join(a, b, c):
    p = symgrad.promote_types
    assert p(a, b) is p(b, a)
    assert p(p(a, b), c) is p(a, p(b, c))
    assert p(a, a) is a
    assert p(a, p(a, b)) is p(a, b)


@pytest.mark.parametrize(
    "make, expected",
    [
        # a Python float does not upcast a float32 tensor
        (lambda: vec(F32) + 2.5, F32),
        (lambda: vec(F32) * 2, F32),
        (lambda: vec(F64) + 2.5, F64),
        (lambda: vec(symgrad.float16) + 2.5, symgrad.float16),
        # float32 with float64 gives float64
        (lambda: vec(F32) + vec(F64), F64),
        (lambda: vec(F32) + symgrad.tensor([1.0], dtype=F64), F64),
        # integer tensors with a Python float give the default dtype
        (lambda: vec(I64) + 2.5, F32),
        (lambda: vec(I32) * 0.5, F32),
        (lambda: vec(I64) + 2, I64),
        (lambda: vec(I32) + 2, I32),
        (lambda: vec(I64) + True, I64),
        (lambda: vec(B) + 1, I64),
        (lambda: vec(B) + vec(B), B),
        (lambda: vec(I64) * vec(F32), F32),
        (lambda: vec(I32) + vec(I64), I64),
        # zero-dimensional tensors count like numbers unless they bring a higher category
        (lambda: vec(F32) + scalar_tensor(F64), F32),
        (lambda: vec(I32) + scalar_tensor(I64), I32),
        (lambda: vec(I64) + scalar_tensor(F64), F64),
        (lambda: vec(I64) + scalar_tensor(F32), F32),
        (lambda: scalar_tensor(F32) + scalar_tensor(F64), F64),
        (lambda: scalar_tensor(I64) + 1.5, F32),
        (lambda: scalar_tensor(F64) + 1.5, F64),
        # NumPy scalars count as Python numbers
        (lambda: vec(F32) + np.float64(2.5), F32),
        # true division and float functions of integers give the default dtype
        (lambda: vec(I64) / vec(I64), F32),
        (lambda: vec(I64) / 2, F32),
        (lambda: vec(I64).exp(), F32),
        (lambda: vec(I64) ** 2, I64),
        (lambda: vec(I64) ** 0.5, F32),
        (lambda: 2.0 ** vec(I64), F32),
    ],
)
def test_result_dtype_follows_pytorch(make, expected):
    assert make().dtype is expected


def test_integer_with_float_follows_the_default_dtype():
    symgrad.set_default_dtype(F64)
    assert (vec(I64) + 2.5).dtype is F64
    assert (vec(F32) + 2.5).dtype is F32  # still not upcast


def test_result_type():
    assert symgrad.result_type(vec(I64), 2.5) is F32
    assert symgrad.result_type(vec(F32), vec(F64)) is F64
    assert symgrad.result_type(vec(F32), scalar_tensor(F64)) is F32
    assert symgrad.result_type(2, 3) is I64
    assert symgrad.result_type(2, 3.0) is F32


def test_result_type_rejects_non_numbers():
    with pytest.raises(TypeError, match="expected a Tensor or a real number"):
        symgrad.result_type(vec(F32), "a")


def test_promoted_values_are_exact():
    assert (vec(I64) + 2.5).tolist() == [3.5, 3.5]
    assert (symgrad.tensor([3, 4]) / 2).tolist() == [1.5, 2.0]
    assert (symgrad.tensor([3, 4]) // 2).tolist() == [1, 2]


def test_gradient_flows_back_in_each_inputs_dtype():
    a = symgrad.tensor([1.0, 2.0], dtype=F32, requires_grad=True)
    b = symgrad.tensor([3.0, 4.0], dtype=F64, requires_grad=True)
    out = a * b
    assert out.dtype is F64
    out.sum().backward()
    assert a.grad.dtype is F32 and b.grad.dtype is F64
    assert a.grad.tolist() == [3.0, 4.0] and b.grad.tolist() == [1.0, 2.0]


@pytest.mark.torch
def test_promotion_matches_pytorch_for_every_pair_of_operand_kinds():
    torch = pytest.importorskip("torch")
    names = ["bool", "int32", "int64", "float16", "float32", "float64"]

    def operands(lib):
        for name in names:
            dtype = getattr(lib, name)
            yield f"vec {name}", lib.ones(2, dtype=dtype)
            yield f"0-d {name}", lib.ones((), dtype=dtype)
        yield "int", 2
        yield "float", 2.5
        yield "bool", True

    ours, theirs = dict(operands(symgrad)), dict(operands(torch))
    for left, right in itertools.product(ours, repeat=2):
        if not any(k.startswith(("vec", "0-d")) for k in (left, right)):
            continue
        mine = (ours[left] * ours[right]).dtype.name
        pytorchs = str((theirs[left] * theirs[right]).dtype).split(".")[-1]
        assert mine == pytorchs, (left, right)
