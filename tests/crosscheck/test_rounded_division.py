"""Rounded divisions record what PyTorch records: ``div(..., rounding_mode=...)`` a
``DivBackward2`` with zero gradients, ``//`` and ``floor_divide`` a node whose backward raises."""

from __future__ import annotations

import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_div_with_a_rounding_mode_has_zero_gradients(lib):
    x = lib.tensor([1.5, -2.5], requires_grad=True)
    w = lib.tensor([2.0, 3.0], requires_grad=True)
    y = lib.div(x, w, rounding_mode="trunc") + lib.div(x, 2, rounding_mode="floor")
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "DivBackward2"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0] and w.grad.tolist() == [0.0, 0.0]
    assert y.tolist() == [0.0 + 0.0, -0.0 - 2.0]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_floor_division_records_a_node_that_refuses_backward(lib):
    x = lib.tensor([1.5, 2.5], requires_grad=True)
    for y in (x // 2, 2 // x, lib.floor_divide(x, x)):
        assert y.requires_grad and y.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not"):
            y.sum().backward()
    assert (x // 2).tolist() == [0.0, 1.0]
    assert lib.tensor([7, -7]).floor_divide(2).tolist() == [3, -4]  # integers: nothing recorded
