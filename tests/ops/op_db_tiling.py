"""Op table entries for repeating, rolling, broadcasting and scattering (included in
:data:`op_db.OP_DB`)."""

from __future__ import annotations

from .op_db import _op, arg


def _index(T, rows):
    return T.tensor(rows)


TILING = [
    _op("repeat", lambda T, x: x.repeat(2, 1, 3), arg(2, 3)),
    _op("tile", lambda T, x: T.tile(x, (2,)), arg(2, 3)),
    _op("repeat_interleave", lambda T, x: x.repeat_interleave(2, 0), arg(2, 3)),
    _op("repeat_interleave_flat", lambda T, x: T.repeat_interleave(x, 3), arg(2, 2)),
    _op(
        "repeat_interleave_counts",
        lambda T, x: x.repeat_interleave(_index(T, [1, 0, 2]), 1),
        arg(2, 3),
    ),
    _op("roll", lambda T, x: T.roll(x, (1, -1), (0, 1)), arg(3, 4)),
    _op("roll_flat", lambda T, x: x.roll(2), arg(2, 3)),
    _op("rot90", lambda T, x: T.rot90(x), arg(2, 3)),
    _op("rot90_k3", lambda T, x: T.rot90(x, 3, (1, 2)), arg(2, 3, 2)),
    _op("unflatten", lambda T, x: x.unflatten(1, (2, -1)), arg(3, 4)),
    _op(
        "take_along_dim",
        lambda T, x: T.take_along_dim(x, _index(T, [[0, 2], [1, 1]]), 1),
        arg(2, 3),
    ),
    _op("masked_select", lambda T, x: T.masked_select(x, x > 0), arg(2, 3)),
    _op(
        "scatter",
        lambda T, x, s: x.scatter(1, _index(T, [[2, 0], [1, 0]]), s),
        arg(2, 3),
        arg(2, 2),
    ),
    _op("scatter_value", lambda T, x: T.scatter(x, 0, _index(T, [[1, 0, 1]]), 2.5), arg(2, 3)),
    _op(
        "scatter_add",
        lambda T, x, s: x.scatter_add(1, _index(T, [[2, 2], [0, 1]]), s),
        arg(2, 3),
        arg(2, 2),
    ),
    _op(
        "index_add",
        lambda T, x, s: x.index_add(0, _index(T, [1, 1, 0]), s, alpha=2),
        arg(2, 3),
        arg(3, 3),
    ),
    _op(
        "index_copy", lambda T, x, s: T.index_copy(x, 1, _index(T, [2, 0]), s), arg(2, 3), arg(2, 2)
    ),
    _op("index_fill", lambda T, x: x.index_fill(1, _index(T, [0, 2]), -1.5), arg(2, 3)),
    _op(
        "index_fill_tensor",
        lambda T, x, v: x.index_fill(1, _index(T, [0, 2, 0]), v),
        arg(2, 3),
        arg(),
    ),
    _op(
        "masked_scatter",
        lambda T, x, s: x.masked_scatter(T.tensor([[True, False, True], [False, True, False]]), s),
        arg(2, 3),
        arg(6),
    ),
    _op("put", lambda T, x, s: x.put(_index(T, [0, 4, -1]), s), arg(2, 3), arg(3)),
    _op(
        "put_accumulate",
        lambda T, x, s: x.put(_index(T, [0, 0, 5]), s, accumulate=True),
        arg(2, 3),
        arg(3),
    ),
    _op("as_strided", lambda T, x: x.as_strided((2, 2), (1, 2), 1), arg(2, 3)),
    _op("as_strided_overlapping", lambda T, x: (x * 1).as_strided((3, 2), (1, 1)), arg(2, 3)),
    _op(
        "scatter_add_inplace",
        lambda T, x, s: (x * 1).scatter_add_(0, _index(T, [[1, 0]]), s),
        arg(2, 2),
        arg(1, 2),
    ),
    _op("einsum_matmul", lambda T, a, b: T.einsum("ij,jk->ik", a, b), arg(2, 3), arg(3, 2)),
    _op("einsum_trace", lambda T, a: T.einsum("ii", a), arg(3, 3)),
    _op("einsum_diagonal_sum", lambda T, a: T.einsum("iij->j", a), arg(2, 2, 3)),
    _op(
        "einsum_batched", lambda T, a, b: T.einsum("bij,bjk->bik", a, b), arg(2, 2, 3), arg(2, 3, 2)
    ),
    _op("einsum_ellipsis", lambda T, a, b: T.einsum("...ij,...jk", a, b), arg(2, 2, 3), arg(3, 2)),
    # three operands: PyTorch plans them with opt_einsum when that is installed, and its
    # errors differ then, so this one is not compared with PyTorch
    _op(
        "einsum_outer_three",
        lambda T, a, b, c: T.einsum("i,j,k->kji", a, b, c),
        arg(2),
        arg(3),
        arg(2),
        torch=False,
    ),
    _op("einsum_outer", lambda T, a, b: T.einsum("i,j->ji", a, b), arg(2), arg(3)),
]
