"""where with an int scalar that the integer tensor's dtype can't hold raises PyTorch's
RuntimeError (it was cast, wrapping: where(a > 1, a, 300) on int8 gave 44)."""

from __future__ import annotations

import pytest

import symgrad


@pytest.mark.parametrize("value", [300, -129, 1000])
def test_an_int8_tensor_and_an_int_it_cannot_hold(value: int) -> None:
    a = symgrad.tensor([1, 2], dtype=symgrad.int8)
    with pytest.raises(RuntimeError, match="cannot be converted to type int8 without overflow"):
        symgrad.where(a > 1, a, value)
    with pytest.raises(RuntimeError, match="without overflow"):
        symgrad.where(a > 1, value, a)


def test_values_the_dtype_holds_and_unsigned_wrapping() -> None:
    a = symgrad.tensor([1, 2], dtype=symgrad.int8)
    assert symgrad.where(a > 1, a, 127).tolist() == [127, 2]
    assert symgrad.where(a > 1, 3.5, a).tolist() == [1.0, 3.5]
    u = symgrad.tensor([1, 2], dtype=symgrad.uint8)
    assert symgrad.where(u > 1, u, -1).tolist() == [255, 2]  # PyTorch's checked conversion
    with pytest.raises(RuntimeError, match="uint8 without overflow"):
        symgrad.where(u > 1, u, 256)
    with pytest.raises(RuntimeError, match="uint8 without overflow"):
        symgrad.where(u > 1, u, -256)
    big = 2**40
    assert symgrad.where(symgrad.tensor([True, False]), big, 3).tolist() == [big, 3]
