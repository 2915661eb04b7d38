"""``gather``'s ``sparse_grad`` keyword (False gives the dense gradient; True, a sparse one,
is refused) and ``take_along_dim``'s refusal of indices that are not int64 along a dim."""

from __future__ import annotations

import pytest

import symgrad


def test_gather_takes_sparse_grad_false():
    x = symgrad.arange(6.0).reshape(2, 3).requires_grad_(True)
    y = symgrad.gather(x, 1, symgrad.tensor([[2], [0]]), sparse_grad=False)
    z = x.gather(1, symgrad.tensor([[1], [1]]), sparse_grad=False)
    assert y.tolist() == [[2.0], [3.0]] and y.grad_fn.name() == "GatherBackward0"
    (y.sum() + z.sum()).backward()
    assert x.grad.tolist() == [[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]
    with pytest.raises(NotImplementedError, match="sparse_grad=False"):
        x.gather(1, symgrad.tensor([[1]]), sparse_grad=True)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32", "bool"])
def test_take_along_dim_wants_long_indices_along_a_dim(dtype):
    x = symgrad.arange(6.0).reshape(2, 3)
    indices = symgrad.tensor([[0]], dtype=getattr(symgrad, dtype))
    with pytest.raises(RuntimeError, match="dtype of indices should be Long but got"):
        symgrad.take_along_dim(x, indices, 1)


def _run(T):
    x = T.arange(6.0).reshape(2, 3)
    out = [T.gather(x, 1, T.tensor([[2], [0]]), sparse_grad=False).tolist()]
    out.append(T.take_along_dim(x, T.tensor([[0]], dtype=T.int32)).tolist())  # (no dim: fine)
    try:
        T.take_along_dim(x, T.tensor([[0]], dtype=T.int32), 1)
    except RuntimeError as exc:
        out.append(str(exc).split(";")[0])
    return out


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _run(torch) == _run(symgrad)
