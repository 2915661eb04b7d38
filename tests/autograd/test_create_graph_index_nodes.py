"""The graphs that ``create_graph=True`` records for the gradients of indexing, scattering and
view-like ops: the node names of the first gradient of ``f(x).pow(2).sum()`` and of its
``next_functions``, as PyTorch's backward formulas record them (``grad.scatter(dim, index, 0)``
is ``ScatterBackward1``, ``diagonal_backward`` is ``DiagonalBackwardBackward0``, ``grad.roll``
is ``RollBackward0``), with the first gradient's values and its derivative along ``v``.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when installed.
"""

from __future__ import annotations

from functools import partial

from _graph_names import second_order
from _torch_table import table_tests

_grad = second_order


def _i(T, *v):
    return T.tensor(v)


def _pairs(T):
    return T.tensor([[2, 0], [1, 2]])


def _setitem(T, x, key, value):
    """``y[key] = value`` on a copy ``y`` of ``x``."""
    y = x * 1
    y[key(T, x)] = value(T, x)
    return y


_CASES = {
    "scatter": lambda T, x: x.scatter(1, _pairs(T), x[:, :2] * 3),
    "scatter_value": lambda T, x: x.scatter(1, _pairs(T), 1.5),
    "scatter_": lambda T, x: (x * 1).scatter_(1, _pairs(T), 1.5),
    "scatter_add": lambda T, x: x.scatter_add(1, _pairs(T), x[:, :2] * 3),
    "scatter_reduce_sum": lambda T, x: x.scatter_reduce(1, _pairs(T), x[:, :2] * 3, "sum"),
    "index_fill": lambda T, x: x.index_fill(0, _i(T, 1), 1.0),
    "index_fill_tensor": lambda T, x: x.index_fill(1, _i(T, 1), T.tensor(1.0)),
    "index_fill_": lambda T, x: (x * 1).index_fill_(0, _i(T, 1), 1.0),
    "index_add": lambda T, x: x.index_add(1, _i(T, 0, 2), x[:, :2] * 3),
    "index_copy": lambda T, x: x.index_copy(1, _i(T, 0, 2), x[:, :2] * 3),
    "masked_fill": lambda T, x: x.masked_fill(x > 0, 0.0),
    "masked_fill_tensor": lambda T, x: x.masked_fill(x > 0, T.tensor(0.0)),
    "masked_fill_": lambda T, x: (x * 1).masked_fill_(x > 0, 0.0),
    "put": lambda T, x: x.put(_i(T, 0, 4), T.tensor([5.0, 6.0], dtype=T.float64)),
    "put_source": lambda T, x: x.put(_i(T, 0, 4), x[0, :2] * 3),
    "put_accumulate": lambda T, x: x.put(_i(T, 0, 4), x[0, :2] * 3, accumulate=True),
    "masked_scatter": lambda T, x: x.masked_scatter(x > 0, T.ones(6, dtype=T.float64)),
    "masked_scatter_source": lambda T, x: x.masked_scatter(x > 0, x.flatten() * 2),
    "masked_scatter_source_only": lambda T, x: x.detach().masked_scatter(x > 0, x.flatten() * 2),
    "masked_select": lambda T, x: x.masked_select(x > 0),
    "index_put": lambda T, x: x.index_put(
        (_i(T, 0, 1), _i(T, 2, 0)), T.tensor([5.0, 6.0], dtype=T.float64)
    ),
    "index_put_source": lambda T, x: x.index_put((_i(T, 0, 1), _i(T, 2, 0)), x[0, :2] * 3),
    "index_put_accumulate": lambda T, x: x.index_put(
        (_i(T, 0, 1), _i(T, 2, 0)), x[0, :2] * 3, accumulate=True
    ),
    "index_put_mask": lambda T, x: x.index_put((x > 0,), T.tensor(5.0, dtype=T.float64)),
    # x[key] = v writes with index_put: IndexPutBackward0, as PyTorch's
    "setitem_indices": partial(
        _setitem, key=lambda T, x: (_i(T, 0, 1), _i(T, 2, 0)), value=lambda T, x: x[0, :2] * 3
    ),
    "setitem_mask": partial(_setitem, key=lambda T, x: x > 0, value=lambda T, x: 0.0),
    "setitem_columns": partial(
        _setitem, key=lambda T, x: (slice(None), _i(T, 0, 2)), value=lambda T, x: 5.0
    ),
    "diagonal": lambda T, x: x.diagonal(),
    "diagonal_offset": lambda T, x: x.diagonal(1),
    "diag": lambda T, x: T.diag(x),
    "diagonal_copy": lambda T, x: T.diagonal_copy(x),
    "diag_embed": lambda T, x: T.diag_embed(x),
    "gather": lambda T, x: x.gather(1, _pairs(T)),
    "index_select": lambda T, x: x.index_select(1, _i(T, 2, 0)),
    "take": lambda T, x: x.take(_i(T, 0, 4, 4)),
    "take_along_dim": lambda T, x: T.take_along_dim(x, _pairs(T), 1),
    "take_along_flat": lambda T, x: T.take_along_dim(x, _i(T, 0, 5)),
    "narrow": lambda T, x: x.narrow(1, 1, 2),
    "select": lambda T, x: x.select(1, 1),
    "slice": lambda T, x: x[:, 1:],
    "getitem_indices": lambda T, x: x[[0, 1], [2, 0]],
    "getitem_mask": lambda T, x: x[x > 0],
    "getitem_negative": lambda T, x: x[..., [-1]],
    "unfold": lambda T, x: x.unfold(1, 2, 1),
    "unfold_transposed": lambda T, x: x.t().unfold(0, 2, 1),
    "expand": lambda T, x: x[:1].expand(3, 3),
    "roll": lambda T, x: x.roll(1, 1),
    "roll_flat": lambda T, x: x.roll(2),
    "rot90": lambda T, x: x.rot90(),
    "flip": lambda T, x: x.flip(1),
    "fliplr": lambda T, x: x.fliplr(),
    "tril": lambda T, x: x.tril(),
    "triu": lambda T, x: x.triu(),
    "where": lambda T, x: T.where(x > 0, x, x * 3),
    "where_number": lambda T, x: T.where(x > 0, x, 0.0),
    "movedim": lambda T, x: x.movedim(0, 1),
    "unbind": lambda T, x: x.unbind(1)[1],
    "split": lambda T, x: x.split(2, 1)[1],
    "chunk": lambda T, x: x.chunk(2, 1)[0],
    "repeat_interleave": lambda T, x: x.repeat_interleave(2, 1),
    "repeat": lambda T, x: x.repeat(2, 1),
    "repeat_leading": lambda T, x: x.repeat(2, 1, 2),
    "tile": lambda T, x: x.tile(2),
    "trace": lambda T, x: T.trace(x).expand(2),
    "trace_transposed": lambda T, x: x.t().trace().expand(2),
    "select_scatter": lambda T, x: T.select_scatter(x, x[0] * 2, 0, 1),
    "slice_scatter": lambda T, x: T.slice_scatter(x, x[:, :1] * 2, 1, 0, 1),
    "diagonal_scatter": lambda T, x: T.diagonal_scatter(x, x[0, :2] * 2),
}

