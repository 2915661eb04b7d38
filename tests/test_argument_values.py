"""Argument values PyTorch's parser refuses where symgrad computed something: None (or a
string, a list) as a fill value (``x.fill_(None)`` and ``x.new_full(size, None)`` filled with
nan), an int for ``fill_diagonal_``'s wrap, a tensor of several elements (or a float one) as
``tril``'s and ``triu``'s diagonal, a second tensor for ``maximum`` and ``minimum`` or as
``isclose``'s tolerances, and a number for ``heaviside_``'s values.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when it is
installed.
"""

from __future__ import annotations

import pytest
from _torch_table import table_tests

import symgrad

TYPE = ("raises", "TypeError")


def _x(T):
    return T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def _m(T):
    return T.tensor([[1.0, 2.0], [3.0, 4.0]])


TRIL1 = ([[1.0, 2.0], [3.0, 4.0]], "float32", None)
CLOSE = ([[True, True], [True, True]], "bool", None)
CASES = {
    "fill_None": (lambda T: _x(T).fill_(None), TYPE),
    "fill_str": (lambda T: _x(T).fill_("a"), TYPE),
    "fill_list": (lambda T: _x(T).fill_([1]), TYPE),
    "fill_0d": (lambda T: _m(T).fill_(T.tensor(2)), ([[2.0, 2.0], [2.0, 2.0]], "float32", None)),
    "new_full_None": (lambda T: _x(T).new_full((2,), None), TYPE),
    "full_None": (lambda T: T.full((2,), None), TYPE),
    "masked_fill_None": (lambda T: _x(T).masked_fill(_x(T) > 0, None), TYPE),
    "index_fill_None": (lambda T: _x(T).index_fill(0, T.tensor([0]), None), TYPE),
    "fill_diagonal_None": (lambda T: _m(T).fill_diagonal_(None), TYPE),
    "fill_diagonal_tuple": (lambda T: _m(T).fill_diagonal_((0, 1)), TYPE),
    "fill_diagonal_wrap_1": (lambda T: _m(T).fill_diagonal_(0, 1), TYPE),
    "fill_diagonal_wrap_keyword_1": (lambda T: _m(T).fill_diagonal_(0, wrap=1), TYPE),
    "fill_diagonal_wrap": (
        lambda T: _m(T).fill_diagonal_(0, True),
        ([[0.0, 2.0], [3.0, 0.0]], "float32", None),
    ),
    "tril_tensor": (lambda T: _x(T).tril(_x(T)), TYPE),
    "triu_int_tensor": (lambda T: _x(T).triu(T.tensor([[1, 2], [3, 4]])), TYPE),
    "tril_float_tensor": (lambda T: _m(T).tril(T.tensor(1.0)), TYPE),
    "tril_0d_int_tensor": (lambda T: _m(T).tril(T.tensor(1)), TRIL1),
    "tril_1_element_tensor": (lambda T: _m(T).tril(T.tensor([1])), TRIL1),
    "triu_0d_int_tensor": (
        lambda T: _m(T).triu(T.tensor(1)),
        ([[0.0, 2.0], [0.0, 0.0]], "float32", None),
    ),
    "maximum_two": (lambda T: _x(T).maximum(_x(T), _x(T)), TYPE),
    "minimum_two": (lambda T: _x(T).minimum(_x(T), other=_x(T)), TYPE),
    "maximum_keyword": (lambda T: _m(T).maximum(other=_m(T)), TRIL1),
    "isclose_tensor_rtol": (lambda T: _x(T).isclose(_x(T), _x(T)), TYPE),
    "allclose_tensor_rtol": (lambda T: _x(T).allclose(_x(T), _x(T)), TYPE),
    "isclose_equal_nan_1": (lambda T: _m(T).isclose(_m(T), equal_nan=1), TYPE),
    "isclose_0d_rtol": (lambda T: _m(T).isclose(_m(T), T.tensor(0.1)), CLOSE),
    "isclose_int_tolerances": (lambda T: T.isclose(_m(T), _m(T), 1, 0), CLOSE),
    "heaviside__number": (lambda T: _m(T).heaviside_(1), TYPE),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


SPLIT_SIZES = [
    (lambda T: T.arange(6).split(T.tensor(2)), [[0, 1], [2, 3], [4, 5]]),
    (lambda T: T.arange(6).split(T.tensor(2.0)), [[0, 1], [2, 3], [4, 5]]),
    (lambda T: T.split(T.arange(6), T.tensor(4)), [[0, 1, 2, 3], [4, 5]]),
    (lambda T: T.arange(6).chunk(T.tensor(2)), [[0, 1, 2], [3, 4, 5]]),
    (lambda T: T.arange(6).split(T.tensor([2, 4])), TypeError),
    (lambda T: T.arange(6).chunk(T.tensor(2.0)), TypeError),
]


def _check_split(T, call, expected):
    if expected is TypeError:
        with pytest.raises(TypeError):
            call(T)
    else:
        assert [piece.tolist() for piece in call(T)] == expected


@pytest.mark.parametrize("call, expected", SPLIT_SIZES)
def test_a_one_element_tensor_is_a_split_size_or_chunk_count(call, expected):
    # split reads a one-element tensor with int(), chunk a 0-d integer one as its int (both
    # raised "iteration over a 0-d tensor"); split refuses sizes given as a tensor
    _check_split(symgrad, call, expected)


@pytest.mark.torch
@pytest.mark.parametrize("call, expected", SPLIT_SIZES)
def test_split_sizes_as_tensors_are_pytorchs(call, expected):
    _check_split(pytest.importorskip("torch"), call, expected)
