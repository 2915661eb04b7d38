"""Op table entries for PyTorch's top-level extras: ``cdist``, ``diff``, ``gradient``,
``trapezoid``, ``block_diag``, ``cartesian_prod``, ``combinations``, ``cov``, ``corrcoef``,
``vander``, ``chain_matmul``, ``fliplr``/``flipud`` (included in :data:`op_db.OP_DB`)."""

from __future__ import annotations

import warnings

from .op_db import NO_DOUBLE_BACKWARD, _op, arg


def _chain(T, a, b, c):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return T.chain_matmul(a, b, c)


# PyTorch has no forward mode for cdist and pdist: a tangent raises its NotImplementedError, in
# symgrad too. Nor a derivative of _cdist_backward and _pdist_backward: second derivatives raise
_NO_FW = ("no_torch_forward_ad", NO_DOUBLE_BACKWARD)

EXTRAS = [
    _op("cdist", lambda T, a, b: T.cdist(a, b), arg(4, 3), arg(5, 3), tags=_NO_FW),
    _op("cdist_p1", lambda T, a, b: T.cdist(a, b, p=1), arg(3, 2), arg(4, 2), tags=_NO_FW),
    _op(
        "cdist_p3_batched",
        lambda T, a, b: T.cdist(a, b, p=3),
        arg(2, 3, 2),
        arg(1, 4, 2),
        tags=_NO_FW,
    ),
    _op("cdist_p_half", lambda T, a, b: T.cdist(a, b, p=0.5), arg(3, 2), arg(2, 2), tags=_NO_FW),
    _op("pdist", lambda T, x: T.pdist(x), arg(4, 3), tags=_NO_FW),
    _op("pdist_p1", lambda T, x: T.nn.functional.pdist(x, 1.0), arg(3, 2), tags=_NO_FW),
    _op("pdist_p3", lambda T, x: T.pdist(x, 3.0), arg(3, 2), tags=_NO_FW),
    _op(
        "cdist_inf",
        lambda T, a, b: T.cdist(a, b, p=float("inf")),
        arg(3, 2),
        arg(2, 2),
        tags=_NO_FW,
    ),
    _op("diff", lambda T, x: T.diff(x), arg(3, 4)),
    _op(
        "diff_n2_prepend",
        lambda T, x, p: T.diff(x, n=2, dim=0, prepend=p),
        arg(3, 2),
        arg(1, 2),
    ),
    _op("gradient", lambda T, x: T.gradient(x)[0], arg(5)),
    _op("gradient_2d", lambda T, x: T.gradient(x, spacing=[2.0, 0.5]), arg(3, 4)),
    _op("gradient_edge2", lambda T, x: T.gradient(x, dim=1, edge_order=2)[0], arg(2, 4)),
    _op("trapezoid", lambda T, y: T.trapezoid(y), arg(3, 4)),
    _op("trapezoid_dx", lambda T, y: T.trapezoid(y, dx=0.5, dim=0), arg(3, 4)),
    _op("trapezoid_x", lambda T, y, x: T.trapezoid(y, x), arg(3, 4), arg(4)),
    _op("cumulative_trapezoid", lambda T, y: T.cumulative_trapezoid(y), arg(3, 4)),
    _op(
        "cumulative_trapezoid_x",
        lambda T, y, x: T.cumulative_trapezoid(y, x, dim=0),
        arg(3, 2),
        arg(3),
    ),
    _op("block_diag", lambda T, a, b, c: T.block_diag(a, b, c), arg(2, 2), arg(3), arg()),
    _op("cartesian_prod", lambda T, a, b: T.cartesian_prod(a, b), arg(2), arg(3)),
    _op("combinations", lambda T, x: T.combinations(x, 2), arg(4)),
    _op(
        "combinations_replacement",
        lambda T, x: T.combinations(x, 3, with_replacement=True),
        arg(3),
    ),
    _op("cov", lambda T, x: T.cov(x), arg(3, 5)),
    _op("cov_vector_correction0", lambda T, x: T.cov(x, correction=0), arg(4)),
    _op(
        "cov_weights",
        lambda T, x, a: T.cov(x, fweights=T.tensor([1, 2, 1, 3]), aweights=a),
        arg(2, 4),
        arg(4, kind="pos"),
    ),
    _op("corrcoef", lambda T, x: T.corrcoef(x), arg(3, 5)),
    # PyTorch's own vander backward raises (its cumprod reads a tensor it then writes in
    # place); test_product_graphs.py checks symgrad's against torch.linalg.vander's
    _op("vander", lambda T, x: T.vander(x), arg(3), torch=False),
    _op("vander_increasing", lambda T, x: T.vander(x, N=4, increasing=True), arg(3), torch=False),
    _op("chain_matmul", _chain, arg(2, 3), arg(3, 4), arg(4, 2)),
    _op("fliplr", lambda T, x: T.fliplr(x), arg(3, 4)),
    _op("renorm", lambda T, x: T.renorm(x, 2, 0, 1.0), arg(3, 4)),
    _op("renorm_p1_dim1_method", lambda T, x: x.renorm(1, 1, 1.5), arg(3, 4)),
    _op("renorm_p3", lambda T, x: T.renorm(x, 3, -1, 1.2), arg(2, 3, 2)),
    _op("flipud", lambda T, x: T.flipud(x), arg(3, 4)),
]
