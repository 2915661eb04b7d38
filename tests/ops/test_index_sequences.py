"""Index keys as PyTorch 2.13 reads them: a tuple, list or range inside the key tuple is an
index tensor (``x[(0, 1),]`` is ``x[[0, 1]]``), and a slice's bounds may be 0-d integer
tensors (``x[t(1):t(4)]``)."""

from __future__ import annotations

import pytest

import symgrad


def _x():
    return symgrad.arange(12.0).reshape(3, 4).requires_grad_()


ROWS_01 = [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
ROWS_02 = [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]]
ROWS_01_20 = [ROWS_01, [[8.0, 9.0, 10.0, 11.0], [0.0, 1.0, 2.0, 3.0]]]

# (name, key, value of x[key])
SEQUENCE_KEYS = [
    ("tuple", lambda: ((0, 1),), ROWS_01),
    ("list", lambda: ([0, 1],), ROWS_01),
    ("tuple_then_colon", lambda: ((0, 1), slice(None)), ROWS_01),
    ("colon_then_tuple", lambda: (slice(None), (0, 3)), [[0.0, 3.0], [4.0, 7.0], [8.0, 11.0]]),
    ("ellipsis_then_tuple", lambda: (..., (0, 3)), [[0.0, 3.0], [4.0, 7.0], [8.0, 11.0]]),
    ("none_then_tuple", lambda: (None, (0, 2)), [ROWS_02]),
    ("int_then_tuple", lambda: (1, (0, 3)), [4.0, 7.0]),
    ("two_tuples", lambda: ((0, 1), (2, 3)), [2.0, 7.0]),
    ("broadcast_tuples", lambda: (((0,), (2,)), (1, 3)), [[1.0, 3.0], [9.0, 11.0]]),
    ("nested_lists", lambda: ([[0, 1], [2, 0]],), ROWS_01_20),
    ("nested_tuples", lambda: (((0, 1), (2, 0)),), ROWS_01_20),
    ("tuple_of_list", lambda: (((0, 1), [2, 0]),), ROWS_01_20),
    ("one_entry", lambda: ((1,),), [[4.0, 5.0, 6.0, 7.0]]),
    ("negative", lambda: ((-1, 0),), [[8.0, 9.0, 10.0, 11.0], [0.0, 1.0, 2.0, 3.0]]),
    ("floats_cut", lambda: ((0.0, 1.9),), ROWS_01),
    ("bool_mask", lambda: ((True, False, True),), ROWS_02),
    ("bool_mask_columns", lambda: (slice(None), (True, False, True, False)), None),
    ("tensors", lambda: ((symgrad.tensor(0), symgrad.tensor(2)),), ROWS_02),
    ("bool_tensors", lambda: ((symgrad.tensor(True), symgrad.tensor(False), True),), ROWS_02),
    ("one_element_tensors", lambda: ([symgrad.tensor([0]), symgrad.tensor([2])],), ROWS_02),
    ("range", lambda: (range(2),), ROWS_01),
]


@pytest.mark.parametrize("name, key, value", SEQUENCE_KEYS, ids=[c[0] for c in SEQUENCE_KEYS])
def test_sequence_in_key_tuple_is_an_index(name, key, value):
    y = _x()[key()]
    if value is not None:
        assert y.tolist() == value
    assert y.grad_fn.name() == "IndexBackward0"


def test_sequence_in_key_tuple_gradient():
    x = _x()
    y = x[((0, 1), (2, 0)),]
    assert y.shape == (2, 2, 4)
    (y * symgrad.arange(16.0).reshape(2, 2, 4)).sum().backward()
    assert x.grad.tolist() == [
        [12.0, 14.0, 16.0, 18.0],
        [4.0, 5.0, 6.0, 7.0],
        [8.0, 9.0, 10.0, 11.0],
    ]
    x = _x()
    x[:, (0, 2, 0)].sum().backward()
    assert x.grad.tolist() == [[2.0, 0.0, 1.0, 0.0]] * 3


def test_empty_sequences_in_key_tuple():
    x = _x()
    assert x[(),].shape == (0, 4)
    assert x[(), 0].shape == (0,)
    assert x[((), ()),].shape == (2, 0, 4)


def test_write_through_sequence_in_key_tuple():
    y = symgrad.zeros(3, 4)
    y[(0, 2),] = 1.0
    assert y.tolist() == [[1.0] * 4, [0.0] * 4, [1.0] * 4]
    y = symgrad.zeros(3, 4)
    y[:, (0, 2)] = symgrad.full((3, 2), 5.0)
    assert y.tolist() == [[5.0, 0.0, 5.0, 0.0]] * 3


