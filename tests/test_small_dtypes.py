"""The small integer dtypes (uint8, int8, int16): promotion, conversions, arithmetic computed
in the result's type, and ``iinfo``/``finfo``."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
# PyTorch's promote_types over NAMES, row by row
PROMOTED = [
    ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"],
    ["uint8", "uint8", "int16", "int16", "int32", "int64", "float16", "float32", "float64"],
    ["int8", "int16", "int8", "int16", "int32", "int64", "float16", "float32", "float64"],
    ["int16", "int16", "int16", "int16", "int32", "int64", "float16", "float32", "float64"],
    ["int32", "int32", "int32", "int32", "int32", "int64", "float16", "float32", "float64"],
    ["int64", "int64", "int64", "int64", "int64", "int64", "float16", "float32", "float64"],
    ["float16"] * 7 + ["float32", "float64"],
    ["float32"] * 8 + ["float64"],
    ["float64"] * 9,
]


def _dtype(name):
    return symgrad.bool if name == "bool" else getattr(symgrad, name)


@pytest.mark.parametrize("i,a", list(enumerate(NAMES)))
def test_promote_types(i, a):
    got = [symgrad.promote_types(_dtype(a), _dtype(b)).name for b in NAMES]
    assert got == PROMOTED[i]


def test_promotion_of_tensors():
    u = symgrad.tensor([200, 100], dtype=symgrad.uint8)
    s = symgrad.tensor([-100, 27], dtype=symgrad.int8)
    total = u + s
    assert total.dtype is symgrad.int16
    assert total.tolist() == [100, 127]
    assert (u + 3).dtype is symgrad.uint8  # a Python int keeps the tensor's dtype
    assert (u * 0.5).dtype is symgrad.float32
    assert (u + symgrad.tensor(1)).dtype is symgrad.uint8  # a 0-d tensor of the same category


def test_integer_arithmetic_wraps_in_the_dtype():
    u = symgrad.tensor([250, 3], dtype=symgrad.uint8)
    assert (u + u).tolist() == [244, 6]
    assert (u - 5).tolist() == [245, 254]


def test_floating_results_are_computed_in_the_result_type():
    # NumPy would compute exp(int8) in float16 and sigmoid(uint8) through a wrapped -x
    x = symgrad.tensor([3, 0, 7], dtype=symgrad.int8)
    assert x.exp().dtype is symgrad.float32
    np.testing.assert_allclose(x.exp().numpy(), np.exp([3.0, 0.0, 7.0]), rtol=1e-6)
    u = symgrad.tensor([3, 0, 7], dtype=symgrad.uint8)
    np.testing.assert_allclose(u.sigmoid().numpy(), 1 / (1 + np.exp([-3.0, 0.0, -7.0])), 1e-6)


def test_reductions_of_small_integers_are_int64():
    u = symgrad.tensor([200, 100], dtype=symgrad.uint8)
    assert u.sum().dtype is symgrad.int64 and u.sum().item() == 300
    assert u.prod().dtype is symgrad.int64 and u.prod().item() == 20000


def test_conversions_and_aliases():
    x = symgrad.tensor([1.7, -2.2])
    assert x.byte().dtype is symgrad.uint8
    assert x.char().tolist() == [1, -2] and x.char().dtype is symgrad.int8
    assert x.short().dtype is symgrad.int16
    assert symgrad.short is symgrad.int16
    assert not hasattr(symgrad, "char") and not hasattr(symgrad, "byte")  # as in PyTorch
    assert symgrad.int16.is_signed and not symgrad.uint8.is_signed
    assert symgrad.uint8.itemsize == 1


def test_printing():
    x = symgrad.ones(2, dtype=symgrad.int16)
    assert repr(x) == "tensor([1, 1], dtype=symgrad.int16)"
    assert repr(symgrad.uint8) == "symgrad.uint8"


def test_iinfo_and_finfo():
    assert repr(symgrad.iinfo(symgrad.uint8)) == "iinfo(min=0, max=255, dtype=uint8)"
    info = symgrad.iinfo(symgrad.int16)
    assert (info.bits, info.min, info.max, info.dtype) == (16, -32768, 32767, "int16")
    f = symgrad.finfo(symgrad.float32)
    assert f.eps == 2.0**-23 and f.bits == 32 and f.tiny == 2.0**-126 and f.resolution == 1e-6
    assert symgrad.finfo() == symgrad.finfo(symgrad.get_default_dtype())
    with pytest.raises(TypeError, match="finfo"):
        symgrad.iinfo(symgrad.float32)
    with pytest.raises(TypeError, match="iinfo"):
        symgrad.finfo(symgrad.int32)
    with pytest.raises(TypeError, match="not supported"):
        symgrad.iinfo(symgrad.bool)
    with pytest.raises(TypeError, match="must be torch.dtype"):
        symgrad.iinfo("int8")


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for a in NAMES:
        for b in NAMES:
            want = torch.promote_types(getattr(torch, a), getattr(torch, b))
            assert symgrad.promote_types(_dtype(a), _dtype(b)).name == str(want)[6:]
    for name in ("uint8", "int8", "int16", "int32", "int64"):
        assert repr(symgrad.iinfo(_dtype(name))) == repr(torch.iinfo(getattr(torch, name)))
    for name in ("float16", "float32", "float64"):
        assert repr(symgrad.finfo(_dtype(name))) == repr(torch.finfo(getattr(torch, name)))
    values = [[3, 0, 5], [2, 7, 1]]
    for name in ("uint8", "int8", "int16"):
        for op in (
            lambda T, x: x + x,
            lambda T, x: x * 2.5,
            lambda T, x: x.sum(0),
            lambda T, x: x.prod(),
            lambda T, x: x.sqrt(),
            lambda T, x: x + T.tensor([1, 2, 3], dtype=T.int8),
        ):
            want = op(torch, torch.tensor(values, dtype=getattr(torch, name)))
            got = op(symgrad, symgrad.tensor(values, dtype=_dtype(name)))
            assert got.dtype.name == str(want.dtype)[6:]
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
