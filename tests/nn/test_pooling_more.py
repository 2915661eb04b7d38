"""Pooling, unpooling and padding names PyTorch programs call: max_pool*_with_indices,
max_unpool1d/2d/3d, adaptive pooling of 3 dimensions (and the *_with_indices forms), lp_pool,
fractional max pooling with fixed samples, the 3-d and circular padding layers, the
top-level ATen spellings (``torch.max_pool2d``, ``torch.constant_pad_nd``, ...).

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_table import run

import symgrad


def _grad(make, values, dtype="float32", weights=True):
    """``make(T, x)`` of a leaf holding ``values``, and the leaf's gradient after a backward
    of the first output weighted by 1, 2, 3, ... (ties show where the gradient goes)."""

    def run(T):
        x = T.tensor(values, dtype=getattr(T, dtype), requires_grad=True)
        out = make(T, x)
        first = out[0] if isinstance(out, tuple) else out
        w = T.arange(1, first.numel() + 1, dtype=first.dtype).reshape(first.shape)
        (first * w if weights else first).sum().backward()
        return out, x.grad

    return run


F = lambda T: T.nn.functional  # noqa: E731

ROW = [[[1.0, 3.0, 3.0, 2.0, 0.0, 5.0, 5.0]]]  # (1, 1, 7) with ties
PLANE = [[[1.0, 2.0, 2.0, 0.0], [4.0, 4.0, 1.0, 3.0], [0.0, 1.0, 5.0, 5.0]]]  # (1, 3, 4)
CUBE = np.arange(24.0).reshape(1, 2, 3, 4)
CUBE[0, 1, 2, 3] = CUBE[0, 1, 2, 2] = 30.0
CUBE = CUBE.tolist()  # (1, 2, 3, 4) with a tie
F64 = "float64"


CASES = {
    "max_pool1d_with_indices": (
        _grad(lambda T, x: F(T).max_pool1d_with_indices(x, 2, 1), ROW),
        (
            (
                ([[[3.0, 3.0, 3.0, 2.0, 5.0, 5.0]]], "float32", "SqueezeBackward1"),
                ([[[1, 1, 2, 3, 5, 5]]], "int64", None),
            ),
            ([[[0.0, 3.0, 3.0, 4.0, 0.0, 11.0, 0.0]]], "float32", None),
        ),
    ),
    "max_pool2d_with_indices": (
        _grad(lambda T, x: F(T).max_pool2d_with_indices(x, 2, 1, ceil_mode=True), PLANE),
        (
            (
                ([[[4.0, 4.0, 3.0], [4.0, 5.0, 5.0]]], "float32", "MaxPool2DWithIndicesBackward0"),
                ([[[4, 5, 7], [4, 10, 10]]], "int64", None),
            ),
            (
                [[[0.0, 0.0, 0.0, 0.0], [5.0, 2.0, 0.0, 3.0], [0.0, 0.0, 11.0, 0.0]]],
                "float32",
                None,
            ),
        ),
    ),
    "max_pool3d_with_indices": (
        _grad(lambda T, x: F(T).max_pool3d_with_indices(x, 2, 1, padding=1), CUBE),
        (
            (
                (
                    [
                        [
                            [
                                [0.0, 1.0, 2.0, 3.0, 3.0],
                                [4.0, 5.0, 6.0, 7.0, 7.0],
                                [8.0, 9.0, 10.0, 11.0, 11.0],
                                [8.0, 9.0, 10.0, 11.0, 11.0],
                            ],
                            [
                                [12.0, 13.0, 14.0, 15.0, 15.0],
                                [16.0, 17.0, 18.0, 19.0, 19.0],
                                [20.0, 21.0, 30.0, 30.0, 30.0],
                                [20.0, 21.0, 30.0, 30.0, 30.0],
                            ],
                            [
                                [12.0, 13.0, 14.0, 15.0, 15.0],
                                [16.0, 17.0, 18.0, 19.0, 19.0],
                                [20.0, 21.0, 30.0, 30.0, 30.0],
                                [20.0, 21.0, 30.0, 30.0, 30.0],
                            ],
                        ]
                    ],
                    "float32",
                    "MaxPool3DWithIndicesBackward0",
                ),
                (
                    [
                        [
                            [
                                [0, 1, 2, 3, 3],
                                [4, 5, 6, 7, 7],
                                [8, 9, 10, 11, 11],
                                [8, 9, 10, 11, 11],
                            ],
                            [
                                [12, 13, 14, 15, 15],
                                [16, 17, 18, 19, 19],
                                [20, 21, 22, 22, 23],
                                [20, 21, 22, 22, 23],
                            ],
                            [
                                [12, 13, 14, 15, 15],
                                [16, 17, 18, 19, 19],
                                [20, 21, 22, 22, 23],
                                [20, 21, 22, 22, 23],
                            ],
                        ]
                    ],
                    "int64",
                    None,
                ),
            ),
            (
                [
                    [
                        [[1.0, 2.0, 3.0, 9.0], [6.0, 7.0, 8.0, 19.0], [27.0, 29.0, 31.0, 68.0]],
                        [
                            [62.0, 64.0, 66.0, 138.0],
                            [72.0, 74.0, 76.0, 158.0],
                            [174.0, 178.0, 368.0, 190.0],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "max_pool3d_with_indices_dilation": (
        _grad(lambda T, x: F(T).max_pool3d_with_indices(x, (1, 2, 2), 1, 0, (1, 1, 2)), CUBE, F64),
        (
            (
                (
                    [[[[6.0, 7.0], [10.0, 11.0]], [[18.0, 19.0], [30.0, 30.0]]]],
                    "float64",
                    "MaxPool3DWithIndicesBackward0",
                ),
                ([[[[6, 7], [10, 11]], [[18, 19], [22, 23]]]], "int64", None),
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0], [0.0, 0.0, 3.0, 4.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 5.0, 6.0], [0.0, 0.0, 7.0, 8.0]],
                    ]
                ],
                "float64",
                None,
            ),
        ),
    ),
    "torch_max_pool1d": (
        _grad(lambda T, x: T.max_pool1d(x, 3, 2, 1, 1, True), ROW),
        (
            ([[[3.0, 3.0, 5.0, 5.0]]], "float32", "SqueezeBackward1"),
            ([[[0.0, 3.0, 0.0, 0.0, 0.0, 7.0, 0.0]]], "float32", None),
        ),
    ),
    "torch_max_pool1d_kw": (
        lambda T: T.max_pool1d(T.tensor(ROW), kernel_size=2, stride=[], dilation=2),
        ([[[3.0, 3.0, 5.0]]], "float32", None),
    ),
    "torch_max_pool1d_with_indices": (
        _grad(lambda T, x: T.max_pool1d_with_indices(x, 2), ROW),
        (
            (([[[3.0, 3.0, 5.0]]], "float32", "SqueezeBackward1"), ([[[1, 2, 5]]], "int64", None)),
            ([[[0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 0.0]]], "float32", None),
        ),
    ),
    "torch_max_pool2d": (
        _grad(lambda T, x: T.max_pool2d(x, (2, 3), 1), PLANE),
        (
            ([[[4.0, 4.0], [5.0, 5.0]]], "float32", "MaxPool2DWithIndicesBackward0"),
            ([[[0.0, 0.0, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 7.0, 0.0]]], "float32", None),
        ),
    ),
    "torch_max_pool3d": (
        _grad(lambda T, x: T.max_pool3d(x, 2, 1), CUBE),
        (
            (
                [[[[17.0, 18.0, 19.0], [21.0, 30.0, 30.0]]]],
                "float32",
                "MaxPool3DWithIndicesBackward0",
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 3.0], [0.0, 4.0, 11.0, 0.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "torch_avg_pool1d": (
        _grad(lambda T, x: T.avg_pool1d(x, 3, 2, 1, True, False), ROW),
        (
            ([[[2.0, 2.6667, 2.3333, 5.0]]], "float32", "SqueezeBackward1"),
            ([[[0.5, 1.1667, 0.6667, 1.6667, 1.0, 3.0, 2.0]]], "float32", None),
        ),
    ),
    "torch_adaptive_avg_pool1d": (
        _grad(lambda T, x: T.adaptive_avg_pool1d(x, 3), ROW),
        (
            ([[[2.3333, 1.6667, 3.3333]]], "float32", "SqueezeBackward1"),
            ([[[0.3333, 0.3333, 1.0, 0.6667, 1.6667, 1.0, 1.0]]], "float32", None),
        ),
    ),
    "torch_adaptive_max_pool1d": (
        _grad(lambda T, x: T.adaptive_max_pool1d(x, 3), ROW),
        (
            (([[[3.0, 3.0, 5.0]]], "float32", "SqueezeBackward1"), ([[[1, 2, 5]]], "int64", None)),
            ([[[0.0, 1.0, 2.0, 0.0, 0.0, 3.0, 0.0]]], "float32", None),
        ),
    ),
    "torch_constant_pad_nd": (
        _grad(lambda T, x: T.constant_pad_nd(x, (1, -1, 0, 1), 2.5), PLANE),
        (
            (
                [
                    [
                        [2.5, 1.0, 2.0, 2.0],
                        [2.5, 4.0, 4.0, 1.0],
                        [2.5, 0.0, 1.0, 5.0],
                        [2.5, 2.5, 2.5, 2.5],
                    ]
                ],
                "float32",
                "ConstantPadNdBackward0",
            ),
            (
                [[[2.0, 3.0, 4.0, 0.0], [6.0, 7.0, 8.0, 0.0], [10.0, 11.0, 12.0, 0.0]]],
                "float32",
                None,
            ),
        ),
    ),
    "torch_constant_pad_nd_int": (
        lambda T: T.constant_pad_nd(T.tensor([1, 2]), (1, 1), 2.7),
        ([2, 1, 2, 2], "int64", None),
    ),
    "torch_constant_pad_nd_uint8": (
        lambda T: T.constant_pad_nd(T.tensor([1], dtype=T.uint8), (1, 0), -1),
        ([255, 1], "uint8", None),
    ),
    "torch_max_pool1d_list": (
        lambda T: T.max_pool1d([1.0, 2.0], 2),
        ("raises", "TypeError"),
    ),
    "torch_max_pool2d_zero_kernel": (
        lambda T: T.max_pool2d(T.tensor(PLANE), 0),
        ("raises", "RuntimeError"),
    ),
    "torch_constant_pad_nd_odd": (
        lambda T: T.constant_pad_nd(T.tensor(PLANE), (1,)),
        ("raises", "RuntimeError"),
    ),
    "torch_constant_pad_nd_long": (
        lambda T: T.constant_pad_nd(T.tensor(PLANE), (1,) * 8),
        ("raises", "RuntimeError"),
    ),
    "torch_constant_pad_nd_float_pad": (
        lambda T: T.constant_pad_nd(T.tensor(PLANE), (1.0, 1)),
        ("raises", "TypeError"),
    ),
    "torch_constant_pad_nd_str_value": (
        lambda T: T.constant_pad_nd(T.tensor(PLANE), (1, 1), "a"),
        ("raises", "TypeError"),
    ),
    "torch_constant_pad_nd_crop_past": (
        lambda T: T.constant_pad_nd(T.tensor(PLANE), (-5, 1)),
        ("raises", "RuntimeError"),
    ),
    "adaptive_avg_pool3d": (
        _grad(lambda T, x: F(T).adaptive_avg_pool3d(x, (2, None, 3)), CUBE),
        (
            (
                [
                    [
                        [[0.5, 1.5, 2.5], [4.5, 5.5, 6.5], [8.5, 9.5, 10.5]],
                        [[12.5, 13.5, 14.5], [16.5, 17.5, 18.5], [20.5, 25.5, 30.0]],
                    ]
                ],
                "float32",
                "AdaptiveAvgPool3DBackward0",
            ),
            (
                [
                    [
                        [[0.5, 1.5, 2.5, 1.5], [2.0, 4.5, 5.5, 3.0], [3.5, 7.5, 8.5, 4.5]],
                        [[5.0, 10.5, 11.5, 6.0], [6.5, 13.5, 14.5, 7.5], [8.0, 16.5, 17.5, 9.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "adaptive_avg_pool3d_one": (
        _grad(lambda T, x: F(T).adaptive_avg_pool3d(x, 1), CUBE),
        (
            ([[[[12.125]]]], "float32", "MeanBackward1"),
            (
                [
                    [
                        [
                            [0.0417, 0.0417, 0.0417, 0.0417],
                            [0.0417, 0.0417, 0.0417, 0.0417],
                            [0.0417, 0.0417, 0.0417, 0.0417],
                        ],
                        [
                            [0.0417, 0.0417, 0.0417, 0.0417],
                            [0.0417, 0.0417, 0.0417, 0.0417],
                            [0.0417, 0.0417, 0.0417, 0.0417],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "adaptive_avg_pool3d_bigger": (
        _grad(lambda T, x: F(T).adaptive_avg_pool3d(x, (3, 4, 5)), CUBE, F64),
        (
            (
                [
                    [
                        [
                            [0.0, 0.5, 1.5, 2.5, 3.0],
                            [2.0, 2.5, 3.5, 4.5, 5.0],
                            [6.0, 6.5, 7.5, 8.5, 9.0],
                            [8.0, 8.5, 9.5, 10.5, 11.0],
                        ],
                        [
                            [6.0, 6.5, 7.5, 8.5, 9.0],
                            [8.0, 8.5, 9.5, 10.5, 11.0],
                            [12.0, 12.5, 14.5, 16.375, 16.75],
                            [14.0, 14.5, 17.5, 20.25, 20.5],
                        ],
                        [
                            [12.0, 12.5, 13.5, 14.5, 15.0],
                            [14.0, 14.5, 15.5, 16.5, 17.0],
                            [18.0, 18.5, 21.5, 24.25, 24.5],
                            [20.0, 20.5, 25.5, 30.0, 30.0],
                        ],
                    ]
                ],
                "float64",
                "AdaptiveAvgPool3DBackward0",
            ),
            (
                [
                    [
                        [
                            [32.625, 24.375, 26.625, 43.875],
                            [34.875, 25.0, 26.5, 42.375],
                            [72.0, 50.625, 52.875, 83.25],
                        ],
                        [
                            [122.625, 84.375, 86.625, 133.875],
                            [94.875, 65.0, 66.5, 102.375],
                            [162.0, 110.625, 112.875, 173.25],
                        ],
                    ]
                ],
                "float64",
                None,
            ),
        ),
    ),
    "adaptive_max_pool3d": (
        _grad(lambda T, x: F(T).adaptive_max_pool3d(x, (1, 2, 3), True), CUBE),
        (
            (
                (
                    [[[[17.0, 18.0, 19.0], [21.0, 30.0, 30.0]]]],
                    "float32",
                    "AdaptiveMaxPool3DBackward0",
                ),
                ([[[[17, 18, 19], [21, 22, 22]]]], "int64", None),
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 3.0], [0.0, 4.0, 11.0, 0.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "adaptive_max_pool3d_with_indices": (
        _grad(lambda T, x: F(T).adaptive_max_pool3d_with_indices(x, 2), CUBE),
        (
            (
                (
                    [[[[5.0, 7.0], [9.0, 11.0]], [[17.0, 19.0], [21.0, 30.0]]]],
                    "float32",
                    "AdaptiveMaxPool3DBackward0",
                ),
                ([[[[5, 7], [9, 11]], [[17, 19], [21, 22]]]], "int64", None),
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 2.0], [0.0, 3.0, 0.0, 4.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 5.0, 0.0, 6.0], [0.0, 7.0, 8.0, 0.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "adaptive_max_pool2d_with_indices": (
        _grad(lambda T, x: F(T).adaptive_max_pool2d_with_indices(x, (2, 3)), PLANE),
        (
            (
                ([[[4.0, 4.0, 3.0], [4.0, 5.0, 5.0]]], "float32", "AdaptiveMaxPool2DBackward0"),
                ([[[4, 5, 7], [4, 10, 10]]], "int64", None),
            ),
            (
                [[[0.0, 0.0, 0.0, 0.0], [5.0, 2.0, 0.0, 3.0], [0.0, 0.0, 11.0, 0.0]]],
                "float32",
                None,
            ),
        ),
    ),
    "adaptive_max_pool1d_with_indices": (
        _grad(lambda T, x: F(T).adaptive_max_pool1d_with_indices(x, 4), ROW),
        (
            (
                ([[[3.0, 3.0, 5.0, 5.0]]], "float32", "SqueezeBackward1"),
                ([[[1, 1, 5, 5]]], "int64", None),
            ),
            ([[[0.0, 3.0, 0.0, 0.0, 0.0, 7.0, 0.0]]], "float32", None),
        ),
    ),
    "adaptive_max_nan": (
        lambda T: F(T).adaptive_max_pool1d(
            T.tensor([[1.0, math.nan, 3.0, math.nan, 2.0]]), 1, True
        ),
        (([["nan"]], "float32", None), ([[3]], "int64", None)),
    ),
    "avg_pool1d_nan_stays": (
        lambda T: F(T).avg_pool1d(T.tensor([[[math.nan, 1.0, 2.0, 3.0]]]), 2),
        ([[["nan", 2.5]]], "float32", None),
    ),
    "area_nan_stays": (
        lambda T: F(T).interpolate(
            T.tensor([[[[math.nan, 1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 1.0]]]]),
            size=(1, 2),
            mode="area",
        ),
        ([[[["nan", 1.75]]]], "float32", None),
    ),
    "adaptive_avg_nan_stays": (
        lambda T: F(T).adaptive_avg_pool1d(T.tensor([[math.nan, 1.0, 2.0, 3.0]]), 2),
        ([["nan", 2.5]], "float32", None),
    ),
    "adaptive_avg_pool3d_ndim": (
        lambda T: F(T).adaptive_avg_pool3d(T.zeros(3, 3, 3), 2),
        ("raises", "RuntimeError"),
    ),
    "adaptive_avg_pool3d_len": (
        lambda T: F(T).adaptive_avg_pool3d(T.zeros(1, 3, 3, 3), (2, 2)),
        ("raises", "RuntimeError"),
    ),
    "adaptive_avg_pool3d_negative": (
        lambda T: F(T).adaptive_avg_pool3d(T.zeros(1, 3, 3, 3), -1),
        ("raises", "RuntimeError"),
    ),
    "adaptive_avg_pool3d_int": (
        lambda T: F(T).adaptive_avg_pool3d(T.zeros(1, 3, 3, 3, dtype=T.int64), 2),
        ("raises", "NotImplementedError"),
    ),
    "adaptive_avg_pool3d_empty": (
        lambda T: F(T).adaptive_avg_pool3d(T.zeros(1, 0, 3, 3), 2),
        ("raises", "RuntimeError"),
    ),
    "adaptive_avg_pool3d_float_size": (
        lambda T: F(T).adaptive_avg_pool3d(T.zeros(1, 3, 3, 3), 2.0),
        ("raises", "TypeError"),
    ),
    "adaptive_max_pool3d_negative": (
        lambda T: F(T).adaptive_max_pool3d(T.zeros(1, 3, 3, 3), -1),
        ("raises", "RuntimeError"),
    ),
    "adaptive_max_pool3d_empty": (
        lambda T: F(T).adaptive_max_pool3d(T.zeros(1, 0, 3, 3), 2),
        ("raises", "RuntimeError"),
    ),
    "adaptive_max_pool3d_empty_batch": (
        lambda T: F(T).adaptive_max_pool3d(T.zeros(0, 1, 3, 3, 3), 2).shape,
        (0, 1, 2, 2, 2),
    ),
    "adaptive_max_pool1d_len": (
        lambda T: F(T).adaptive_max_pool1d(T.zeros(1, 3), (2, 2)),
        ("raises", "RuntimeError"),
    ),
    "adaptive_max_pool1d_ndim": (
        lambda T: F(T).adaptive_max_pool1d(T.zeros(3), 2),
        ("raises", "RuntimeError"),
    ),
    "adaptive_max_pool2d_int": (
        lambda T: F(T).adaptive_max_pool2d(T.zeros(1, 3, 3, dtype=T.int64), 2),
        ("raises", "NotImplementedError"),
    ),
    "interpolate_area_5d": (
        _grad(lambda T, x: F(T).interpolate(x[None], size=(1, 2, 3), mode="area"), CUBE),
        (
            (
                [[[[[8.5, 9.5, 10.5], [12.5, 14.5, 16.375]]]]],
                "float32",
                "AdaptiveAvgPool3DBackward0",
            ),
            (
                [
                    [
                        [
                            [0.125, 0.375, 0.625, 0.375],
                            [0.625, 1.5, 2.0, 1.125],
                            [0.5, 1.125, 1.375, 0.75],
                        ],
                        [
                            [0.125, 0.375, 0.625, 0.375],
                            [0.625, 1.5, 2.0, 1.125],
                            [0.5, 1.125, 1.375, 0.75],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "max_unpool2d": (
        _grad(
            lambda T, x: F(T).max_unpool2d(*F(T).max_pool2d(x, 2, return_indices=True), 2), PLANE
        ),
        (
            ([[[0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0, 3.0]]], "float32", "MaxUnpool2DBackward0"),
            ([[[0.0, 0.0, 0.0, 0.0], [5.0, 0.0, 0.0, 8.0], [0.0, 0.0, 0.0, 0.0]]], "float32", None),
        ),
    ),
    "max_unpool2d_output_size": (
        _grad(
            lambda T, x: F(T).max_unpool2d(
                *F(T).max_pool2d(x, 2, return_indices=True), 2, output_size=(3, 5)
            ),
            PLANE,
        ),
        (
            (
                [[[0.0, 0.0, 0.0, 0.0, 4.0], [0.0, 0.0, 3.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]]],
                "float32",
                "MaxUnpool2DBackward0",
            ),
            ([[[0.0, 0.0, 0.0, 0.0], [5.0, 0.0, 0.0, 8.0], [0.0, 0.0, 0.0, 0.0]]], "float32", None),
        ),
    ),
    "max_unpool2d_overlap": (
        _grad(
            lambda T, x: F(T).max_unpool2d(*F(T).max_pool2d(x, 2, 1, return_indices=True), 2, 1),
            PLANE,
        ),
        (
            (
                [[[0.0, 0.0, 0.0, 0.0], [4.0, 4.0, 0.0, 3.0], [0.0, 0.0, 5.0, 0.0]]],
                "float32",
                "MaxUnpool2DBackward0",
            ),
            (
                [[[0.0, 0.0, 0.0, 0.0], [10.0, 6.0, 0.0, 8.0], [0.0, 0.0, 22.0, 0.0]]],
                "float32",
                None,
            ),
        ),
    ),
    "max_unpool1d": (
        _grad(
            lambda T, x: F(T).max_unpool1d(
                *F(T).max_pool1d(x, 2, return_indices=True), 2, output_size=[7]
            ),
            ROW,
        ),
        (
            ([[[0.0, 3.0, 3.0, 0.0, 0.0, 5.0, 0.0]]], "float32", "SqueezeBackward1"),
            ([[[0.0, 2.0, 3.0, 0.0, 0.0, 6.0, 0.0]]], "float32", None),
        ),
    ),
    "max_unpool3d": (
        _grad(
            lambda T, x: F(T).max_unpool3d(
                *F(T).max_pool3d(x[None], 2, 1, return_indices=True), 2, 1
            ),
            CUBE,
            F64,
        ),
        (
            (
                [
                    [
                        [
                            [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                            [[0.0, 0.0, 0.0, 0.0], [0.0, 17.0, 18.0, 19.0], [0.0, 21.0, 30.0, 0.0]],
                        ]
                    ]
                ],
                "float64",
                "MaxUnpool3DBackward0",
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 18.0, 19.0, 20.0], [0.0, 22.0, 46.0, 0.0]],
                    ]
                ],
                "float64",
                None,
            ),
        ),
    ),
    "max_unpool_repeated_index": (
        _grad(
            lambda T, x: F(T).max_unpool1d(x, T.tensor([[[0, 0, 2]]]), 2, 1, output_size=(4,)),
            [[[1.0, 2.0, 3.0]]],
        ),
        (
            ([[[2.0, 0.0, 3.0, 0.0]]], "float32", "SqueezeBackward1"),
            ([[[1.0, 1.0, 3.0]]], "float32", None),
        ),
    ),
    "max_unpool2d_bad_index": (
        lambda T: F(T).max_unpool2d(T.ones(1, 1, 1), T.tensor([[[9]]]), 2),
        ("raises", "RuntimeError"),
    ),
    "max_unpool2d_int32_index": (
        lambda T: F(T).max_unpool2d(T.ones(1, 1, 1), T.tensor([[[0]]], dtype=T.int32), 2),
        ("raises", "RuntimeError"),
    ),
    "max_unpool2d_index_shape": (
        lambda T: F(T).max_unpool2d(T.ones(1, 1, 2), T.tensor([[[0]]]), 2),
        ("raises", "RuntimeError"),
    ),
    "max_unpool2d_ndim": (
        lambda T: F(T).max_unpool2d(T.ones(1, 1), T.tensor([[0]]), 2),
        ("raises", "RuntimeError"),
    ),
    "max_unpool3d_ndim": (
        lambda T: F(T).max_unpool3d(T.ones(1, 1, 1), T.tensor([[[0]]]), 2),
        ("raises", "RuntimeError"),
    ),
    "max_unpool2d_int_input": (
        lambda T: F(T).max_unpool2d(T.ones(1, 1, 1, dtype=T.int64), T.tensor([[[0]]]), 2),
        ("raises", "NotImplementedError"),
    ),
    "max_unpool2d_output_size_far": (
        lambda T: F(T).max_unpool2d(T.ones(1, 1, 1), T.tensor([[[0]]]), 2, output_size=(5, 2)),
        ("raises", "ValueError"),
    ),
    "max_unpool2d_output_size_len": (
        lambda T: F(T).max_unpool2d(T.ones(1, 1, 1), T.tensor([[[0]]]), 2, output_size=(2,)),
        ("raises", "ValueError"),
    ),
    "max_unpool2d_negative_size": (
        lambda T: F(T).max_unpool2d(T.ones(1, 1, 1), T.tensor([[[0]]]), 1, padding=1),
        ("raises", "ValueError"),
    ),
    "max_unpool2d_empty_channels": (
        lambda T: F(T).max_unpool2d(T.ones(1, 0, 1, 1), T.zeros(1, 0, 1, 1, dtype=T.int64), 2),
        ("raises", "RuntimeError"),
    ),
    "max_unpool3d_stride_zero": (
        lambda T: F(T).max_unpool3d(T.ones(1, 1, 1, 1), T.tensor([[[[0]]]]), 2, 0),
        ("raises", "RuntimeError"),
    ),
    "lp_pool1d": (
        _grad(lambda T, x: F(T).lp_pool1d(x, 2, 2), ROW),
        (
            ([[[3.1623, 3.6056, 5.0]]], "float32", "PowBackward0"),
            ([[[0.3162, 0.9487, 1.6641, 1.1094, 0.0, 3.0, 0.0]]], "float32", None),
        ),
    ),
    "lp_pool1d_stride_ceil": (
        _grad(lambda T, x: F(T).lp_pool1d(x, 3, 3, stride=2, ceil_mode=True), ROW, F64),
        (
            ([[[3.803, 3.2711, 6.2996]]], "float64", "PowBackward0"),
            ([[[0.0691, 0.6223, 2.3046, 0.7477, 0.0, 1.8899, 1.8899]]], "float64", None),
        ),
    ),
    "lp_pool1d_zero_window": (
        _grad(lambda T, x: F(T).lp_pool1d(x, 2, 2), [[[0.0, 0.0, 1.0, 1.0]]]),
        (
            ([[[0.0, 1.4142]]], "float32", "PowBackward0"),
            ([[[0.0, 0.0, 1.4142, 1.4142]]], "float32", None),
        ),
    ),
    "lp_pool1d_odd_negative": (
        _grad(lambda T, x: F(T).lp_pool1d(x, 3, 2), [[[-1.0, -2.0, 1.0, 2.0]]]),
        (
            ([[["nan", 2.0801]]], "float32", "PowBackward0"),
            ([[["nan", "nan", 0.4622, 1.849]]], "float32", None),
        ),
    ),
    "lp_pool2d": (
        _grad(lambda T, x: F(T).lp_pool2d(x, 1.5, (2, 3), stride=1), PLANE),
        (
            ([[[8.2408, 7.3319], [9.4782, 11.2148]]], "float32", "PowBackward0"),
            (
                [
                    [
                        [0.3483, 1.5372, 1.5372, 0.0],
                        [2.6456, 6.5117, 3.2559, 3.3482],
                        [0.0, 2.1689, 4.8498, 2.6708],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "lp_pool2d_inf": (
        _grad(lambda T, x: F(T).lp_pool2d(-x, math.inf, 2), PLANE),
        (
            ([[[4.0, 3.0]]], "float32", "MaxPool2DWithIndicesBackward0"),
            (
                [[[0.0, 0.0, 0.0, -0.0], [1.0, 0.0, 0.0, 2.0], [-0.0, 0.0, 0.0, 0.0]]],
                "float32",
                None,
            ),
        ),
    ),
    "lp_pool2d_minus_inf": (
        _grad(lambda T, x: F(T).lp_pool2d(x, -math.inf, 2), PLANE),
        (
            ([[[1.0, 0.0]]], "float32", "NegBackward0"),
            (
                [[[1.0, -0.0, -0.0, 0.0], [-0.0, -0.0, -0.0, -0.0], [-0.0, -0.0, -0.0, -0.0]]],
                "float32",
                None,
            ),
        ),
    ),
    "lp_pool3d": (
        _grad(lambda T, x: F(T).lp_pool3d(x, 2, (1, 2, 2)), CUBE, F64),
        (
            ([[[[6.4807, 9.8995]], [[29.2916, 33.2566]]]], "float64", "PowBackward0"),
            (
                [
                    [
                        [
                            [0.0, 0.1543, 0.4041, 0.6061],
                            [0.6172, 0.7715, 1.2122, 1.4142],
                            [0.0, 0.0, 0.0, 0.0],
                        ],
                        [
                            [1.229, 1.3314, 1.6839, 1.8042],
                            [1.6387, 1.7411, 2.165, 2.2853],
                            [0.0, 0.0, 0.0, 0.0],
                        ],
                    ]
                ],
                "float64",
                None,
            ),
        ),
    ),
    "fractional_max_pool2d": (
        _grad(
            lambda T, x: F(T).fractional_max_pool2d(
                x,
                2,
                output_size=(2, 2),
                return_indices=True,
                _random_samples=T.tensor([[[0.3, 0.8]]] * 1).expand(1, 1, 2).clone(),
            ),
            [PLANE],
        ),
        (
            (
                ([[[[4.0, 3.0], [4.0, 5.0]]]], "float32", "FractionalMaxPool2DBackward0"),
                ([[[[4, 7], [4, 10]]]], "int64", None),
            ),
            (
                [[[[0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0, 2.0], [0.0, 0.0, 4.0, 0.0]]]],
                "float32",
                None,
            ),
        ),
    ),
    "fractional_max_pool2d_ratio": (
        _grad(
            lambda T, x: F(T).fractional_max_pool2d_with_indices(
                x,
                (1, 2),
                output_ratio=(0.5, 0.6),
                _random_samples=T.tensor([[[0.1, 0.9], [0.7, 0.2]]]),
            ),
            CUBE,
        ),
        (
            (
                ([[[[9.0, 11.0]], [[21.0, 30.0]]]], "float32", "FractionalMaxPool2DBackward0"),
                ([[[[9, 11]], [[9, 10]]]], "int64", None),
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 2.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 3.0, 4.0, 0.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "fractional_max_pool2d_f64": (
        _grad(
            lambda T, x: F(T).fractional_max_pool2d(
                x,
                2,
                output_size=(2, 3),
                _random_samples=T.tensor([[[0.45, 0.55]]], dtype=T.float64),
            ),
            PLANE,
            F64,
        ),
        (
            ([[[4.0, 4.0, 3.0], [4.0, 5.0, 5.0]]], "float64", "FractionalMaxPool2DBackward0"),
            (
                [[[0.0, 0.0, 0.0, 0.0], [5.0, 2.0, 0.0, 3.0], [0.0, 0.0, 11.0, 0.0]]],
                "float64",
                None,
            ),
        ),
    ),
    "fractional_max_pool3d": (
        _grad(
            lambda T, x: F(T).fractional_max_pool3d(
                x,
                (1, 2, 2),
                output_size=(2, 1, 2),
                return_indices=True,
                _random_samples=T.tensor([[[0.25, 0.5, 0.75]]]),
            ),
            CUBE,
        ),
        ("raises", "RuntimeError"),
    ),
    "fractional_max_pool3d_with_indices": (
        _grad(
            lambda T, x: F(T).fractional_max_pool3d_with_indices(
                x[None], 1, output_ratio=0.5, _random_samples=T.tensor([[[0.9, 0.1, 0.5]]])
            ),
            CUBE,
        ),
        (
            (
                ([[[[[20.0, 30.0]]]]], "float32", "FractionalMaxPool3DBackward0"),
                ([[[[[20, 23]]]]], "int64", None),
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 2.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "fractional_no_size": (
        lambda T: F(T).fractional_max_pool2d(T.zeros(1, 4, 4), 2),
        ("raises", "ValueError"),
    ),
    "fractional_too_big": (
        lambda T: F(T).fractional_max_pool2d(
            T.zeros(1, 4, 4), 2, output_size=4, _random_samples=T.rand(1, 1, 2)
        ),
        ("raises", "RuntimeError"),
    ),
    "fractional_3d_strict": (
        lambda T: F(T).fractional_max_pool3d(
            T.zeros(1, 3, 3, 3), 2, output_size=2, _random_samples=T.rand(1, 1, 3)
        ),
        ("raises", "RuntimeError"),
    ),
    "fractional_samples_dtype": (
        lambda T: F(T).fractional_max_pool2d(
            T.zeros(1, 4, 4), 2, output_size=2, _random_samples=T.rand(1, 1, 2, dtype=T.float64)
        ),
        ("raises", "RuntimeError"),
    ),
    "fractional_samples_ndim": (
        lambda T: F(T).fractional_max_pool2d(
            T.zeros(1, 4, 4), 2, output_size=2, _random_samples=T.rand(1, 2)
        ),
        ("raises", "RuntimeError"),
    ),
    "fractional_samples_batch": (
        lambda T: F(T).fractional_max_pool2d(
            T.zeros(2, 1, 4, 4), 2, output_size=2, _random_samples=T.rand(1, 1, 2)
        ),
        ("raises", "RuntimeError"),
    ),
    "fractional_samples_channels": (
        lambda T: F(T).fractional_max_pool2d(
            T.zeros(1, 4, 4), 2, output_size=2, _random_samples=T.rand(1, 2, 2)
        ),
        ("raises", "RuntimeError"),
    ),
    "fractional_ratio_float_2d": (
        lambda T: F(T).fractional_max_pool2d(T.zeros(1, 4, 4), 2, output_ratio=0.5),
        ("raises", "TypeError"),
    ),
    "fractional_drawn_samples": (
        lambda T: F(T).fractional_max_pool2d(T.zeros(2, 3, 6, 6), 2, output_ratio=(0.5, 0.5)).shape,
        (2, 3, 3, 3),
    ),
    "MaxUnpool2d": (
        _grad(lambda T, x: T.nn.MaxUnpool2d(2)(*T.nn.MaxPool2d(2, return_indices=True)(x)), PLANE),
        (
            ([[[0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0, 3.0]]], "float32", "MaxUnpool2DBackward0"),
            ([[[0.0, 0.0, 0.0, 0.0], [5.0, 0.0, 0.0, 8.0], [0.0, 0.0, 0.0, 0.0]]], "float32", None),
        ),
    ),
    "MaxUnpool1d": (
        _grad(
            lambda T, x: T.nn.MaxUnpool1d(2)(
                *T.nn.MaxPool1d(2, return_indices=True)(x), output_size=[7]
            ),
            ROW,
        ),
        (
            ([[[0.0, 3.0, 3.0, 0.0, 0.0, 5.0, 0.0]]], "float32", "SqueezeBackward1"),
            ([[[0.0, 2.0, 3.0, 0.0, 0.0, 6.0, 0.0]]], "float32", None),
        ),
    ),
    "MaxUnpool3d": (
        _grad(
            lambda T, x: T.nn.MaxUnpool3d(2, 1)(
                *T.nn.MaxPool3d(2, 1, return_indices=True)(x[None])
            ),
            CUBE,
        ),
        (
            (
                [
                    [
                        [
                            [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                            [[0.0, 0.0, 0.0, 0.0], [0.0, 17.0, 18.0, 19.0], [0.0, 21.0, 30.0, 0.0]],
                        ]
                    ]
                ],
                "float32",
                "MaxUnpool3DBackward0",
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 18.0, 19.0, 20.0], [0.0, 22.0, 46.0, 0.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "AdaptiveAvgPool3d": (
        _grad(lambda T, x: T.nn.AdaptiveAvgPool3d((1, 2, 2))(x), CUBE),
        (
            ([[[[8.5, 10.5], [12.5, 16.375]]]], "float32", "AdaptiveAvgPool3DBackward0"),
            (
                [
                    [
                        [
                            [0.125, 0.125, 0.25, 0.25],
                            [0.5, 0.5, 0.75, 0.75],
                            [0.375, 0.375, 0.5, 0.5],
                        ],
                        [
                            [0.125, 0.125, 0.25, 0.25],
                            [0.5, 0.5, 0.75, 0.75],
                            [0.375, 0.375, 0.5, 0.5],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "AdaptiveMaxPool3d": (
        _grad(lambda T, x: T.nn.AdaptiveMaxPool3d(2, return_indices=True)(x), CUBE),
        (
            (
                (
                    [[[[5.0, 7.0], [9.0, 11.0]], [[17.0, 19.0], [21.0, 30.0]]]],
                    "float32",
                    "AdaptiveMaxPool3DBackward0",
                ),
                ([[[[5, 7], [9, 11]], [[17, 19], [21, 22]]]], "int64", None),
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 2.0], [0.0, 3.0, 0.0, 4.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 5.0, 0.0, 6.0], [0.0, 7.0, 8.0, 0.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "LPPool1d": (
        _grad(lambda T, x: T.nn.LPPool1d(2, 3, stride=2)(x), ROW),
        (
            ([[[4.3589, 3.6056, 7.0711]]], "float32", "PowBackward0"),
            ([[[0.2294, 0.6882, 2.3523, 1.1094, 0.0, 2.1213, 2.1213]]], "float32", None),
        ),
    ),
    "LPPool2d": (
        _grad(lambda T, x: T.nn.LPPool2d(1, 2)(x), PLANE),
        (
            ([[[11.0, 6.0]]], "float32", "PowBackward0"),
            ([[[1.0, 1.0, 2.0, 2.0], [1.0, 1.0, 2.0, 2.0], [0.0, 0.0, 0.0, 0.0]]], "float32", None),
        ),
    ),
    "LPPool3d": (
        _grad(lambda T, x: T.nn.LPPool3d(2, (1, 2, 2), ceil_mode=True)(x), CUBE),
        (
            (
                [[[[6.4807, 9.8995], [17.0294, 21.0238]], [[29.2916, 33.2566], [41.0122, 60.0]]]],
                "float32",
                "PowBackward0",
            ),
            (
                [
                    [
                        [
                            [0.0, 0.1543, 0.4041, 0.6061],
                            [0.6172, 0.7715, 1.2122, 1.4142],
                            [2.8187, 3.171, 3.8052, 4.1857],
                        ],
                        [
                            [2.0484, 2.2191, 2.5258, 2.7062],
                            [2.7312, 2.9019, 3.2475, 3.4279],
                            [6.8272, 7.1686, 8.0, 8.0],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "FractionalMaxPool2d": (
        _grad(
            lambda T, x: T.nn.FractionalMaxPool2d(
                2, output_size=2, _random_samples=T.tensor([[[0.6, 0.4]]])
            )(x),
            PLANE,
        ),
        (
            ([[[4.0, 3.0], [4.0, 5.0]]], "float32", "FractionalMaxPool2DBackward0"),
            ([[[0.0, 0.0, 0.0, 0.0], [4.0, 0.0, 0.0, 2.0], [0.0, 0.0, 4.0, 0.0]]], "float32", None),
        ),
    ),
    "FractionalMaxPool3d": (
        _grad(
            lambda T, x: T.nn.FractionalMaxPool3d(
                (1, 2, 2),
                output_ratio=0.5,
                _random_samples=T.tensor([[[0.6, 0.4, 0.2]]]),
                return_indices=True,
            )(x),
            CUBE,
        ),
        (
            (
                ([[[[21.0, 30.0]]]], "float32", "FractionalMaxPool3DBackward0"),
                ([[[[21, 22]]]], "int64", None),
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                        [[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 2.0, 0.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "FractionalMaxPool2d_both": (
        lambda T: T.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
        ("raises", "ValueError"),
    ),
    "FractionalMaxPool3d_ratio_one": (
        lambda T: T.nn.FractionalMaxPool3d(2, output_ratio=1.0),
        ("raises", "ValueError"),
    ),
    "FractionalMaxPool3d_none": (
        lambda T: T.nn.FractionalMaxPool3d(2),
        ("raises", "ValueError"),
    ),
    "ReflectionPad3d": (
        _grad(lambda T, x: T.nn.ReflectionPad3d((1, 2, 0, 1, 1, 0))(x[None]), CUBE),
        (
            (
                [
                    [
                        [
                            [
                                [13.0, 12.0, 13.0, 14.0, 15.0, 14.0, 13.0],
                                [17.0, 16.0, 17.0, 18.0, 19.0, 18.0, 17.0],
                                [21.0, 20.0, 21.0, 30.0, 30.0, 30.0, 21.0],
                                [17.0, 16.0, 17.0, 18.0, 19.0, 18.0, 17.0],
                            ],
                            [
                                [1.0, 0.0, 1.0, 2.0, 3.0, 2.0, 1.0],
                                [5.0, 4.0, 5.0, 6.0, 7.0, 6.0, 5.0],
                                [9.0, 8.0, 9.0, 10.0, 11.0, 10.0, 9.0],
                                [5.0, 4.0, 5.0, 6.0, 7.0, 6.0, 5.0],
                            ],
                            [
                                [13.0, 12.0, 13.0, 14.0, 15.0, 14.0, 13.0],
                                [17.0, 16.0, 17.0, 18.0, 19.0, 18.0, 17.0],
                                [21.0, 20.0, 21.0, 30.0, 30.0, 30.0, 21.0],
                                [17.0, 16.0, 17.0, 18.0, 19.0, 18.0, 17.0],
                            ],
                        ]
                    ]
                ],
                "float32",
                "ReflectionPad3DBackward0",
            ),
            (
                [
                    [
                        [
                            [30.0, 95.0, 66.0, 33.0],
                            [88.0, 274.0, 188.0, 94.0],
                            [44.0, 137.0, 94.0, 47.0],
                        ],
                        [
                            [60.0, 190.0, 132.0, 66.0],
                            [176.0, 548.0, 376.0, 188.0],
                            [88.0, 274.0, 188.0, 94.0],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "ReplicationPad3d": (
        _grad(lambda T, x: T.nn.ReplicationPad3d(1)(x), CUBE),
        (
            (
                [
                    [
                        [
                            [0.0, 0.0, 1.0, 2.0, 3.0, 3.0],
                            [0.0, 0.0, 1.0, 2.0, 3.0, 3.0],
                            [4.0, 4.0, 5.0, 6.0, 7.0, 7.0],
                            [8.0, 8.0, 9.0, 10.0, 11.0, 11.0],
                            [8.0, 8.0, 9.0, 10.0, 11.0, 11.0],
                        ],
                        [
                            [0.0, 0.0, 1.0, 2.0, 3.0, 3.0],
                            [0.0, 0.0, 1.0, 2.0, 3.0, 3.0],
                            [4.0, 4.0, 5.0, 6.0, 7.0, 7.0],
                            [8.0, 8.0, 9.0, 10.0, 11.0, 11.0],
                            [8.0, 8.0, 9.0, 10.0, 11.0, 11.0],
                        ],
                        [
                            [12.0, 12.0, 13.0, 14.0, 15.0, 15.0],
                            [12.0, 12.0, 13.0, 14.0, 15.0, 15.0],
                            [16.0, 16.0, 17.0, 18.0, 19.0, 19.0],
                            [20.0, 20.0, 21.0, 30.0, 30.0, 30.0],
                            [20.0, 20.0, 21.0, 30.0, 30.0, 30.0],
                        ],
                        [
                            [12.0, 12.0, 13.0, 14.0, 15.0, 15.0],
                            [12.0, 12.0, 13.0, 14.0, 15.0, 15.0],
                            [16.0, 16.0, 17.0, 18.0, 19.0, 19.0],
                            [20.0, 20.0, 21.0, 30.0, 30.0, 30.0],
                            [20.0, 20.0, 21.0, 30.0, 30.0, 30.0],
                        ],
                    ]
                ],
                "float32",
                "ReplicationPad3DBackward0",
            ),
            (
                [
                    [
                        [
                            [156.0, 84.0, 88.0, 188.0],
                            [114.0, 60.0, 62.0, 130.0],
                            [300.0, 156.0, 160.0, 332.0],
                        ],
                        [
                            [636.0, 324.0, 328.0, 668.0],
                            [354.0, 180.0, 182.0, 370.0],
                            [780.0, 396.0, 400.0, 812.0],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "ZeroPad3d": (
        _grad(lambda T, x: T.nn.ZeroPad3d((1, 0, -1, 1, 0, 1))(x), CUBE),
        (
            (
                [
                    [
                        [
                            [0.0, 4.0, 5.0, 6.0, 7.0],
                            [0.0, 8.0, 9.0, 10.0, 11.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0],
                        ],
                        [
                            [0.0, 16.0, 17.0, 18.0, 19.0],
                            [0.0, 20.0, 21.0, 30.0, 30.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0],
                        ],
                        [
                            [0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0],
                            [0.0, 0.0, 0.0, 0.0, 0.0],
                        ],
                    ]
                ],
                "float32",
                "ConstantPadNdBackward0",
            ),
            (
                [
                    [
                        [[0.0, 0.0, 0.0, 0.0], [2.0, 3.0, 4.0, 5.0], [7.0, 8.0, 9.0, 10.0]],
                        [[0.0, 0.0, 0.0, 0.0], [17.0, 18.0, 19.0, 20.0], [22.0, 23.0, 24.0, 25.0]],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "ConstantPad3d": (
        _grad(lambda T, x: T.nn.ConstantPad3d(1, 2.5)(x), CUBE),
        (
            (
                [
                    [
                        [
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                        ],
                        [
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 0.0, 1.0, 2.0, 3.0, 2.5],
                            [2.5, 4.0, 5.0, 6.0, 7.0, 2.5],
                            [2.5, 8.0, 9.0, 10.0, 11.0, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                        ],
                        [
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 12.0, 13.0, 14.0, 15.0, 2.5],
                            [2.5, 16.0, 17.0, 18.0, 19.0, 2.5],
                            [2.5, 20.0, 21.0, 30.0, 30.0, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                        ],
                        [
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                            [2.5, 2.5, 2.5, 2.5, 2.5, 2.5],
                        ],
                    ]
                ],
                "float32",
                "ConstantPadNdBackward0",
            ),
            (
                [
                    [
                        [
                            [38.0, 39.0, 40.0, 41.0],
                            [44.0, 45.0, 46.0, 47.0],
                            [50.0, 51.0, 52.0, 53.0],
                        ],
                        [
                            [68.0, 69.0, 70.0, 71.0],
                            [74.0, 75.0, 76.0, 77.0],
                            [80.0, 81.0, 82.0, 83.0],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "CircularPad1d": (
        _grad(lambda T, x: T.nn.CircularPad1d((2, 3))(x), ROW),
        (
            (
                [[[5.0, 5.0, 1.0, 3.0, 3.0, 2.0, 0.0, 5.0, 5.0, 1.0, 3.0, 3.0]]],
                "float32",
                "CopySlices",
            ),
            ([[[13.0, 15.0, 17.0, 6.0, 7.0, 9.0, 11.0]]], "float32", None),
        ),
    ),
    "CircularPad2d": (
        _grad(lambda T, x: T.nn.CircularPad2d((1, 2, 2, 0))(x), PLANE),
        (
            (
                [
                    [
                        [3.0, 4.0, 4.0, 1.0, 3.0, 4.0, 4.0],
                        [5.0, 0.0, 1.0, 5.0, 5.0, 0.0, 1.0],
                        [0.0, 1.0, 2.0, 2.0, 0.0, 1.0, 2.0],
                        [3.0, 4.0, 4.0, 1.0, 3.0, 4.0, 4.0],
                        [5.0, 0.0, 1.0, 5.0, 5.0, 0.0, 1.0],
                    ]
                ],
                "float32",
                "CopySlices",
            ),
            (
                [[[36.0, 38.0, 18.0, 34.0], [58.0, 62.0, 29.0, 54.0], [86.0, 90.0, 43.0, 82.0]]],
                "float32",
                None,
            ),
        ),
    ),
    "CircularPad3d": (
        _grad(lambda T, x: T.nn.CircularPad3d(1)(x), CUBE),
        (
            (
                [
                    [
                        [
                            [30.0, 20.0, 21.0, 30.0, 30.0, 20.0],
                            [15.0, 12.0, 13.0, 14.0, 15.0, 12.0],
                            [19.0, 16.0, 17.0, 18.0, 19.0, 16.0],
                            [30.0, 20.0, 21.0, 30.0, 30.0, 20.0],
                            [15.0, 12.0, 13.0, 14.0, 15.0, 12.0],
                        ],
                        [
                            [11.0, 8.0, 9.0, 10.0, 11.0, 8.0],
                            [3.0, 0.0, 1.0, 2.0, 3.0, 0.0],
                            [7.0, 4.0, 5.0, 6.0, 7.0, 4.0],
                            [11.0, 8.0, 9.0, 10.0, 11.0, 8.0],
                            [3.0, 0.0, 1.0, 2.0, 3.0, 0.0],
                        ],
                        [
                            [30.0, 20.0, 21.0, 30.0, 30.0, 20.0],
                            [15.0, 12.0, 13.0, 14.0, 15.0, 12.0],
                            [19.0, 16.0, 17.0, 18.0, 19.0, 16.0],
                            [30.0, 20.0, 21.0, 30.0, 30.0, 20.0],
                            [15.0, 12.0, 13.0, 14.0, 15.0, 12.0],
                        ],
                        [
                            [11.0, 8.0, 9.0, 10.0, 11.0, 8.0],
                            [3.0, 0.0, 1.0, 2.0, 3.0, 0.0],
                            [7.0, 4.0, 5.0, 6.0, 7.0, 4.0],
                            [11.0, 8.0, 9.0, 10.0, 11.0, 8.0],
                            [3.0, 0.0, 1.0, 2.0, 3.0, 0.0],
                        ],
                    ]
                ],
                "float32",
                "CopySlices",
            ),
            (
                [
                    [
                        [
                            [632.0, 312.0, 316.0, 624.0],
                            [304.0, 150.0, 152.0, 300.0],
                            [584.0, 288.0, 292.0, 576.0],
                        ],
                        [
                            [392.0, 192.0, 196.0, 384.0],
                            [184.0, 90.0, 92.0, 180.0],
                            [344.0, 168.0, 172.0, 336.0],
                        ],
                    ]
                ],
                "float32",
                None,
            ),
        ),
    ),
    "CircularPad2d_ndim": (
        lambda T: T.nn.CircularPad2d(1)(T.zeros(3, 3)),
        ("raises", "ValueError"),
    ),
    "ReflectionPad3d_too_big": (
        lambda T: T.nn.ReflectionPad3d(2)(T.zeros(1, 2, 3, 4)),
        ("raises", "RuntimeError"),
    ),
    "ReflectionPad3d_3d_input": (
        lambda T: T.nn.ReflectionPad3d(1)(T.zeros(2, 3, 4)),
        ("raises", "NotImplementedError"),
    ),
    "reprs": (
        lambda T: tuple(
            repr(m)
            for m in (
                T.nn.MaxUnpool1d(2),
                T.nn.MaxUnpool2d((2, 3), 1, 1),
                T.nn.MaxUnpool3d(2),
                T.nn.AdaptiveAvgPool3d((1, None, 2)),
                T.nn.AdaptiveMaxPool3d(2),
                T.nn.LPPool1d(2, 3, 2, True),
                T.nn.LPPool2d(1.5, 2),
                T.nn.LPPool3d(2, 2),
                T.nn.FractionalMaxPool2d(2, output_size=3),
                T.nn.ZeroPad3d(1),
                T.nn.ConstantPad3d(1, 2.0),
                T.nn.ReflectionPad3d(2),
                T.nn.ReplicationPad3d((1, 2, 3, 4, 5, 6)),
                T.nn.CircularPad1d(1),
                T.nn.CircularPad2d(1),
                T.nn.CircularPad3d((1, 2, 3, 4, 5, 6)),
            )
        ),
        (
            "MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))",
            "MaxUnpool2d(kernel_size=(2, 3), stride=(1, 1), padding=(1, 1))",
            "MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))",
            "AdaptiveAvgPool3d(output_size=(1, None, 2))",
            "AdaptiveMaxPool3d(output_size=2)",
            "LPPool1d(norm_type=2, kernel_size=3, stride=2, ceil_mode=True)",
            "LPPool2d(norm_type=1.5, kernel_size=2, stride=None, ceil_mode=False)",
            "LPPool3d(norm_type=2, kernel_size=2, stride=None, ceil_mode=False)",
            "FractionalMaxPool2d()",
            "ZeroPad3d((1, 1, 1, 1, 1, 1))",
            "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=2.0)",
            "ReflectionPad3d((2, 2, 2, 2, 2, 2))",
            "ReplicationPad3d((1, 2, 3, 4, 5, 6))",
            "CircularPad1d((1, 1))",
            "CircularPad2d((1, 1, 1, 1))",
            "CircularPad3d((1, 2, 3, 4, 5, 6))",
        ),
    ),
    "fractional_state": (
        lambda T: tuple(
            T.nn.FractionalMaxPool2d(
                2, output_ratio=0.5, _random_samples=T.zeros(1, 1, 2)
            ).state_dict()
        ),
        ("_random_samples",),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_symgrad_matches_the_expected_data(name):
    fn, expected = CASES[name]
    assert run(symgrad, fn) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_pytorch_gives_the_same_data(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert run(torch, fn) == expected


def _finite_differences(f, x, eps=1e-6):
    """Central differences of ``sum(f(x) * w)`` for fixed weights ``w``, in float64."""
    base = x.detach().numpy()
    w = np.random.default_rng(0).standard_normal(f(symgrad.tensor(base)).shape)
    grad = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        up, down = base.copy(), base.copy()
        up[i] += eps
        down[i] -= eps
        diff = f(symgrad.tensor(up)).numpy() - f(symgrad.tensor(down)).numpy()
        grad[i] = (diff * w).sum() / (2 * eps)
    return w, grad


SMOOTH = {
    "lp_pool2d": lambda x: F(symgrad).lp_pool2d(x, 3, 2, stride=1),
    "lp_pool1d": lambda x: F(symgrad).lp_pool1d(x.flatten(1), 2.5, 3, ceil_mode=True),
    "adaptive_avg_pool3d": lambda x: F(symgrad).adaptive_avg_pool3d(x[None], (2, 2, 3)),
    "max_unpool2d": lambda x: F(symgrad).max_unpool2d(
        x[..., :2, :2], symgrad.tensor([[[[0, 3], [9, 14]]]]), 2, output_size=(4, 4)
    ),
    "fractional_max_pool2d": lambda x: F(symgrad).fractional_max_pool2d(
        x,
        2,
        output_size=(2, 3),
        _random_samples=symgrad.tensor([[[0.3, 0.6]]], dtype=symgrad.float64),
    ),
    "constant_pad_nd": lambda x: symgrad.constant_pad_nd(x, (1, -1, 2, 0), 3.0),
    "reflection_pad3d": lambda x: symgrad.nn.ReflectionPad3d((1, 1, 1, 0, 0, 1))(
        x.reshape(1, 2, 2, 4)
    ),
    "circular_pad2d": lambda x: symgrad.nn.CircularPad2d((1, 2, 0, 1))(x),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_gradient_matches_finite_differences(name):
    f = SMOOTH[name]
    # distinct positive values: no ties, no zero windows, so every op is smooth here
    values = np.random.default_rng(1).permutation(16).reshape(1, 1, 4, 4) * 0.25 + 0.5
    x = symgrad.tensor(values, requires_grad=True)
    w, expected = _finite_differences(f, x)
    (f(x) * symgrad.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_second_order_through_max_unpool_and_adaptive_max():
    x = symgrad.tensor([[[1.0, 4.0, 2.0, 3.0]]], requires_grad=True)
    values, indices = F(symgrad).adaptive_max_pool1d(x, 2, True)
    y = F(symgrad).max_unpool1d(values * values, indices, 2)
    (g,) = symgrad.autograd.grad(y.sum(), x, create_graph=True)
    assert g.tolist() == [[[0.0, 8.0, 0.0, 6.0]]]
    (gg,) = symgrad.autograd.grad(g.sum(), x)
    assert gg.tolist() == [[[0.0, 2.0, 0.0, 2.0]]]


def test_fractional_samples_are_drawn_when_not_given():
    symgrad.manual_seed(0)
    out, indices = F(symgrad).fractional_max_pool2d(
        symgrad.arange(36.0).reshape(1, 6, 6), 2, output_size=3, return_indices=True
    )
    assert out.shape == (1, 3, 3) and indices.dtype is symgrad.int64
    # each maximum is the bottom-right of its window in an increasing image
    assert (out.flatten().long() == indices.flatten()).all()


def test_names_are_public():
    functional = (
        "max_pool1d_with_indices max_pool2d_with_indices max_pool3d_with_indices max_unpool1d "
        "max_unpool2d max_unpool3d adaptive_max_pool1d_with_indices "
        "adaptive_max_pool2d_with_indices adaptive_max_pool3d adaptive_max_pool3d_with_indices "
        "adaptive_avg_pool3d lp_pool1d lp_pool2d lp_pool3d fractional_max_pool2d "
        "fractional_max_pool3d fractional_max_pool2d_with_indices "
        "fractional_max_pool3d_with_indices"
    ).split()
    layers = (
        "MaxUnpool1d MaxUnpool2d MaxUnpool3d AdaptiveAvgPool3d AdaptiveMaxPool3d LPPool1d "
        "LPPool2d LPPool3d FractionalMaxPool2d FractionalMaxPool3d ReflectionPad3d "
        "ReplicationPad3d ZeroPad3d ConstantPad3d CircularPad1d CircularPad2d CircularPad3d"
    ).split()
    top = (
        "max_pool1d max_pool2d max_pool3d max_pool1d_with_indices avg_pool1d "
        "adaptive_avg_pool1d adaptive_max_pool1d constant_pad_nd"
    ).split()
    assert [n for n in functional if n not in symgrad.nn.functional.__all__] == []
    assert [n for n in layers if n not in symgrad.nn.__all__] == []
    assert [n for n in top if not callable(getattr(symgrad, n, None))] == []
