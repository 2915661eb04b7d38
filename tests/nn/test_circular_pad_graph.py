"""Circular padding records PyTorch 2.13's graph: a new tensor filled by copies into slices
(``CopySlices`` reading ``SliceBackward0``), what negative pads leave first, then each padded
dimension's wrapped parts, the last dimension first; without a graph to record it gives the
same values, row-major as PyTorch's.

Each case is reduced to plain data (values, dtype, grad_fn name, graph, or the exception's
type), checked for symgrad always and for PyTorch when it is installed."""

from __future__ import annotations

from _graph_names import graph
from _torch_table import table_tests


def _padded(T, shape, pad):
    x = T.arange(float(_count(shape)), dtype=T.float64).reshape(shape).requires_grad_()
    y = T.nn.functional.pad(x, pad, mode="circular")
    g = T.arange(float(y.numel()), dtype=T.float64).reshape(y.shape)
    return y, graph(y), T.autograd.grad(y, x, g)[0]


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


CASES = {
    "one_dimension": (
        lambda T: _padded(T, (1, 2, 3), (2, 1)),
        (
            (
                [[[1.0, 2.0, 0.0, 1.0, 2.0, 0.0], [4.0, 5.0, 3.0, 4.0, 5.0, 3.0]]],
                "float64",
                "CopySlices",
            ),
            (
                ("CopySlices", ((1, 0), (2, 0))),
                ("CopySlices", ((3, 0), (4, 0))),
                ("SliceBackward0", ((1, 0),)),
                ("CopySlices", (None, (5, 0))),
                ("SliceBackward0", ((3, 0),)),
                ("SliceBackward0", ((6, 0),)),
                ("AccumulateGrad", ()),
            ),
            ([[[7.0, 3.0, 5.0], [19.0, 15.0, 17.0]]], "float64", None),
        ),
    ),
    "two_dimensions_cropping_one_side": (
        lambda T: _padded(T, (1, 2, 3), (1, -1, 0, 1))[1:],
        (
            (
                ("CopySlices", ((1, 0), (2, 0))),
                ("CopySlices", ((3, 0), (4, 0))),
                ("SliceBackward0", ((1, 0),)),
                ("CopySlices", (None, (5, 0))),
                ("SliceBackward0", ((3, 0),)),
                ("SliceBackward0", ((6, 0),)),
                ("SliceBackward0", ((7, 0),)),
                ("AccumulateGrad", ()),
            ),
            ([[[8.0, 16.0, 0.0], [4.0, 8.0, 0.0]]], "float64", None),
        ),
    ),
    "without_a_graph_row_major": (
        lambda T: T.nn.functional.pad(
            T.arange(24.0).reshape(1, 2, 3, 4).to(memory_format=T.channels_last),
            (1, 1, 1, 1),
            mode="circular",
        ).stride(),
        (60, 30, 6, 1),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