_EXPECTED = {
    "scatter": (
        ([[-18.0, 5.0, 0.0], [40.0, -9.0, 0.0]], "float64", None),
        (
            "AddBackward0",
            (
                ("ScatterBackward1", (("MulBackward0", (None, "MulBackward1")),)),
                ("SliceBackwardBackward0", (("MulBackward0", ("GatherBackward0", None)),)),
            ),
        ),
        ([[18.0, 40.0, 0.0], [80.0, 90.0, 0.0]], "float64", None),
    ),
    "scatter_value": (
        ([[0.0, 0.5, 0.0], [4.0, 0.0, 0.0]], "float64", None),
        ("ScatterBackward1", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[0.0, 4.0, 0.0], [8.0, 0.0, 0.0]], "float64", None),
    ),
    "scatter_": (
        ([[0.0, 0.5, 0.0], [4.0, 0.0, 0.0]], "float64", None),
        ("MulBackward0", (("ScatterBackward1", (("MulBackward0", (None, "MulBackward1")),)), None)),
        ([[0.0, 4.0, 0.0], [8.0, 0.0, 0.0]], "float64", None),
    ),
    "scatter_add": (
        ([[-10.7, -1.0, -3.4], [37.0, 6.2, -1.6]], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),
                ("SliceBackwardBackward0", (("MulBackward0", ("GatherBackward0", None)),)),
            ),
        ),
        ([[50.0, 46.0, 12.0], [110.0, 160.0, 42.0]], "float64", None),
    ),
    "scatter_reduce_sum": (
        ([[-10.7, -1.0, -3.4], [37.0, 6.2, -1.6]], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),
                ("SliceBackwardBackward0", (("MulBackward0", ("GatherBackward0", None)),)),
            ),
        ),
        ([[50.0, 46.0, 12.0], [110.0, 160.0, 42.0]], "float64", None),
    ),
    "index_fill": (
        ([[-2.0, 0.5, 2.6], [0.0, 0.0, 0.0]], "float64", None),
        ("IndexFillBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [0.0, 0.0, 0.0]], "float64", None),
    ),
    "index_fill_tensor": (
        ([[-2.0, 0.0, 2.6], [4.0, 0.0, 1.4]], "float64", None),
        ("IndexFillBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 0.0, 6.0], [8.0, 0.0, 12.0]], "float64", None),
    ),
    "index_fill_": (
        ([[-2.0, 0.5, 2.6], [0.0, 0.0, 0.0]], "float64", None),
        (
            "MulBackward0",
            (("IndexFillBackward0", (("MulBackward0", (None, "MulBackward1")),)), None),
        ),
        ([[2.0, 4.0, 6.0], [0.0, 0.0, 0.0]], "float64", None),
    ),
    "index_add": (
        ([[-32.0, 12.8, 4.1], [64.0, -5.8, -1.6]], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),
                ("SliceBackwardBackward0", (("MulBackward0", ("ExpandBackward0", None)),)),
            ),
        ),
        ([[32.0, 58.0, 18.0], [128.0, 136.0, 42.0]], "float64", None),
    ),
    "index_copy": (
        ([[-18.0, 5.0, 0.0], [36.0, -10.0, 0.0]], "float64", None),
        (
            "AddBackward0",
            (
                ("IndexFillBackward0", (("MulBackward0", (None, "MulBackward1")),)),
                ("SliceBackwardBackward0", (("MulBackward0", ("ExpandBackward0", None)),)),
            ),
        ),
        ([[18.0, 40.0, 0.0], [72.0, 100.0, 0.0]], "float64", None),
    ),
    "masked_fill": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        ("MaskedFillBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "masked_fill_tensor": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        ("MaskedFillBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "masked_fill_": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "MulBackward0",
            (("MaskedFillBackward0", (("MulBackward0", (None, "MulBackward1")),)), None),
        ),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "put": (
        ([[0.0, 0.5, 2.6], [4.0, 0.0, 1.4]], "float64", None),
        ("PutBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))), None)),
        ([[0.0, 4.0, 6.0], [8.0, 0.0, 12.0]], "float64", None),
    ),
    "put_source": (
        ([[-18.0, 5.0, 2.6], [4.0, 0.0, 1.4]], "float64", None),
        (
            "AddBackward0",
            (
                ("PutBackward0", (("MulBackward0", (None, "MulBackward1")), None)),
                ("SelectBackwardBackward0", (("SliceBackwardBackward0", ("MulBackward0",)),)),
            ),
        ),
        ([[18.0, 40.0, 6.0], [8.0, 0.0, 12.0]], "float64", None),
    ),
    "put_accumulate": (
        ([[-32.0, 2.0, 2.6], [4.0, 0.5, 1.4]], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),
                ("SelectBackwardBackward0", (("SliceBackwardBackward0", ("MulBackward0",)),)),
            ),
        ),
        ([[32.0, 70.0, 6.0], [8.0, 22.0, 12.0]], "float64", None),
    ),
    "masked_scatter": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        ("MaskedFillBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "masked_scatter_source": (
        ([[-10.0, 2.0, 10.4], [16.0, -1.0, 0.0]], "float64", None),
        (
            "AddBackward0",
            (
                ("MaskedFillBackward0", (("MulBackward0", (None, "MulBackward1")),)),
                ("ViewBackward0", (("MulBackward0", ("MaskedScatterBackwardBackward0", None)),)),
            ),
        ),
        ([[10.0, 16.0, 24.0], [32.0, 10.0, 0.0]], "float64", None),
    ),
    "masked_scatter_source_only": (
        ([[-8.0, 2.0, 10.4], [16.0, 0.0, 0.0]], "float64", None),
        (
            "ViewBackward0",
            (("MulBackward0", (("MaskedScatterBackwardBackward0", ("MulBackward0",)), None)),),
        ),
        ([[8.0, 16.0, 24.0], [32.0, 0.0, 0.0]], "float64", None),
    ),
    "masked_select": (
        ([[0.0, 0.5, 2.6], [4.0, 0.0, 1.4]], "float64", None),
        (
            "MaskedScatterBackward0",
            (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",))))),
        ),
        ([[0.0, 4.0, 6.0], [8.0, 0.0, 12.0]], "float64", None),
    ),
    "index_put": (
        ([[-2.0, 0.5, 0.0], [0.0, -1.0, 1.4]], "float64", None),
        (
            "IndexPutBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))), None),
        ),
        ([[2.0, 4.0, 0.0], [0.0, 10.0, 12.0]], "float64", None),
    ),
    "index_put_source": (
        ([[-20.0, 5.0, 0.0], [0.0, -1.0, 1.4]], "float64", None),
        (
            "AddBackward0",
            (
                ("IndexPutBackward0", (("MulBackward0", (None, "MulBackward1")), None)),
                ("SelectBackwardBackward0", (("SliceBackwardBackward0", ("MulBackward0",)),)),
            ),
        ),
        ([[20.0, 40.0, 0.0], [0.0, 10.0, 12.0]], "float64", None),
    ),
    "index_put_accumulate": (
        ([[-12.2, 17.0, -3.4], [5.5, -1.0, 1.4]], "float64", None),
        (
            "AddBackward0",
            (
                ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),
                ("SelectBackwardBackward0", (("SliceBackwardBackward0", ("MulBackward0",)),)),
            ),
        ),
        ([[38.0, 64.0, 12.0], [20.0, 10.0, 12.0]], "float64", None),
    ),
    "index_put_mask": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "IndexPutBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))), None),
        ),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "setitem_indices": (
        ([[-20.0, 5.0, 0.0], [0.0, -1.0, 1.4]], "float64", None),
        (
            "AddBackward0",
            (
                ("SelectBackwardBackward0", (("SliceBackwardBackward0", ("MulBackward0",)),)),
                ("MulBackward0", (("IndexPutBackward0", ("MulBackward0", None)), None)),
            ),
        ),
        ([[20.0, 40.0, 0.0], [0.0, 10.0, 12.0]], "float64", None),
    ),
    "setitem_mask": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "MulBackward0",
            (("IndexPutBackward0", (("MulBackward0", (None, "MulBackward1")), None)), None),
        ),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "setitem_columns": (
        ([[0.0, 0.5, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "MulBackward0",
            (("IndexPutBackward0", (("MulBackward0", (None, "MulBackward1")), None)), None),
        ),
        ([[0.0, 4.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "diagonal": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "DiagonalBackwardBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),),
        ),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "diagonal_offset": (
        ([[0.0, 0.5, 0.0], [0.0, 0.0, 1.4]], "float64", None),
        (
            "DiagonalBackwardBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),),
        ),
        ([[0.0, 4.0, 0.0], [0.0, 0.0, 12.0]], "float64", None),
    ),
    "diag": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "DiagonalBackwardBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),),
        ),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "diagonal_copy": (
        ([[-2.0, 0.0, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "DiagonalBackwardBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),),
        ),
        ([[2.0, 0.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "diag_embed": (
        ([[-2.0, 0.5, 2.6], [4.0, -1.0, 1.4]], "float64", None),
        ("DiagonalBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], "float64", None),
    ),
    "gather": (
        ([[-2.0, 0.0, 2.6], [0.0, -1.0, 1.4]], "float64", None),
        (
            "ScatterAddBackward0",
            (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",))))),
        ),
        ([[2.0, 0.0, 6.0], [0.0, 10.0, 12.0]], "float64", None),
    ),
    "index_select": (
        ([[-2.0, 0.0, 2.6], [4.0, 0.0, 1.4]], "float64", None),
        (
            "IndexAddBackward0",
            (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",))))),
        ),
        ([[2.0, 0.0, 6.0], [8.0, 0.0, 12.0]], "float64", None),
    ),
    "take": (
        ([[-2.0, 0.0, 0.0], [0.0, -2.0, 0.0]], "float64", None),
        ("PutBackward0", (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))))),
        ([[2.0, 0.0, 0.0], [0.0, 20.0, 0.0]], "float64", None),
    ),
    "take_along_dim": (
        ([[-2.0, 0.0, 2.6], [0.0, -1.0, 1.4]], "float64", None),
        (
            "ScatterAddBackward0",
            (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",))))),
        ),
        ([[2.0, 0.0, 6.0], [0.0, 10.0, 12.0]], "float64", None),
    ),
    "take_along_flat": (
        ([[-2.0, 0.0, 0.0], [0.0, 0.0, 1.4]], "float64", None),
        (
            "ViewBackward0",
            (("ScatterAddBackward0", (None, ("MulBackward0", (None, "MulBackward1")))),),
        ),
        ([[2.0, 0.0, 0.0], [0.0, 0.0, 12.0]], "float64", None),
    ),
    "narrow": (
        ([[0.0, 0.5, 2.6], [0.0, -1.0, 1.4]], "float64", None),
        (
            "SliceBackwardBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),),
        ),
        ([[0.0, 4.0, 6.0], [0.0, 10.0, 12.0]], "float64", None),
    ),
    "select": (
        ([[0.0, 0.5, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "SelectBackwardBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),),
        ),
        ([[0.0, 4.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "slice": (
        ([[0.0, 0.5, 2.6], [0.0, -1.0, 1.4]], "float64", None),
        (
            "SliceBackwardBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),),
        ),
        ([[0.0, 4.0, 6.0], [0.0, 10.0, 12.0]], "float64", None),
    ),
    "getitem_indices": (
        ([[0.0, 0.0, 2.6], [4.0, 0.0, 0.0]], "float64", None),
        (
            "IndexPutImplBackward0",
            (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",))))),
        ),
        ([[0.0, 0.0, 6.0], [8.0, 0.0, 0.0]], "float64", None),
    ),
    "getitem_mask": (
        ([[0.0, 0.5, 2.6], [4.0, 0.0, 1.4]], "float64", None),
        (
            "IndexPutImplBackward0",
            (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",))))),
        ),
        ([[0.0, 4.0, 6.0], [8.0, 0.0, 12.0]], "float64", None),
    ),
    "getitem_negative": (
        ([[0.0, 0.0, 2.6], [0.0, 0.0, 1.4]], "float64", None),
        (
            "IndexPutImplBackward0",
            (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",))))),
        ),
        ([[0.0, 0.0, 6.0], [0.0, 0.0, 12.0]], "float64", None),
    ),
    "unfold": (
        ([[-2.0, 1.0, 2.6], [4.0, -2.0, 1.4]], "float64", None),
        (
            "UnfoldBackwardBackward0",
            (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),),
        ),
        ([[2.0, 8.0, 6.0], [8.0, 20.0, 12.0]], "float64", None),
    ),
    "unfold_transposed": (
        ([[-2.0, 1.0, 2.6], [4.0, -2.0, 1.4]], "float64", None),
        ("TBackward0", (("UnfoldBackwardBackward0", (("MulBackward0", (None, "MulBackward1")),)),)),
        ([[2.0, 8.0, 6.0], [8.0, 20.0, 12.0]], "float64", None),
    ),
    "expand": (
        ([[-6.0, 1.5, 7.8], [0.0, 0.0, 0.0]], "float64", None),
        (
            "SliceBackwardBackward0",
            (("SumBackward1", (("MulBackward0", (None, "MulBackward1")),)),),
        ),
        ([[6.0, 12.0, 18.0], [0.0, 0.0, 0.0]], "float64", None),
    ),
    "roll": (
        ([[-2.0, 0.5, 2.6], [4.0, -1.0, 1.4]], "float64", None),
        ("RollBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], "float64", None),
    ),
    "roll_flat": (
        ([[-2.0, 0.5, 2.6], [4.0, -1.0, 1.4]], "float64", None),
        ("RollBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], "float64", None),
    ),
    "rot90": (
        ([[-2.0, 0.5, 2.6], [4.0, -1.0, 1.4]], "float64", None),
        ("Rot90Backward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], "float64", None),
    ),
    "flip": (
        ([[-2.0, 0.5, 2.6], [4.0, -1.0, 1.4]], "float64", None),
        ("FlipBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], "float64", None),
    ),
    "fliplr": (
        ([[-2.0, 0.5, 2.6], [4.0, -1.0, 1.4]], "float64", None),
        ("FlipBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], "float64", None),
    ),
    "tril": (
        ([[-2.0, 0.0, 0.0], [4.0, -1.0, 0.0]], "float64", None),
        ("TrilBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 0.0, 0.0], [8.0, 10.0, 0.0]], "float64", None),
    ),
    "triu": (
        ([[-2.0, 0.5, 2.6], [0.0, -1.0, 1.4]], "float64", None),
        ("TriuBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [0.0, 10.0, 12.0]], "float64", None),
    ),
    "where": (
        ([[-18.0, 0.5, 2.6], [4.0, -9.0, 1.4]], "float64", None),
        (
            "AddBackward0",
            (
                ("WhereBackward0", (("MulBackward0", (None, "MulBackward1")), None)),
                ("MulBackward0", (("WhereBackward0", (None, "MulBackward0")), None)),
            ),
        ),
        ([[18.0, 4.0, 6.0], [8.0, 90.0, 12.0]], "float64", None),
    ),
    "where_number": (
        ([[0.0, 0.5, 2.6], [4.0, 0.0, 1.4]], "float64", None),
        ("WhereBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))), None)),
        ([[0.0, 4.0, 6.0], [8.0, 0.0, 12.0]], "float64", None),
    ),
    "movedim": (
        ([[-2.0, 0.5, 2.6], [4.0, -1.0, 1.4]], "float64", None),
        ("PermuteBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),)),
        ([[2.0, 4.0, 6.0], [8.0, 10.0, 12.0]], "float64", None),
    ),
    "unbind": (
        ([[0.0, 0.5, 0.0], [0.0, -1.0, 0.0]], "float64", None),
        (
            "StackBackward0",
            (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))), None),
        ),
        ([[0.0, 4.0, 0.0], [0.0, 10.0, 0.0]], "float64", None),
    ),
    "split": (
        ([[0.0, 0.0, 2.6], [0.0, 0.0, 1.4]], "float64", None),
        ("CatBackward0", (None, ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))))),
        ([[0.0, 0.0, 6.0], [0.0, 0.0, 12.0]], "float64", None),
    ),
    "chunk": (
        ([[-2.0, 0.5, 0.0], [4.0, -1.0, 0.0]], "float64", None),
        ("CatBackward0", (("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))), None)),
        ([[2.0, 4.0, 0.0], [8.0, 10.0, 0.0]], "float64", None),
    ),
    "repeat_interleave": (
        ([[-4.0, 1.0, 5.2], [8.0, -2.0, 2.8]], "float64", None),
        ("SqueezeBackward1", (("SumBackward1", (("ViewBackward0", ("MulBackward0",)),)),)),
        ([[4.0, 8.0, 12.0], [16.0, 20.0, 24.0]], "float64", None),
    ),
    # PyTorch's repeat_backward: one reshape splitting out the repeats, one sum over them
    "repeat": (
        ([[-4.0, 1.0, 5.2], [8.0, -2.0, 2.8]], "float64", None),
        ("SumBackward1", (("ViewBackward0", (("MulBackward0", (None, "MulBackward1")),)),)),
        ([[4.0, 8.0, 12.0], [16.0, 20.0, 24.0]], "float64", None),
    ),
    "repeat_leading": (
        ([[-8.0, 2.0, 10.4], [16.0, -4.0, 5.6]], "float64", None),
        ("SumBackward1", (("ViewBackward0", (("SumBackward1", ("MulBackward0",)),)),)),
        ([[8.0, 16.0, 24.0], [32.0, 40.0, 48.0]], "float64", None),
    ),
    "tile": (
        ([[-4.0, 1.0, 5.2], [8.0, -2.0, 2.8]], "float64", None),
        ("SumBackward1", (("ViewBackward0", (("MulBackward0", (None, "MulBackward1")),)),)),
        ([[4.0, 8.0, 12.0], [16.0, 20.0, 24.0]], "float64", None),
    ),
    # PyTorch's trace_backward: g index_fill_-ed into flat zeros, viewed as the matrix
    "trace": (
        ([[-6.0, 0.0, 0.0], [0.0, -6.0, 0.0]], "float64", None),
        ("ViewBackward0", (("IndexFillBackward1", (None, ("SumBackward0", ("MulBackward0",)))),)),
        ([[24.0, 0.0, 0.0], [0.0, 24.0, 0.0]], "float64", None),
    ),
    "trace_transposed": (
        ([[-6.0, 0.0, 0.0], [0.0, -6.0, 0.0]], "float64", None),
        ("TBackward0", (("ViewBackward0", (("IndexFillBackward1", (None, "SumBackward0")),)),)),
        ([[24.0, 0.0, 0.0], [0.0, 24.0, 0.0]], "float64", None),
    ),
    "select_scatter": (
        ([[-10.0, 2.5, 13.0], [0.0, 0.0, 0.0]], "float64", None),
        (
            "AddBackward0",
            (
                ("SelectScatterBackward0", (("MulBackward0", (None, "MulBackward1")), None)),
                ("SelectBackwardBackward0", (("MulBackward0", ("SelectBackward0", None)),)),
            ),
        ),
        ([[10.0, 20.0, 30.0], [0.0, 0.0, 0.0]], "float64", None),
    ),
    "slice_scatter": (
        ([[-8.0, 0.5, 2.6], [16.0, -1.0, 1.4]], "float64", None),
        (
            "AddBackward0",
            (
                ("SliceScatterBackward0", (("MulBackward0", (None, "MulBackward1")), None)),
                ("SliceBackwardBackward0", (("MulBackward0", ("SliceBackward0", None)),)),
            ),
        ),
        ([[8.0, 4.0, 6.0], [32.0, 10.0, 12.0]], "float64", None),
    ),
    "diagonal_scatter": (
        ([[-8.0, 2.5, 2.6], [4.0, 0.0, 1.4]], "float64", None),
        (
            "AddBackward0",
            (
                ("DiagonalScatterBackward0", (("MulBackward0", (None, "MulBackward1")), None)),
                ("SelectBackwardBackward0", (("SliceBackwardBackward0", ("MulBackward0",)),)),
            ),
        ),
        ([[8.0, 20.0, 6.0], [8.0, 0.0, 12.0]], "float64", None),
    ),
}

test_graph_names, test_graph_names_are_pytorchs = table_tests(
    {k: (partial(_grad, f=f), _EXPECTED[k]) for k, f in _CASES.items()}
)
