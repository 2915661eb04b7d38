"""Max pooling whose windows tile the input (stride the kernel size: ``max_pool2d(x, 2)``)
takes a shortcut; these are its edges, against plain expected values and PyTorch: ties (the
first maximum in the window's row-major order wins), a NaN (its window's last NaN), -inf,
integers, a cropped remainder, indices, and gradients (each picked element once)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])
NAN, INF = math.nan, math.inf

ROWS = [
    [1.0, 1.0, 0.0, 5.0, 9.0],
    [1.0, 1.0, 5.0, 2.0, 9.0],
    [NAN, 3.0, -INF, -INF, 9.0],
    [2.0, NAN, -INF, -INF, 9.0],
    [9.0, 9.0, 9.0, 9.0, 9.0],
]
# 2x2 windows over the top-left 4x4 (the last row and column cropped)
VALUES = [[1.0, 5.0], [NAN, -INF]]
INDICES = [[0, 3], [16, 12]]  # the first of four ties; the last NaN; the first -inf
GRAD = [[1.0, 0, 0, 1, 0], [0] * 5, [0, 0, 1, 0, 0], [0, 1, 0, 0, 0], [0] * 5]


def _same(a, b):
    return all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b))


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_tiles_with_ties_nan_and_infinities(lib):
    x = lib.tensor([[ROWS]], requires_grad=True)
    y, i = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
    assert _same(y.flatten().tolist(), sum(VALUES, []))
    assert i.flatten().tolist() == sum(INDICES, [])
    assert type(y.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"
    y.sum().backward()
    assert x.grad[0, 0].tolist() == GRAD


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_tiles_without_nan_first_maximum(lib):
    data = np.array([[3, 7, 7, 1], [7, 2, 0, 7], [4, 4, 4, 4], [4, 4, 4, 5]], np.float32)
    x = lib.tensor(data[None, None], requires_grad=True)
    y, i = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
    assert y.flatten().tolist() == [7.0, 7.0, 4.0, 5.0]
    assert i.flatten().tolist() == [1, 2, 8, 15]
    (y * lib.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])).sum().backward()
    assert x.grad[0, 0].tolist() == [[0, 1, 2, 0], [0] * 4, [3, 0, 0, 0], [0, 0, 0, 4]]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_tiles_of_integers_and_other_dims(lib):
    x = lib.tensor(np.arange(24).reshape(1, 2, 3, 4) % 7)
    assert lib.nn.functional.max_pool2d(x, 2).tolist() == [[[[5, 6]], [[6, 5]]]]
    v = lib.tensor([[[0.5, -1.0, 2.0, 2.0, 8.0, 1.0, 3.0]]], requires_grad=True)
    y, i = lib.nn.functional.max_pool1d(v, 3, return_indices=True)
    assert y.tolist() == [[[2.0, 8.0]]] and i.tolist() == [[[2, 4]]]
    c = lib.tensor(np.arange(16.0).reshape(1, 1, 2, 2, 4))
    assert lib.nn.functional.max_pool3d(c, 2).flatten().tolist() == [13.0, 15.0]


def test_tiles_agree_with_the_general_windows():
    """The same windows as overlapping-window pooling finds (stride = kernel, given two ways)."""
    x = symgrad.tensor(np.random.default_rng(0).standard_normal((2, 3, 9, 7)).round(1))
    tiled = symgrad.nn.functional.max_pool2d(x, (3, 2), return_indices=True)
    padded = symgrad.nn.functional.max_pool2d(x, (3, 2), (3, 2), (1, 1), return_indices=True)
    general = symgrad.nn.functional.max_pool2d(x[..., :, :6], (3, 2), (3, 2), return_indices=True)
    assert tiled[0].tolist() == general[0].tolist()
    assert padded[0].shape == (2, 3, 3, 4)


@pytest.mark.parametrize(
    "shape, k, dtype",
    [
        ((2, 3, 9, 7), (3, 2), np.float64),
        ((4, 2, 8, 8), (2, 2), np.float32),
        ((2, 2, 4, 6, 6), (2, 3, 2), np.float32),
        ((3, 10, 10), (5, 5), np.int64),
    ],
)
def test_tiles_find_the_positions_the_general_windows_find(shape, k, dtype, monkeypatch):
    """The shortcut's positions are those the sliding windows' scan finds (values with many
    ties: the first maximum in row-major order), in 2-d and 3-d, floats and integers."""
    from symgrad.ops import max_positions as mp

    x = (np.random.default_rng(1).integers(0, 4, shape)).astype(dtype)
    d = len(k)
    out = tuple(n // kk for n, kk in zip(shape[-d:], k))
    args = (d, x, k, k, (0,) * d, (1,) * d, out)
    key, positions = mp.max_positions(*args)
    monkeypatch.setattr(mp, "_tiled_maximum", lambda *a: None)
    general_key, general_positions = mp.max_positions(*args)
    for a, b in zip(positions, general_positions):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(x[key], x[general_key])


# ceil_mode: a last window running past the edge (partial), which the shortcut can't tile
CEIL_X = (np.arange(25.0).reshape(1, 1, 5, 5) % 7).tolist()
CEIL_VALUES = [[6.0, 3.0, 4.0], [4.0, 6.0, 5.0], [6.0, 2.0, 3.0]]
CEIL_INDICES = [[6, 3, 4], [11, 13, 19], [20, 23, 24]]
CEIL_GRAD = [
    [0.0, 0.0, 0.0, 1.0, 1.0],
    [0.0, 1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 1.0],
    [1.0, 0.0, 0.0, 1.0, 1.0],
]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_ceil_mode_partial_windows(lib):
    x = lib.tensor(CEIL_X, requires_grad=True)
    y, i = lib.nn.functional.max_pool2d(x, 2, ceil_mode=True, return_indices=True)
    y.sum().backward()
    assert y[0, 0].tolist() == CEIL_VALUES and i[0, 0].tolist() == CEIL_INDICES
    assert x.grad[0, 0].tolist() == CEIL_GRAD
    z = lib.tensor([[[3.0, 1.0, 4.0, 1.0, 5.0]]])
    assert lib.nn.functional.max_pool1d(z, 2, ceil_mode=True).tolist() == [[[3.0, 4.0, 5.0]]]
