"""Indexing corners as PyTorch 2.13 reads them: a list holding a sequence, slice, tensor, None
or ``...`` is a tuple of indices (with PyTorch's deprecation warning); uint8 tensors are masks
(warned); int8/int16 and the wide unsigned index tensors are refused; a uint8 mask written with
one value is refused as PyTorch's masked_fill_ refuses it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad

SEQUENCE = "non-tuple sequence for multidimensional indexing is deprecated"
UINT8 = "indexing with dtype .*uint8 is now deprecated"


def _x(T):
    return T.arange(12.0).reshape(3, 4).requires_grad_()


def _u8(T, *v):
    return T.tensor(v, dtype=T.uint8)


# (name, key(T), warning pattern or None, value, gradient of the sum)
CASES = [
    (
        "nested_list",
        lambda T: [[0, 1]],
        SEQUENCE,
        [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]],
        [[1.0] * 4, [1.0] * 4, [0.0] * 4],
    ),
    (
        "nested_pairs",
        lambda T: [[0, 1], [1, 2]],
        SEQUENCE,
        [1.0, 6.0],
        [[0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0] * 4],
    ),
    ("list_with_slice", lambda T: [0, slice(None)], SEQUENCE, [0.0, 1.0, 2.0, 3.0], None),
    ("list_with_none", lambda T: [0, None], SEQUENCE, [[0.0, 1.0, 2.0, 3.0]], None),
    ("list_with_ellipsis", lambda T: [0, ...], SEQUENCE, [0.0, 1.0, 2.0, 3.0], None),
    (
        "list_of_a_tensor",
        lambda T: [T.tensor([0, 1])],
        SEQUENCE,
        [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]],
        None,
    ),
    (
        "list_of_a_bool_list",
        lambda T: [[True, False, True]],
        SEQUENCE,
        [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]],
        None,
    ),
    (
        "plain_list",
        lambda T: [0, 1],
        None,
        [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]],
        None,
    ),
    (
        "uint8_rows",
        lambda T: _u8(T, 1, 0, 1),
        UINT8,
        [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]],
        [[1.0] * 4, [0.0] * 4, [1.0] * 4],
    ),
    (
        "uint8_any_nonzero",
        lambda T: _u8(T, 2, 0, 255),
        UINT8,
        [[0.0, 1.0, 2.0, 3.0], [8.0, 9.0, 10.0, 11.0]],
        None,
    ),
    (
        "uint8_full",
        lambda T: (T.arange(12).reshape(3, 4) > 8).to(T.uint8),
        UINT8,
        [9.0, 10.0, 11.0],
        [[0.0] * 4, [0.0] * 4, [0.0, 1.0, 1.0, 1.0]],
    ),
    (
        "uint8_columns",
        lambda T: (slice(None), _u8(T, 1, 0, 1, 0)),
        UINT8,
        [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]],
        None,
    ),
    ("uint8_with_int", lambda T: (_u8(T, 1, 0, 1), 1), UINT8, [1.0, 9.0], None),
    ("uint8_0d", lambda T: T.tensor(1, dtype=T.uint8), None, None, None),
]
IDS = [c[0] for c in CASES]


def _index(T, key):
    x = _x(T)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = x[key(T)]
    y.sum().backward()
    messages = [str(w.message) for w in caught if "jit" not in str(w.message)]
    return x, y, messages


@pytest.mark.parametrize("name, key, warning, value, grad", CASES, ids=IDS)
def test_values_gradients_and_warnings(name, key, warning, value, grad):
    x, y, messages = _index(symgrad, key)
    if name == "uint8_0d":
        value = [[[float(v + 4 * r) for v in range(4)] for r in range(3)]]
    assert y.tolist() == value
    assert type(y.grad_fn).__name__ in ("IndexBackward0", "SelectBackward0", "UnsqueezeBackward0")
    if grad is not None:
        assert x.grad.tolist() == grad
    if warning is None:
        assert messages == []
    else:
        import re

        assert len(messages) == 1 and re.search(warning, messages[0]), messages


@pytest.mark.parametrize("name, key, warning, value, grad", CASES, ids=IDS)
def test_agrees_with_torch(name, key, warning, value, grad):
    torch = pytest.importorskip("torch")
    x, y, messages = _index(symgrad, key)
    tx, ty, tmessages = _index(torch, key)
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    assert len(messages) == len([m for m in tmessages if "deprecated" in m])


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16", "uint32", "uint64"])
def test_narrow_and_wide_unsigned_index_tensors_are_refused(dtype):
    x = symgrad.arange(12.0).reshape(3, 4)
    with pytest.raises(IndexError, match="long, int, byte or bool"):
        x[symgrad.tensor([1, 0], dtype=getattr(symgrad, dtype))]
    # a 0-d one indexes like an int
    assert x[symgrad.tensor(1, dtype=getattr(symgrad, dtype))].tolist() == [4.0, 5.0, 6.0, 7.0]


def test_int32_index_tensors_are_fine():
    x = symgrad.arange(12.0).reshape(3, 4)
    assert x[symgrad.tensor([2], dtype=symgrad.int32)].tolist() == [[8.0, 9.0, 10.0, 11.0]]


def test_uint8_mask_of_the_wrong_shape():
    x = symgrad.arange(12.0).reshape(3, 4)
    with pytest.raises(IndexError):
        with pytest.warns(UserWarning, match=UINT8):
            x[_u8(symgrad, 1, 0)]


def test_writing_one_value_through_a_uint8_mask_is_refused():
    x = symgrad.arange(12.0).reshape(3, 4)
    for key in (_u8(symgrad, 1, 0, 1), (slice(None), _u8(symgrad, 1, 0, 1, 0))):
        for value in (5.0, symgrad.tensor(5.0), symgrad.tensor([5.0])):
            with pytest.raises(RuntimeError, match="only supports boolean masks"):
                x[key] = value
    assert x.tolist() == symgrad.arange(12.0).reshape(3, 4).tolist()


def test_writing_rows_through_a_uint8_mask():
    x = symgrad.arange(12.0).reshape(3, 4).requires_grad_()
    y = x * 1
    with pytest.warns(UserWarning, match=UINT8):
        y[_u8(symgrad, 1, 0, 1)] = symgrad.zeros(4)
    assert y[:, 0].tolist() == [0.0, 4.0, 0.0]
    assert type(y.grad_fn).__name__ == "IndexPutBackward0"


def test_writing_through_a_nested_list():
    x = symgrad.arange(12.0).reshape(3, 4)
    with pytest.warns(UserWarning, match=SEQUENCE):
        x[[[0, 1]]] = 0.0
    assert x[:, 0].tolist() == [0.0, 0.0, 8.0]


def test_where_takes_a_uint8_condition_with_a_warning():
    x = symgrad.tensor([1.0, 2.0])
    with pytest.warns(UserWarning, match="where received a uint8 condition"):
        assert symgrad.where(_u8(symgrad, 2, 0), x, 5.0).tolist() == [1.0, 5.0]
    with pytest.raises(RuntimeError, match="boolean"):
        symgrad.where(symgrad.tensor([1, 0], dtype=symgrad.int8), x, 5.0)


def test_index_fill_and_scatter_keep_the_dtype():
    idx = symgrad.tensor([1])
    filled = symgrad.zeros(3).index_fill(0, idx, 5.0)
    assert filled.dtype == symgrad.float32 and filled.tolist() == [0.0, 5.0, 0.0]
    ints = symgrad.zeros(3, dtype=symgrad.int64).index_fill(0, idx, 2.7)
    assert ints.dtype == symgrad.int64 and ints.tolist() == [0, 2, 0]
    assert symgrad.zeros(3).scatter(0, idx, 5.0).dtype == symgrad.float32


# lists of numbers are read as PyTorch reads them: all bools a mask, anything else a long index
# (floats cut toward zero); (key, the rows of x = arange(12).reshape(3, 4) picked, or shape)
NUMBER_LISTS = [
    (lambda: [0, 1.0], [0, 1]),
    (lambda: [True, 2], [1, 2]),
    (lambda: [False, 1], [0, 1]),
    (lambda: [0.5], [0]),
    (lambda: [-1.5, 2.9], [2, 2]),
    (lambda: [1.5, True], [1, 1]),
]


@pytest.mark.parametrize("key, rows", NUMBER_LISTS)
def test_lists_of_numbers_are_long_indices(key, rows):
    x = _x(symgrad)
    assert x[key()].tolist() == x.detach().numpy()[rows].tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x[None, key()].shape == (1, len(rows), 4)
        assert x[..., key()].shape == (3, len(rows))
    y = x.detach().clone()
    y[key()] = -1.0
    assert (y[rows] == -1).all()


# (key, PyTorch's exception type, words of the message)
BAD_KEYS = [
    (lambda: ["ab"], TypeError, "invalid data type 'str'"),
    (lambda: [0, "a"], TypeError, "invalid data type 'str'"),
    (lambda: "a", TypeError, "invalid data type 'str'"),
    (lambda: "abc", IndexError, "too many indices for tensor of dimension 2"),
    (lambda: [b"a"], TypeError, "invalid data type 'bytes'"),
    (lambda: [0j], TypeError, "'complex' object cannot be interpreted as an integer"),
    (lambda: [object()], RuntimeError, "Could not infer dtype of object"),
    (lambda: [float("nan")], RuntimeError, "cannot be converted to type int64"),
    (lambda: [1e30], RuntimeError, "cannot be converted to type int64"),
    (lambda: [None, 1.0], IndexError, "only integers, slices"),
]


@pytest.mark.parametrize("key, error, words", BAD_KEYS)
def test_keys_pytorch_refuses(key, error, words):
    x = _x(symgrad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=words.replace("(", "\\(").replace(")", "\\)")):
            x[key()]


@pytest.mark.parametrize("key, error, words", BAD_KEYS)
def test_keys_refused_as_torch_refuses(key, error, words):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error):
            _x(torch)[key()]


@pytest.mark.parametrize("key, rows", NUMBER_LISTS)
def test_lists_of_numbers_agree_with_torch(key, rows):
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _x(torch)[key()].tolist() == _x(symgrad)[key()].tolist()
