"""Op table entries for scans, ordering, triangles and diagonals (included in
:data:`op_db.OP_DB`)."""

from __future__ import annotations

from .op_db import _op, arg, f64

ORDERING = [
    _op("cumsum", lambda T, x: T.cumsum(x, 1), arg(2, 4)),
    _op("cumsum_dim0_method", lambda T, x: x.cumsum(0), arg(3, 2)),
    _op("cumsum_0d", lambda T, x: T.cumsum(x, 0), arg()),
    _op("cumprod", lambda T, x: T.cumprod(x, 1), arg(2, 4)),
    # zeros in the input: the gradient without division
    _op(
        "cumprod_zeros",
        lambda T, x: T.cumprod(x * f64(T, [[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0]]), 1),
        arg(2, 4),
    ),
    _op("cummax", lambda T, x: T.cummax(x, 1).values, arg(2, 4, kind="distinct")),
    _op("cummin", lambda T, x: x.cummin(0).values, arg(3, 2, kind="distinct")),
    _op("sort", lambda T, x: T.sort(x, 1).values, arg(2, 4, kind="distinct")),
    _op(
        "sort_descending",
        lambda T, x: x.sort(0, descending=True).values,
        arg(3, 2, kind="distinct"),
    ),
    _op("msort", lambda T, x: T.msort(x), arg(3, 2, kind="distinct")),
    _op("topk", lambda T, x: T.topk(x, 2).values, arg(2, 4, kind="distinct")),
    _op(
        "topk_smallest_dim0",
        lambda T, x: x.topk(2, dim=0, largest=False).values,
        arg(3, 2, kind="distinct"),
    ),
    _op("kthvalue", lambda T, x: T.kthvalue(x, 2, 1).values, arg(2, 4, kind="distinct")),
    _op(
        "kthvalue_keepdim",
        lambda T, x: x.kthvalue(3, 0, keepdim=True).values,
        arg(3, 2, kind="distinct"),
    ),
    _op("tril", lambda T, x: T.tril(x), arg(3, 4)),
    _op("triu_offset", lambda T, x: x.triu(1), arg(2, 3, 3)),
    _op("tril_negative", lambda T, x: x.tril(-1), arg(4, 3)),
    _op("diagonal", lambda T, x: T.diagonal(x), arg(3, 4)),
    _op("diagonal_offset_dims", lambda T, x: T.diagonal(x, -1, 1, 2), arg(2, 3, 3)),
    _op("diag_vector", lambda T, x: T.diag(x, 1), arg(3)),
    _op("diag_matrix", lambda T, x: T.diag(x, -1), arg(3, 3)),
    _op("diag_embed", lambda T, x: T.diag_embed(x), arg(2, 3)),
    _op("diagflat", lambda T, x: T.diagflat(x, -1), arg(2, 3)),
    _op("trace", lambda T, x: T.trace(x), arg(3, 4)),
    _op("median_all", lambda T, x: T.median(x), arg(3, 4, kind="distinct")),
    _op("median_all_ties", lambda T, x: (x * 0 + f64(T, [1.0, 2.0, 2.0, 0.0])).median(), arg(4)),
    _op("median_dim", lambda T, x: T.median(x, 1).values, arg(2, 5, kind="distinct")),
    _op(
        "median_keepdim", lambda T, x: x.median(0, keepdim=True).values, arg(4, 2, kind="distinct")
    ),
    _op("kron", lambda T, a, b: T.kron(a, b), arg(2, 3), arg(2, 2)),
    _op("tensordot", lambda T, a, b: T.tensordot(a, b, dims=1), arg(2, 3), arg(3, 2)),
    _op(
        "tensordot_pairs",
        lambda T, a, b: T.tensordot(a, b, dims=([0, 1], [1, 0])),
        arg(2, 3),
        arg(3, 2),
    ),
    _op(
        "addmm",
        lambda T, c, a, b: T.addmm(c, a, b, beta=0.5, alpha=2.0),
        arg(2, 2),
        arg(2, 3),
        arg(3, 2),
    ),
    _op("addmv", lambda T, c, a, v: T.addmv(c, a, v), arg(2), arg(2, 3), arg(3)),
    _op("baddbmm", lambda T, c, a, b: T.baddbmm(c, a, b), arg(2, 2, 2), arg(2, 2, 3), arg(2, 3, 2)),
    _op(
        "addbmm",
        lambda T, c, a, b: T.addbmm(c, a, b, beta=0.5, alpha=-2.0),
        arg(2, 2),
        arg(3, 2, 3),
        arg(3, 3, 2),
    ),
    _op("addbmm_method", lambda T, c, a, b: c.addbmm(a, b), arg(2), arg(2, 2, 3), arg(2, 3, 2)),
    _op("addr", lambda T, c, a, b: T.addr(c, a, b, beta=2.0, alpha=0.5), arg(2, 3), arg(2), arg(3)),
    _op("matmul_batched", lambda T, a, b: a @ b, arg(2, 2, 3), arg(3, 2)),
    _op(
        "einsum_attention",
        lambda T, q, k: T.einsum("bqd,bkd->bqk", q, k),
        arg(2, 2, 3),
        arg(2, 4, 3),
    ),
]