# (name, key, exception type, message fragment)
BAD_SEQUENCE_KEYS = [
    ("ragged_tuple", lambda: ((0, (1, 2)),), TypeError, "'tuple' object cannot be interpreted"),
    ("ragged_list", lambda: ([0, [1, 2]],), TypeError, "'list' object cannot be interpreted"),
    ("deep_ragged", lambda: ([[0, 1], [2, [0]]],), TypeError, "'list' object cannot be"),
    ("not_a_sequence", lambda: (((1, 2), 0),), TypeError, "not a sequence"),
    ("lengths", lambda: (((1, 2), (0,)),), ValueError, "expected sequence of length 2 at dim 1"),
    ("slice_inside", lambda: ((slice(None), 0),), RuntimeError, "Could not infer dtype of slice"),
    ("none_inside", lambda: ((None, 0),), RuntimeError, "Could not infer dtype of NoneType"),
    ("str_inside", lambda: (("a", 0),), TypeError, "invalid data type 'str'"),
    ("complex_inside", lambda: ((1j, 0),), TypeError, "'complex' object cannot be"),
    ("out_of_range", lambda: ((5, 0),), IndexError, "out of bounds"),
    ("too_many", lambda: ((0, 1), (1, 2), (0,)), IndexError, "too many indices"),
    (
        "float_tensor_inside",
        lambda: ((symgrad.tensor(0.0), symgrad.tensor(2.0)),),
        TypeError,
        "only integer tensors of a single element",
    ),
    (
        "vector_tensors_inside",
        lambda: ((symgrad.tensor([0, 1]), symgrad.tensor([2, 0])),),
        TypeError,
        "only integer tensors of a single element",
    ),
]


@pytest.mark.parametrize(
    "name, key, error, fragment", BAD_SEQUENCE_KEYS, ids=[c[0] for c in BAD_SEQUENCE_KEYS]
)
def test_bad_sequence_in_key_tuple(name, key, error, fragment):
    with pytest.raises(error, match=fragment):
        _x()[key()]


def _t(n):
    return symgrad.tensor(n)


def test_slice_with_tensor_bounds():
    v = symgrad.arange(10.0).requires_grad_()
    y = v[_t(1) : _t(4)]
    assert y.tolist() == [1.0, 2.0, 3.0]
    assert y.grad_fn.name() == "SliceBackward0"
    assert y.grad_fn.params["key"] == (slice(1, 4, None),)
    y = v[_t(1) : _t(8) : _t(3)]
    assert y.tolist() == [1.0, 4.0, 7.0]
    y.sum().backward()
    assert v.grad.tolist() == [0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0]


def test_slice_with_tensor_bounds_more():
    v = symgrad.arange(10.0)
    assert v[_t(-3) :].tolist() == [7.0, 8.0, 9.0]
    assert v[: _t(-7)].tolist() == [0.0, 1.0, 2.0]
    assert v[symgrad.tensor([1]) : symgrad.tensor(3, dtype=symgrad.int32)].tolist() == [1.0, 2.0]
    assert v[_t(True) : 3].tolist() == [1.0, 2.0]
    m = symgrad.arange(12.0).reshape(3, 4)
    assert m[0, _t(1) : _t(3)].tolist() == [1.0, 2.0]
    assert m[[0, 2], _t(1) : _t(3)].tolist() == [[1.0, 2.0], [9.0, 10.0]]
    w = symgrad.arange(10.0)
    w[_t(1) : _t(8) : _t(2)] = symgrad.zeros(4)
    assert w.tolist() == [0.0, 0.0, 2.0, 0.0, 4.0, 0.0, 6.0, 0.0, 8.0, 9.0]


@pytest.mark.parametrize(
    "key, error, fragment",
    [
        (lambda: slice(_t(1.0), _t(4)), TypeError, "only integer tensors of a single element"),
        (lambda: slice(symgrad.tensor([1, 2]), 4), TypeError, "only integer tensors of a single"),
        (lambda: slice(1.5, 3), TypeError, "slice indices must be integers or None"),
        (lambda: slice(None, None, 0), ValueError, "slice step cannot be zero"),
        (lambda: slice(None, None, _t(0)), ValueError, "slice step cannot be zero"),
        (lambda: slice(None, None, _t(-1)), ValueError, "step must be greater than zero"),
    ],
)
def test_bad_slice_bounds(key, error, fragment):
    with pytest.raises(error, match=fragment):
        symgrad.arange(10.0)[key()]
