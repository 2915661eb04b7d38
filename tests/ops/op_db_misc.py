"""Op table entries for mode, nanmedian, logcumsumexp, scatter_reduce and index_put (included
in :data:`op_db.OP_DB`). unique and unique_consecutive have no derivative (their backward
raises, as in PyTorch), so they are tested in ``test_misc_ops.py`` only."""

from __future__ import annotations

from .op_db import _op, arg, f64

NAN, INF = float("nan"), float("inf")

# PyTorch's forward mode gives scatter_reduce(reduce='prod') no tangent at all, and
# logcumsumexp's shifts by the row's maximum, so that far below it the tangent underflows
# (0 where it is 400 t); symgrad's is carried along the row as the gradient is
TORCH_TANGENT_DIFFERS = "torch_tangent_differs"


def _rows(T, data):
    return T.tensor(data)


# every place of a (3, 2) input is written once or twice, one place not at all (dim 0)
_SCATTER_INDEX = [[0, 1], [2, 1], [0, 0], [2, 1]]


def _scatter_reduce(reduce, include_self=True, kind="distinct", method=False):
    def fn(T, x, s):
        index = _rows(T, _SCATTER_INDEX)
        if method:
            return (x * 1.0).scatter_reduce_(0, index, s, reduce, include_self=include_self)
        return T.scatter_reduce(x, 0, index, s, reduce, include_self=include_self)

    tags = (TORCH_TANGENT_DIFFERS,) if reduce == "prod" else ()
    return fn, (arg(3, 2, kind="distinct"), arg(4, 2, kind=kind)), tags


def _scatter_reduce_ops():
    ops = []
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            fn, inputs, tags = _scatter_reduce(reduce, include_self)
            name = f"scatter_reduce_{reduce}" + ("" if include_self else "_exclude_self")
            ops.append(_op(name, fn, *inputs, tags=tags))
    fn, inputs, tags = _scatter_reduce("prod", kind="zero")
    ops.append(_op("scatter_reduce_prod_zero", fn, *inputs, tags=tags))
    fn, inputs, tags = _scatter_reduce("amax", include_self=False, method=True)
    ops.append(_op("scatter_reduce_inplace_amax", fn, *inputs, tags=tags))
    fn, inputs, tags = _scatter_reduce("sum", method=True)
    ops.append(_op("scatter_reduce_inplace_sum", fn, *inputs, tags=tags))
    ops.append(
        _op(
            "scatter_reduce_mean_dim1",
            lambda T, x, s: x.scatter_reduce(1, _rows(T, [[2, 2], [0, 1]]), s, "mean"),
            arg(2, 3),
            arg(2, 2),
        )
    )
    return ops


def _index_put(T, x, v, rows, cols=None, accumulate=False, method=False):
    indices = (_rows(T, rows),) if cols is None else (_rows(T, rows), _rows(T, cols))
    if method:
        return (x * 1.0).index_put_(indices, v, accumulate=accumulate)
    return T.index_put(x, indices, v, accumulate=accumulate)


