"""``scatter(..., reduce='add' | 'multiply')``, deprecated in PyTorch but still run: the
values, the deprecation warning (a tensor source only), the ``NotImplemented`` node whose
backward raises, and the errors; cross-checked against PyTorch when installed."""

from __future__ import annotations

import warnings

import pytest

import symgrad


def _values(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        index = lib.tensor([[0, 0], [2, 2]])
        src = lib.tensor([[2.0, 3.0], [4.0, 5.0]])
        return [
            lib.ones(2, 3).scatter(1, index, src, reduce="multiply").tolist(),
            lib.ones(2, 3).scatter(1, index, src, reduce="add").tolist(),
            lib.zeros(3)
            .scatter_(0, lib.tensor([1, 1]), lib.tensor([5.0, 5.0]), reduce="add")
            .tolist(),
            lib.ones(3).scatter(0, lib.tensor([1, 1]), 2.5, reduce="add").tolist(),
            lib.ones(3).scatter(0, lib.tensor([2, 2]), 3.0, reduce="multiply").tolist(),
            lib.ones(3, dtype=lib.int64)
            .scatter(0, lib.tensor([1, 1]), lib.tensor([2, 3]), reduce="add")
            .tolist(),
            lib.ones(4)
            .scatter(0, lib.tensor([3]), lib.tensor([7.0, 8.0]), reduce="multiply")
            .tolist(),
        ]


def _graph(lib):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = lib.ones(3, requires_grad=True)
        y = x.scatter(0, lib.tensor([1]), lib.tensor([2.0]), reduce="multiply")
    name = type(y.grad_fn).__name__
    try:
        y.sum().backward()
    except RuntimeError as e:
        return name, str(e)
    return name, None


def test_values():
    assert _values(symgrad) == [
        [[6.0, 1.0, 1.0], [1.0, 1.0, 20.0]],
        [[6.0, 1.0, 1.0], [1.0, 1.0, 10.0]],
        [0.0, 10.0, 0.0],
        [1.0, 6.0, 1.0],
        [1.0, 1.0, 9.0],
        [1, 6, 1],
        [1.0, 1.0, 1.0, 7.0],
    ]


def test_a_tensor_source_warns():
    with pytest.warns(UserWarning, match="reduce argument of torch.scatter with Tensor src"):
        symgrad.ones(3).scatter(0, symgrad.tensor([1]), symgrad.tensor([2.0]), reduce="add")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        symgrad.ones(3).scatter(0, symgrad.tensor([1]), 2.0, reduce="add")


def test_the_node_has_no_derivative():
    assert _graph(symgrad) == ("NotImplemented", "derivative for aten::scatter is not implemented")


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="reduce argument must be either add or multiply."):
        symgrad.ones(3).scatter(0, symgrad.tensor([1]), 2.0, reduce="mean")
    with pytest.raises(RuntimeError, match="out of bounds"):
        symgrad.ones(3).scatter(0, symgrad.tensor([3]), 2.0, reduce="add")


def test_against_torch():
    torch = pytest.importorskip("torch")
    assert _values(symgrad) == _values(torch)
    assert _graph(symgrad) == _graph(torch)
