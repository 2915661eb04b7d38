"""Comparisons with operands PyTorch's operators leave to Python, and shapes that don't
broadcast: PyTorch's results and its exception types."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad


@pytest.mark.parametrize("other", [None, "a", [1, 1, 1], (1, 2, 3), {}, object()])
def test_equality_with_a_non_number_is_python_s(other: object) -> None:
    x = symgrad.ones(3)
    assert (x == other) is False
    assert (x != other) is True
    with pytest.raises(TypeError, match="not supported between instances"):
        x < other  # noqa: B015
    assert x not in [None, "a"]


def test_the_functions_still_refuse_a_non_number() -> None:
    with pytest.raises(TypeError, match="eq"):
        symgrad.eq(symgrad.ones(3), None)


def test_numbers_arrays_and_tensors_still_compare() -> None:
    x = symgrad.tensor([1.0, 2.0])
    assert (x == 1).tolist() == [True, False]
    assert (x < np.float64(2)).tolist() == [True, False]
    assert (x == np.array([1.0, 0.0])).tolist() == [True, False]
    assert (x >= symgrad.tensor(2.0)).tolist() == [False, True]


BROADCASTING = {
    "==": lambda x, y: x == y,
    "<": lambda x, y: x < y,
    "eq": lambda x, y: symgrad.eq(x, y),
    "ne": lambda x, y: x.ne(y),
    "logical_and": lambda x, y: symgrad.logical_and(x, y),
    "logical_xor": lambda x, y: symgrad.logical_xor(x, y),
    "&": lambda x, y: x.bool() & y.bool(),
    "|": lambda x, y: x.bool() | y.bool(),
    "^": lambda x, y: x.int() ^ y.int(),
    "isclose": lambda x, y: symgrad.isclose(x, y),
}


@pytest.mark.parametrize("name", sorted(BROADCASTING))
def test_shapes_that_do_not_broadcast_raise_runtime_error(name: str) -> None:
    x, y = symgrad.ones(3, 4), symgrad.ones(2, 4)
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match"):
        BROADCASTING[name](x, y)
