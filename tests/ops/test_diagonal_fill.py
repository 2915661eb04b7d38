"""Tensor.fill_diagonal_: values, wrap, n-d, the CopySlices node and its gradient, errors;
cross-checked against PyTorch when installed."""

from __future__ import annotations

import pytest

import symgrad


def _cases(lib):
    out = []
    out.append(lib.zeros(2, 4).fill_diagonal_(1).tolist())
    out.append(lib.zeros(7, 3).fill_diagonal_(5, wrap=True).tolist())
    out.append(lib.zeros(7, 3).fill_diagonal_(5).tolist())
    out.append(lib.zeros(4, 3).fill_diagonal_(2, wrap=True).tolist())
    out.append(lib.zeros(2, 2, 2).fill_diagonal_(1).tolist())
    out.append(lib.zeros(3, 3).t().fill_diagonal_(-1.5).tolist())
    out.append(lib.arange(6).reshape(2, 3).fill_diagonal_(9).tolist())
    return out


def _graph(lib):
    a = lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    b = a.clone()
    same = b.fill_diagonal_(0.5) is b
    (b * lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
    return same, type(b.grad_fn).__name__, b.tolist(), a.grad.tolist()


def test_values():
    values = _cases(symgrad)
    assert values[0] == [[1, 0, 0, 0], [0, 1, 0, 0]]
    assert values[1] == [
        [5, 0, 0],
        [0, 5, 0],
        [0, 0, 5],
        [0, 0, 0],
        [5, 0, 0],
        [0, 5, 0],
        [0, 0, 5],
    ]
    assert values[2] == [[5, 0, 0], [0, 5, 0], [0, 0, 5]] + [[0, 0, 0]] * 4
    assert values[3] == [[2, 0, 0], [0, 2, 0], [0, 0, 2], [0, 0, 0]]
    assert values[4] == [[[1, 0], [0, 0]], [[0, 0], [0, 1]]]
    assert values[5] == [[-1.5, 0, 0], [0, -1.5, 0], [0, 0, -1.5]]
    assert values[6] == [[9, 1, 2], [3, 9, 5]]


def test_node_and_gradient():
    same, name, values, grad = _graph(symgrad)
    assert same and name == "CopySlices"
    assert values == [[0.5, 2.0], [3.0, 0.5], [5.0, 6.0]]
    assert grad == [[0.0, 2.0], [3.0, 0.0], [5.0, 6.0]]


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        symgrad.zeros(3).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        symgrad.zeros(2, 3, 2).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        symgrad.zeros(2, 2, requires_grad=True).fill_diagonal_(1)


def test_against_torch():
    torch = pytest.importorskip("torch")
    assert _cases(symgrad) == _cases(torch)
    assert _graph(symgrad) == _graph(torch)
