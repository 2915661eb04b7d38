"""Writes at repeated indices: ``index_copy``, ``scatter`` and ``put`` keep the last value
written to an entry, in the forward pass and in forward mode, as PyTorch's CPU kernels; the
gradient of the source still reaches every row, overwritten or not (PyTorch's backward
formulas)."""

from __future__ import annotations

import pytest

import symgrad
from symgrad.func import jvp

F64 = symgrad.float64


def _grid(T=symgrad):
    return T.arange(12.0, dtype=T.float64).reshape(3, 4)


def test_index_copy_keeps_the_last_row_written():
    x = _grid().requires_grad_(True)
    s = (symgrad.arange(6.0, dtype=F64).reshape(3, 2) * 10).requires_grad_(True)
    y = x.index_copy(1, symgrad.tensor([0, 0]), s)
    assert y.tolist() == [[10.0, 1.0, 2.0, 3.0], [30.0, 5.0, 6.0, 7.0], [50.0, 9.0, 10.0, 11.0]]
    assert y.grad_fn.name() == "IndexCopyBackward0"
    (y * _grid()).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0, 3.0], [0.0, 5.0, 6.0, 7.0], [0.0, 9.0, 10.0, 11.0]]
    assert s.grad.tolist() == [[0.0, 0.0], [4.0, 4.0], [8.0, 8.0]]
    rows = symgrad.zeros(2, 2).index_copy_(0, symgrad.tensor([1, 1, 1]), _grid()[:, :2].float())
    assert rows.tolist() == [[0.0, 0.0], [8.0, 9.0]]


def test_index_copy_copies_negative_zeros():
    x = symgrad.tensor([1.0, 2.0, 3.0])
    y = x.index_copy(0, symgrad.tensor([1, 2]), symgrad.tensor([-0.0, -0.0]))
    assert [str(v) for v in y.tolist()] == ["1.0", "-0.0", "-0.0"]


def test_forward_mode_keeps_the_last_tangent_written():
    x, s = _grid(), symgrad.arange(6.0, dtype=F64).reshape(3, 2)
    ts = symgrad.tensor([[1.0, 2.0]] * 3, dtype=F64)
    _, t = jvp(lambda s: x.index_copy(1, symgrad.tensor([2, 2]), s), (s,), (ts,))
    assert t[:, 2].tolist() == [2.0, 2.0, 2.0] and t.sum().item() == 6.0
    index = symgrad.tensor([[1, 1], [0, 0], [2, 2]])
    _, t = jvp(lambda s: x.scatter(1, index, s), (s,), (ts,))
    assert t.tolist() == [[0.0, 2.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0]]
    flat = symgrad.arange(6.0, dtype=F64)
    put = lambda x, s: x.put(symgrad.tensor([1, 1, 4]), s)  # noqa: E731
    _, t = jvp(put, (flat, ts[0, :1].repeat(3)), (flat * 0 + 1, symgrad.tensor([1.0, 2.0, 3.0])))
    assert t.tolist() == [1.0, 2.0, 1.0, 1.0, 3.0, 1.0]


def _run(T):
    x = _grid(T).requires_grad_(True)
    s = (T.arange(6.0, dtype=T.float64).reshape(3, 2) - 2).requires_grad_(True)
    y = x.index_copy(-1, T.tensor([3, 3]), s * s)
    ((y * _grid(T)).sum() + y[:, 3].sum()).backward()
    ts = T.tensor([[1.0, 2.0]] * 3, dtype=T.float64)
    index = T.tensor([[1, 1], [0, 0], [2, 2]])
    t1 = T.func.jvp(lambda s: _grid(T).index_copy(1, T.tensor([0, 0]), s), (s,), (ts,))[1]
    t2 = T.func.jvp(lambda s: _grid(T).scatter(1, index, s), (s,), (ts,))[1]
    flat = T.arange(6.0, dtype=T.float64)
    t3 = T.func.jvp(
        lambda v: flat.put(T.tensor([5, 5, 0]), v),
        (ts[0, :1].repeat(3),),
        (ts[:, 1] * T.tensor([1.0, 2.0, 3.0], dtype=T.float64),),
    )[1]
    return (
        y.tolist(), x.grad.tolist(), s.grad.tolist(), t1.tolist(), t2.tolist(), t3.tolist(),
        type(y.grad_fn).__name__,
    )  # fmt: skip


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _run(torch) == _run(symgrad)
