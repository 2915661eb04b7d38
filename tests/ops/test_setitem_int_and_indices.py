"""``x[key] = value`` for a key holding ints and index tensors: PyTorch selects at the ints
first, then writes at the indices into that view, so the indices' dimensions stay where they
are (``x[0, :, [2, 0]]`` is a (3, 2) place, not NumPy's (2, 3)), the write is a
``CopySlices`` of the view, and a leaf's view is refused."""

from __future__ import annotations

import pytest

import symgrad


def _write(T, key, value):
    x = T.arange(18.0, dtype=T.float64).reshape(2, 3, 3).requires_grad_(True)
    v = T.tensor(value, dtype=T.float64, requires_grad=True)
    y = x * 1
    y[key(T)] = v
    (y * T.arange(18.0, dtype=T.float64).reshape(2, 3, 3)).sum().backward()
    return y.tolist(), y.grad_fn.name(), x.grad.tolist(), v.grad.tolist()


CASES = {  # name -> (key(T), value)
    "int_slice_list": (lambda T: (0, slice(None), [2, 0]), [[10.0, 20.0]] * 3),
    "list_slice_int": (lambda T: ([1, 0], slice(None), 1), [[10.0, 20.0, 30.0]] * 2),
    "zero_d_int_tensor": (lambda T: (T.tensor(1), slice(None), [0]), [[7.0], [8.0], [9.0]]),
    "int_then_list": (lambda T: (1, [1, 0]), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
}
_X = [
    [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
    [[9.0, 10.0, 11.0], [12.0, 13.0, 14.0], [15.0, 16.0, 17.0]],
]
EXPECTED = {  # name -> (the values of the written slab, the x gradient there, v's gradient)
    "int_slice_list": (
        0,
        [[20.0, 1.0, 10.0], [20.0, 4.0, 10.0], [20.0, 7.0, 10.0]],
        [[0.0, 1.0, 0.0], [0.0, 4.0, 0.0], [0.0, 7.0, 0.0]],
        [[2.0, 0.0], [5.0, 3.0], [8.0, 6.0]],
    ),
    "list_slice_int": (
        None,
        [
            [[0.0, 10.0, 2.0], [3.0, 20.0, 5.0], [6.0, 30.0, 8.0]],
            [[9.0, 10.0, 11.0], [12.0, 20.0, 14.0], [15.0, 30.0, 17.0]],
        ],
        [
            [[0.0, 0.0, 2.0], [3.0, 0.0, 5.0], [6.0, 0.0, 8.0]],
            [[9.0, 0.0, 11.0], [12.0, 0.0, 14.0], [15.0, 0.0, 17.0]],
        ],
        [[10.0, 13.0, 16.0], [1.0, 4.0, 7.0]],
    ),
    "zero_d_int_tensor": (
        1,
        [[7.0, 10.0, 11.0], [8.0, 13.0, 14.0], [9.0, 16.0, 17.0]],
        [[0.0, 10.0, 11.0], [0.0, 13.0, 14.0], [0.0, 16.0, 17.0]],
        [[9.0], [12.0], [15.0]],
    ),
    "int_then_list": (
        1,
        [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0], [15.0, 16.0, 17.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [15.0, 16.0, 17.0]],
        [[12.0, 13.0, 14.0], [9.0, 10.0, 11.0]],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ints_select_before_the_indices_write(name):
    values, node, gx, gv = _write(symgrad, *CASES[name])
    row, place, gx_place, want_gv = EXPECTED[name]
    if row is not None:  # the other slab is untouched
        assert values[1 - row] == _X[1 - row] and gx[1 - row] == _X[1 - row]
        values, gx = values[row], gx[row]
    assert values == place and gx == gx_place and gv == want_gv
    assert node == "torch::autograd::CopySlices"


def test_int_and_list_add_in_place_keeps_the_list_dimension_last():
    y = symgrad.zeros(2, 3, 3)
    y[0, :, [2, 0]] += symgrad.tensor([[1.0, 2.0]] * 3)
    assert y[0].tolist() == [[2.0, 0.0, 1.0]] * 3


def test_a_leaf_is_written_through_a_view():
    x = symgrad.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable"):
        x[0, [1]] = 1.0
    with pytest.raises(RuntimeError, match="^a leaf Variable"):
        x[:, [1]] = 1.0


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")
    assert _write(symgrad, *CASES[name]) == _write(torch, *CASES[name])
