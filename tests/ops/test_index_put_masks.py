"""``index_put`` reads index tensors as indexing does: a uint8 tensor is a mask (warned), int8
and int16 tensors are refused; one value written through a lone uint8 mask that fits is
refused as PyTorch's ``masked_fill_`` refuses it, a mask that does not fit gets indexing's
IndexError first (``x[key] = v`` too)."""

from __future__ import annotations

import pytest

import symgrad

UINT8 = "indexing with dtype .*uint8 is now deprecated"


def _x(T=symgrad):
    return T.arange(12.0, dtype=T.float64).reshape(3, 4)


def _u8(T, *v):
    return T.tensor(v, dtype=T.uint8)


def test_a_uint8_index_is_a_mask():
    x = _x().requires_grad_(True)
    with pytest.warns(UserWarning, match=UINT8):
        y = x.index_put((_u8(symgrad, 1, 0, 1),), symgrad.ones(4, dtype=symgrad.float64))
    assert y[:, 0].tolist() == [1.0, 4.0, 1.0] and y.grad_fn.name() == "IndexPutBackward0"
    y.sum().backward()
    assert x.grad[:, 0].tolist() == [0.0, 1.0, 0.0]
    with pytest.warns(UserWarning, match=UINT8):
        z = _x().index_put((_u8(symgrad, 1, 0, 1),), symgrad.tensor(2.0).double(), True)
    assert z[:, 1].tolist() == [3.0, 5.0, 11.0]
    with pytest.warns(UserWarning, match=UINT8):
        rows = _x().index_put((_u8(symgrad, 0, 0, 1), symgrad.tensor([3])), -_x()[0, 1])
    assert rows.tolist()[2] == [8.0, 9.0, 10.0, -1.0] and rows.sum().item() == 66.0 - 12.0


@pytest.mark.parametrize("dtype", ["int8", "int16"])
def test_narrow_index_tensors_are_refused(dtype):
    index = symgrad.tensor([0, 1], dtype=getattr(symgrad, dtype))
    with pytest.raises(IndexError, match="long, int, byte or bool"):
        _x().index_put((index,), symgrad.tensor(1.0, dtype=symgrad.float64))


@pytest.mark.filterwarnings("ignore:indexing with dtype")
def test_one_value_through_a_uint8_mask_is_refused():
    for mask in (_u8(symgrad, 1, 0, 1), symgrad.ones(3, 4, dtype=symgrad.uint8)):
        for value in (symgrad.tensor(5.0), symgrad.tensor([5.0])):
            with pytest.raises(RuntimeError, match="only supports boolean masks"):
                _x().float().index_put((mask,), value)
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        _x().float().index_put_((symgrad.tensor(1, dtype=symgrad.uint8),), symgrad.tensor(5.0))


@pytest.mark.filterwarnings("ignore:indexing with dtype")
def test_a_uint8_mask_that_does_not_fit_is_an_index_error():
    short = "The shape of the mask \\[2\\] at index 0 does not match .* \\[3, 4\\] at index 0"
    with pytest.raises(IndexError, match=short):
        _x().index_put((_u8(symgrad, 1, 0),), symgrad.tensor(1.0, dtype=symgrad.float64))
    x = _x()
    with pytest.raises(IndexError, match=short):
        x[_u8(symgrad, 1, 0)] = 1.0
    with pytest.raises(IndexError, match="mask \\[3\\] at index 0 .* at index 1"):
        x[:, _u8(symgrad, 1, 0, 1)] = 1.0


def _run(T):
    out = []
    m = _u8(T, 1, 0, 1)
    for call in (
        lambda: _x(T).index_put((m,), T.ones(4, dtype=T.float64)),
        lambda: _x(T).index_put((m,), T.tensor(2.0, dtype=T.float64), accumulate=True),
        lambda: _x(T).index_put((m,), T.tensor(2.0, dtype=T.float64)),
        lambda: _x(T).index_put((_u8(T, 1, 0),), T.ones(4, dtype=T.float64)),
        lambda: _x(T).index_put((T.tensor([0, 1], dtype=T.int8),), T.ones(4, dtype=T.float64)),
        lambda: _x(T).__setitem__((slice(None), m), 1.0),
    ):
        try:
            result = call()
            out.append(None if result is None else result.tolist())
        except (IndexError, RuntimeError) as exc:
            out.append(type(exc).__name__)
    return out


@pytest.mark.torch
@pytest.mark.filterwarnings("ignore:indexing with dtype")
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _run(torch) == _run(symgrad)
