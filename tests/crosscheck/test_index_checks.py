"""index_select, gather, indexing with integer tensors, setitem, expand, cat and mv at their
edges: out-of-range indices, empty and 0-d tensors, shapes that do not fit.

PyTorch's exception types there follow its kernels (index_select raises IndexError or
RuntimeError depending on the layout), and some out-of-range indices go unnoticed because they
select nothing. Each case holds its expected result (values, or the exception type PyTorch
raises), so it runs without PyTorch; with PyTorch installed, the same table is checked against
it.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad


def _x(T, *shape):
    """``0, 1, 2, ...`` in ``shape`` (float64)."""
    n = int(np.prod(shape))
    return T.arange(n, dtype=T.float64).reshape(shape)


def _i(T, *values):
    return T.tensor(values, dtype=T.int64)


def _set(T, shape, key, value):
    y = _x(T, *shape)
    y[key(T) if callable(key) else key] = value(T)
    return y


# (name, f(T) -> tensor, expected array or exception type)
CASES = [
    # index_select: negative indices are out of range; dim 1 and empty inputs raise RuntimeError
    ("index_select_rows", lambda T: T.index_select(_x(T, 3, 2), 0, _i(T, 2, 0)), [[4, 5], [0, 1]]),
    ("index_select_0d_index", lambda T: T.index_select(_x(T, 3, 2), 0, T.tensor(1)), [[2, 3]]),
    ("index_select_row_past_end", lambda T: T.index_select(_x(T, 3, 2), 0, _i(T, 3)), IndexError),
    ("index_select_negative", lambda T: T.index_select(_x(T, 3, 2), 0, _i(T, -1)), IndexError),
    ("index_select_1d", lambda T: T.index_select(_x(T, 3), 0, _i(T, 3)), IndexError),
    ("index_select_dim1", lambda T: T.index_select(_x(T, 3, 2), 1, _i(T, 2)), RuntimeError),
    ("index_select_dim1_neg", lambda T: _x(T, 3, 2).index_select(1, _i(T, -1)), RuntimeError),
    ("index_select_dim2", lambda T: T.index_select(_x(T, 1, 2, 1), 2, _i(T, 1)), IndexError),
    ("index_select_empty", lambda T: T.index_select(_x(T, 2, 0), 0, _i(T, 2)), RuntimeError),
    (
        "index_select_empty_ok",
        lambda T: T.index_select(_x(T, 2, 0), 0, _i(T, 1, 1)),
        np.zeros((2, 0)),
    ),
    ("index_select_empty_dim", lambda T: T.index_select(_x(T, 2, 0), 1, _i(T, 0)), RuntimeError),
    ("index_select_no_index", lambda T: T.index_select(_x(T, 2, 0), 1, _i(T)), np.zeros((2, 0))),
    ("index_select_0d", lambda T: T.index_select(T.tensor(7.0), 0, _i(T, 0)), np.array(7.0)),
    ("index_select_0d_two", lambda T: T.index_select(T.tensor(7.0), 0, _i(T, 0, 0)), RuntimeError),
    ("index_select_0d_range", lambda T: T.index_select(T.tensor(7.0), 0, _i(T, 1)), IndexError),
    ("index_select_0d_dim1", lambda T: T.index_select(T.tensor(7.0), 1, _i(T, 0)), IndexError),
    ("index_select_2d_index", lambda T: T.index_select(_x(T, 3), 0, T.tensor([[0]])), IndexError),
    ("index_select_float", lambda T: T.index_select(_x(T, 3), 0, T.tensor([0.0])), RuntimeError),
    ("index_select_bool", lambda T: T.index_select(_x(T, 3), 0, T.tensor([True])), RuntimeError),
    # gather: the index gives the shape and may be shorter than the input apart from dim
    ("gather_short", lambda T: T.gather(_x(T, 2, 3), 1, T.tensor([[2, 2, 0, 1]])), [[2, 2, 0, 1]]),
    ("gather_rows", lambda T: T.gather(_x(T, 2, 3), 0, T.tensor([[1], [0]])), [[3], [0]]),
    ("gather_0d", lambda T: T.gather(T.tensor(7.0), 0, T.tensor(0)), np.array(7.0)),
    ("gather_0d_1d_index", lambda T: T.gather(T.tensor(7.0), 0, _i(T, 0, 0)), [7, 7]),
    ("gather_1d_0d_index", lambda T: T.gather(_x(T, 3), 0, T.tensor(2)), np.array(2.0)),
    ("gather_empty_index", lambda T: T.gather(_x(T, 2, 3), 0, _i(T)), np.zeros(0)),
    ("gather_dim_first", lambda T: T.gather(T.tensor(7.0), 1, T.tensor([[0]])), IndexError),
    ("gather_ranks", lambda T: T.gather(T.tensor(7.0), 0, T.tensor([[0]])), RuntimeError),
    ("gather_too_wide", lambda T: T.gather(_x(T, 2, 0), 0, T.tensor([[1, 0, 1]])), RuntimeError),
    ("gather_past_end", lambda T: T.gather(_x(T, 2, 3), 0, T.tensor([[2]])), RuntimeError),
    ("gather_negative", lambda T: T.gather(_x(T, 2, 3), 0, T.tensor([[-1]])), RuntimeError),
    ("gather_float", lambda T: T.gather(_x(T, 2, 3), 0, T.tensor([[0.0]])), RuntimeError),
    # advanced indexing: an index out of range that selects nothing is not an error
    ("index_selects_nothing", lambda T: _x(T, 2, 0)[_i(T, 0, 2, 0)], np.zeros((3, 0))),
    ("index_list_selects_nothing", lambda T: _x(T, 2, 0)[[5]], np.zeros((1, 0))),
    ("index_past_end", lambda T: _x(T, 3, 2)[[3]], IndexError),
    ("index_int_past_end", lambda T: _x(T, 2, 0)[2], IndexError),
    ("index_empty_dim", lambda T: _x(T, 2, 0)[:, _i(T, 0)], IndexError),
    ("index_empty_list", lambda T: _x(T, 3, 2)[[2], []], np.zeros(0)),
    # setitem: the value must broadcast to the indexed part (leading 1s may go)
    (
        "setitem_slice",
        lambda T: _set(T, (3, 2), slice(1, 3), lambda T: T.zeros(2, 3)),
        RuntimeError,
    ),
    ("setitem_grows", lambda T: _set(T, (3, 2), 0, lambda T: T.zeros(2, 2)), RuntimeError),
    ("setitem_index", lambda T: _set(T, (3, 2), [0, 1], lambda T: T.zeros(2, 2, 2)), RuntimeError),
    (
        "setitem_leading_ones",
        lambda T: _set(T, (3, 2), [0, 1], lambda T: -T.ones(1, 1, 2, dtype=T.float64)),
        [[-1, -1], [-1, -1], [4, 5]],
    ),
    # expand: -1 keeps a size, which a new leading dimension does not have
    ("expand_keep", lambda T: _x(T, 3, 1).expand(-1, 2), [[0, 0], [1, 1], [2, 2]]),
    ("expand_0d_keep", lambda T: T.tensor(1.0).expand(-1, 4), RuntimeError),
    ("expand_new_dim_keep", lambda T: _x(T, 3).expand(-1, 3), RuntimeError),
    # cat: (0,)-shaped tensors are left out, whatever dim says
    ("cat_skips_empty", lambda T: T.cat([_x(T, 2, 1), _x(T, 0), _x(T, 2, 1)], 1), [[0, 0], [1, 1]]),
    ("cat_only_empty", lambda T: T.cat([_x(T, 0), _x(T, 0)], 3), np.zeros(0)),
    ("cat_dim_of_the_others", lambda T: T.cat([_x(T, 0), _x(T, 2, 1)], 2), IndexError),
    # mv: a 0-d matrix has no first size to read
    ("mv_0d", lambda T: T.mv(T.tensor(1.0), T.tensor(2.0)), IndexError),
    ("mv_1d", lambda T: T.mv(_x(T, 3), _x(T, 3)), RuntimeError),
]


def _check(T, fn, expected):
    if isinstance(expected, type):
        with pytest.raises(expected):
            fn(T)
        return
    expected = np.asarray(expected, dtype=np.float64)
    got = fn(T).detach().numpy()
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_symgrad(name, fn, expected):
    _check(symgrad, fn, expected)


def test_messages_name_the_index_and_the_shapes():
    with pytest.raises(IndexError, match=r"index 3 is out of range for dimension 0 of size 3 "):
        symgrad.index_select(symgrad.zeros(3, 2), 0, symgrad.tensor([3]))
    with pytest.raises(RuntimeError, match=r"index -1 is out of bounds for dimension 1 with size"):
        symgrad.zeros(2, 3).gather(1, symgrad.tensor([[-1]]))
    with pytest.raises(RuntimeError, match=r"index \[1, 3\] to be no larger than input \[2, 0\]"):
        symgrad.zeros(2, 0).gather(0, symgrad.tensor([[1, 0, 1]]))
    with pytest.raises(RuntimeError, match=r"^expand\(torch.FloatTensor\{\[2, 2\]\}, size=\[2\]\)"):
        symgrad.zeros(3, 2)[0] = symgrad.zeros(2, 2)  # (PyTorch's words)
    with pytest.raises(RuntimeError, match=r"leading, non-existing dimension 0"):
        symgrad.tensor(1.0).expand(-1, 4)


# -- gradients: through the skipped, the short and the empty ------------------------------------
def _grads(T, fn, *inputs):
    xs = [T.tensor(np.asarray(v, dtype=np.float64), requires_grad=True) for v in inputs]
    out = fn(T, *xs)
    out.backward(T.ones(tuple(out.shape), dtype=T.float64))
    return [x.grad.numpy().tolist() for x in xs]


GRADIENTS = [
    (
        "cat_skipped",
        lambda T, a, e: T.cat([a, e, a], 1),
        ([[1.0], [2.0]], np.zeros(0)),
        [[[2.0], [2.0]], []],
    ),
    (
        "gather_short",
        lambda T, x: T.gather(x, 1, T.tensor([[2, 2, 0, 1]])),
        (np.zeros((2, 3)),),
        [[[1.0, 1.0, 2.0], [0.0, 0.0, 0.0]]],
    ),
    ("gather_0d", lambda T, x: T.gather(x, 0, T.tensor([0, 0])), (5.0,), [2.0]),
    ("index_select_0d", lambda T, x: T.index_select(x, 0, T.tensor([0])), (5.0,), [1.0]),
    ("index_selects_nothing", lambda T, x: x[[5, 7]], (np.zeros((2, 0)),), [[[], []]]),
]


@pytest.mark.parametrize("name,fn,inputs,expected", GRADIENTS, ids=[c[0] for c in GRADIENTS])
def test_gradients(name, fn, inputs, expected):
    assert _grads(symgrad, fn, *inputs) == expected


# -- the same tables against PyTorch ------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_pytorch_agrees(name, fn, expected):
    torch = pytest.importorskip("torch")
    _check(torch, fn, expected)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,inputs,expected", GRADIENTS, ids=[c[0] for c in GRADIENTS])
def test_pytorch_gradients_agree(name, fn, inputs, expected):
    torch = pytest.importorskip("torch")
    assert _grads(torch, fn, *inputs) == expected
