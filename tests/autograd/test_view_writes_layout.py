"""An in-place change through a view reaches its base whatever the base's memory layout: a
base in column-major order (the product of a transposed tensor keeps its strides, as in
PyTorch) or strided, with the change recorded (CopySlices), unrecorded, or carrying a forward
tangent."""

from __future__ import annotations

import pytest

import symgrad
import symgrad.autograd.forward_ad as fwAD


def _column_major(lib, requires_grad):
    x = lib.arange(9.0).reshape(3, 3).t()
    if requires_grad:
        x.requires_grad_()
    return x * 1  # strides (1, 3), as x's


def _recorded(lib):
    leaf = lib.arange(9.0).reshape(3, 3).t().requires_grad_()
    y = leaf * 1
    y.diagonal().fill_(-1.0)
    y[:, 2].mul_(10.0)
    (y * lib.arange(9.0).reshape(3, 3)).sum().backward()
    return y.tolist(), type(y.grad_fn).__name__, leaf.grad.tolist()


def _unrecorded(lib):
    y = _column_major(lib, False)
    y.diagonal().fill_(-1.0)
    y[1].add_(100.0)
    z = lib.arange(36.0).reshape(6, 6).t()[::2, ::2] * 1
    z.diagonal().zero_()
    return y.tolist(), z.tolist()


def _tangent(lib, fw):
    with fw.dual_level():
        primal = lib.arange(9.0).reshape(3, 3).t()
        dual = fw.make_dual(primal, lib.ones(3, 3).t() * 1)
        y = dual * 1
        y.diagonal().mul_(5.0)
        return fw.unpack_dual(y).tangent.tolist()


RECORDED = (
    [[-1.0, 3.0, 60.0], [1.0, -1.0, 70.0], [2.0, 5.0, -10.0]],
    "CopySlices",
    [[0.0, 1.0, 20.0], [3.0, 0.0, 50.0], [6.0, 7.0, 0.0]],
)


def test_a_recorded_change_through_a_view_of_a_column_major_tensor():
    assert _recorded(symgrad) == RECORDED


def test_unrecorded_changes_through_views_of_other_layouts():
    y, z = _unrecorded(symgrad)
    assert y == [[-1.0, 3.0, 6.0], [101.0, 99.0, 107.0], [2.0, 5.0, -1.0]]
    assert z == [[0.0, 12.0, 24.0], [2.0, 0.0, 26.0], [4.0, 16.0, 0.0]]


def test_a_tangent_written_through_a_view_of_a_column_major_tensor():
    assert _tangent(symgrad, fwAD) == [[5.0, 1.0, 1.0], [1.0, 5.0, 1.0], [1.0, 1.0, 5.0]]


def test_against_torch():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as torch_fw

    assert _recorded(symgrad) == _recorded(torch)
    assert _unrecorded(symgrad) == _unrecorded(torch)
    assert _tangent(symgrad, fwAD) == _tangent(torch, torch_fw)
