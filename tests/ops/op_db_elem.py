"""Op table entries for the edges of the element-wise special ops and the module-level in-place
functions (included in :data:`op_db.OP_DB`)."""

from __future__ import annotations

from .op_db import _op, arg, f64

ELEM = [
    # digamma left of 0 (by reflection); lgamma there is log|Gamma|, complex in SymPy
    _op(
        "digamma_negative",
        lambda T, x: T.digamma(x - 2.5),
        arg(2, 3, kind="prob"),
        tags=("torch_series",),
    ),
    # module-level in-place functions: the method's node and values
    _op("relu_function_inplace", lambda T, x: T.relu_(x * 1.0), arg(2, 3, kind="away")),
    _op("sigmoid_function_inplace", lambda T, x: T.sigmoid_(x * 1.0), arg(2, 3)),
    _op("exp_function_inplace", lambda T, x: T.exp_(x * 1.0), arg(2, 3)),
    _op("tanh_function_inplace", lambda T, x: T.tanh_(x * 1.0), arg(2, 3)),
    _op("sqrt_function_inplace", lambda T, x: T.sqrt_(x * 1.0), arg(2, 3, kind="pos")),
    _op(
        "clamp_function_inplace", lambda T, x: T.clamp_(x * 1.0, -0.5, 0.5), arg(2, 3, kind="clamp")
    ),
    _op("clamp_min_inplace", lambda T, x: (x * 1.0).clamp_min_(-0.5), arg(2, 3, kind="clamp")),
    _op(
        "clamp_max_function_inplace",
        lambda T, x: T.clamp_max_(x * 1.0, 0.5),
        arg(2, 3, kind="clamp"),
    ),
    _op("clip_inplace", lambda T, x: (x * 1.0).clip_(-0.5, 0.5), arg(2, 3, kind="clamp")),
    _op("negative_inplace", lambda T, x: (x * 1.0).negative_(), arg(2, 3)),
    _op(
        "xlogy_function_inplace",
        lambda T, x, y: T.xlogy_(x * 1.0, y),
        arg(2, 3),
        arg(3, kind="pos"),
    ),
    _op("nan_to_num_function_inplace", lambda T, x: T.nan_to_num_(x * 1.0), arg(2, 3)),
    _op(
        "index_put_inplace",
        lambda T, x, v: (x * 1.0).index_put_((T.tensor([0, 2]),), v),
        arg(3),
        arg(2),
    ),
    _op(
        "index_put_function_inplace",
        lambda T, x: T.index_put_(x * 1.0, (T.tensor([1]),), f64(T, [2.0])),
        arg(3),
    ),
    # one node for x + value * a * b and x + value * a / b
    _op("addcmul", lambda T, x, a, b: T.addcmul(x, a, b, value=0.5), arg(2, 3), arg(3), arg(2, 1)),
    _op(
        "addcmul_inplace", lambda T, x, a, b: (x * 1.0).addcmul_(a, b), arg(2, 3), arg(2, 3), arg(3)
    ),
    _op(
        "addcdiv",
        lambda T, x, a, b: T.addcdiv(x, a, b, value=-2),
        arg(2, 3),
        arg(2, 3),
        arg(3, kind="pos"),
    ),
    _op(
        "addcdiv_method",
        lambda T, x, a, b: x.addcdiv(a, b),
        arg(3),
        arg(2, 3),
        arg(2, 1, kind="pos"),
    ),
]
