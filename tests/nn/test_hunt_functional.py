"""Differences from PyTorch found in torch.nn.functional, the losses, torch.linalg and the data
utilities by running small programs both ways.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import pytest
from _torch_table import run

import symgrad

F32 = "float32"


def _interpolate(T, dtype, mode="nearest", size=3):
    x = T.arange(4).reshape(1, 1, 2, 2).to(getattr(T, dtype))
    return T.nn.functional.interpolate(x, size=size, mode=mode)


def _pad(T, pads, mode, **kwargs):
    x = T.arange(5.0).reshape(1, 1, 5).requires_grad_()
    out = T.nn.functional.pad(x, pads, mode=mode, **kwargs)
    out.sum().backward()
    return out, x.grad


CASES = {
    # -- interpolate: uint8 is the only non-floating dtype PyTorch's kernels take
    "interpolate_nearest_uint8": (
        lambda T: _interpolate(T, "uint8"),
        ([[[[0, 0, 1], [0, 0, 1], [2, 2, 3]]]], "uint8", None),
    ),
    "interpolate_nearest_int64": (
        lambda T: _interpolate(T, "int64"),
        ("raises", "NotImplementedError"),
    ),
    "interpolate_nearest_exact_int32": (
        lambda T: _interpolate(T, "int32", "nearest-exact"),
        ("raises", "NotImplementedError"),
    ),
    "interpolate_nearest_int8_1d": (
        lambda T: T.nn.functional.interpolate(T.ones(1, 1, 2, dtype=T.int8), size=3),
        ("raises", "NotImplementedError"),
    ),
    # -- pad: circular padding wraps what negative pads leave
    "pad_circular_crop_right": (
        lambda T: _pad(T, (-1, 2), "circular"),
        (
            ([[[1.0, 2.0, 3.0, 4.0, 1.0, 2.0]]], F32, "CopySlices"),
            ([[[0.0, 2.0, 2.0, 1.0, 1.0]]], F32, None),
        ),
    ),
    "pad_circular_crop_left": (
        lambda T: _pad(T, (3, -2), "circular"),
        (
            ([[[0.0, 1.0, 2.0, 0.0, 1.0, 2.0]]], F32, "CopySlices"),
            ([[[2.0, 2.0, 2.0, 0.0, 0.0]]], F32, None),
        ),
    ),
    "pad_circular_wraps_twice": (
        lambda T: _pad(T, (-2, 4), "circular"),
        ("raises", "RuntimeError"),
    ),
    "pad_reflect_value": (
        lambda T: _pad(T, (1, 1), "reflect", value=1.0),
        ("raises", "RuntimeError"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_symgrad(name):
    fn, expected = CASES[name]
    assert run(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert run(torch, fn) == expected