MISC = [
    _op("mode", lambda T, x: T.mode(x).values, arg(3, 4, kind="distinct")),
    # repeated columns: the mode is the smallest repeated value, its index PyTorch's
    _op("mode_ties", lambda T, x: T.cat([x, x[:, 1:3]], 1).mode(1).values, arg(2, 4)),
    _op("mode_keepdim", lambda T, x: x.mode(0, keepdim=True).values, arg(3, 2, kind="distinct")),
    _op("nanmedian_all", lambda T, x: T.nanmedian(x), arg(3, 4, kind="distinct")),
    _op(
        "nanmedian_all_with_nans",
        lambda T, x: (x + f64(T, [[NAN, 0.0, 0.0], [0.0, NAN, NAN]])).nanmedian(),
        arg(2, 3, kind="distinct"),
    ),
    _op(
        "nanmedian_dim",
        lambda T, x: T.nanmedian(x + f64(T, [[0.0, NAN, 0.0, 0.0], [NAN, 0.0, 0.0, NAN]]), 1)[0],
        arg(2, 4, kind="distinct"),
    ),
    _op(
        "nanmedian_keepdim",
        lambda T, x: x.nanmedian(0, keepdim=True).values,
        arg(4, 2, kind="distinct"),
    ),
    _op("logcumsumexp", lambda T, x: T.logcumsumexp(x, 1), arg(2, 4)),
    _op("logcumsumexp_dim0_method", lambda T, x: x.logcumsumexp(0), arg(3, 2)),
    _op("logcumsumexp_0d", lambda T, x: T.logcumsumexp(x, 0), arg()),
    _op(
        "logcumsumexp_neg_inf",
        lambda T, x: T.logcumsumexp(x + f64(T, [[0.0, -INF, 0.0, 0.0], [0.0, 0.0, -INF, -INF]]), 1),
        arg(2, 4),
    ),
    _op(
        "logcumsumexp_large",
        lambda T, x: T.logcumsumexp(x * 400.0, 1),
        arg(2, 4),
        tags=(TORCH_TANGENT_DIFFERS,),
    ),
    *_scatter_reduce_ops(),
    _op(
        "index_put",
        lambda T, x, v: _index_put(T, x, v, [0, 2, 1], [1, 3, 1]),
        arg(3, 4),
        arg(3),
    ),
    _op(
        "index_put_accumulate",
        lambda T, x, v: _index_put(T, x, v, [0, 2, 0], [1, 3, 1], accumulate=True),
        arg(3, 4),
        arg(3),
    ),
    _op(
        "index_put_rows_broadcast",
        lambda T, x, v: _index_put(T, x, v, [2, 0]),
        arg(3, 4),
        arg(4),
    ),
    _op(
        "index_put_mask",
        lambda T, x, v: _index_put(T, x, v, [[True, False, True], [False, False, True]]),
        arg(2, 3),
        arg(3),
    ),
    _op(
        "index_put_inplace_accumulate",
        lambda T, x, v: _index_put(T, x, v, [1, 1], accumulate=True, method=True),
        arg(3, 2),
        arg(2, 2),
    ),
    # dist: one DistBackward0 node; the shift keeps every difference away from 0
    _op("dist", lambda T, x, y: T.dist(x, y), arg(2, 3), arg(3)),
    _op("dist_p1", lambda T, x, y: T.dist(x, y + 5.0, 1), arg(2, 3), arg(3)),
    _op("dist_p3_method", lambda T, x, y: x.dist(y + 5.0, p=3), arg(3, 1), arg(2)),
    _op("dist_p_half", lambda T, x, y: T.dist(x, y + 5.0, 0.5), arg(4), arg(1)),
    _op("dist_inf", lambda T, x, y: T.dist(x, y + 5.0, INF), arg(4, kind="distinct"), arg(1)),
    # in-place shape changes of a non-leaf: PyTorch's in-place nodes
    _op("unsqueeze_", lambda T, x: (x * 1).unsqueeze_(1), arg(2, 3)),
    _op("squeeze_", lambda T, x: (x * 1).squeeze_(), arg(2, 1, 3)),
    _op("squeeze_dim_", lambda T, x: (x * 1).squeeze_(1), arg(2, 1, 3)),
    _op("t_", lambda T, x: (x * 1).t_(), arg(2, 3)),
    _op("transpose_", lambda T, x: (x * 1).transpose_(0, 2), arg(2, 1, 3)),
    # fill_diagonal_: a fill_ of a diagonal view, CopySlices over the history
    _op("fill_diagonal_", lambda T, x: (x * 1).fill_diagonal_(2.0), arg(3, 3)),
    _op("fill_diagonal_wrap", lambda T, x: (x * 1).fill_diagonal_(-1.0, wrap=True), arg(5, 2)),
]
