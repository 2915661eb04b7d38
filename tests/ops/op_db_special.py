"""Op table entries for the element-wise ops of :mod:`symgrad.ops.math_special` (included in
:data:`op_db.OP_DB`), each as a function, a method and an in-place method."""

from __future__ import annotations

from .op_db import _op, arg, f64

# op -> the op table's input kind
UNARY = {
    "asin": "open_unit",
    "acos": "open_unit",
    "atan": "any",
    "sinh": "any",
    "cosh": "any",
    "asinh": "any",
    "acosh": "above_one",
    "atanh": "open_unit",
    "exp2": "any",
    "erfc": "any",
    "erfinv": "open_unit",
    "lgamma": "pos",
    "digamma": "pos",
    "sinc": "away",
    "deg2rad": "any",
    "rad2deg": "any",
    "logit": "prob",
}


def _tags(name: str) -> tuple:
    # PyTorch's trigamma (digamma's derivative) is a short series, good to ~5e-10 relative
    return ("torch_series",) if name == "digamma" else ()


SPECIAL = (
    [
        _op(n, lambda T, x, n=n: getattr(T, n)(x), arg(2, 3, kind=k), tags=_tags(n))
        for n, k in UNARY.items()
    ]
    + [
        # PyTorch has no derivative for the in-place inverse hyperbolic functions (see
        # test_elementwise_more)
        _op(
            f"{n}_inplace",
            lambda T, x, n=n: getattr(x * 1.0, f"{n}_")(),
            arg(3, kind=k),
            tags=_tags(n),
        )
        for n, k in UNARY.items()
        if n not in ("asinh", "acosh", "atanh")
    ]
    + [
        _op("sigmoid_inplace", lambda T, x: (x * 1.0).sigmoid_(), arg(2, 3)),
        _op("tanh_inplace", lambda T, x: (x * 1.0).tanh_(), arg(2, 3)),
        _op("relu_inplace", lambda T, x: (x * 1.0).relu_(), arg(2, 3, kind="away")),
        _op("atan2", lambda T, x, y: T.atan2(x, y), arg(2, 3, kind="away"), arg(3, kind="away")),
        _op(
            "arctan2_method", lambda T, x, y: x.arctan2(y), arg(3, kind="away"), arg(3, kind="away")
        ),
        _op("hypot", lambda T, x, y: T.hypot(x, y), arg(2, 3, kind="away"), arg(2, 1, kind="away")),
        _op(
            "fmax",
            lambda T, x, y: T.fmax(x, y),
            arg(2, 3, kind="distinct"),
            arg(3, kind="distinct"),
        ),
        _op(
            "fmin",
            lambda T, x, y: x.fmin(y),
            arg(2, 3, kind="distinct"),
            arg(2, 1, kind="distinct"),
        ),
        _op("logit_eps", lambda T, x: T.logit(x, eps=0.01), arg(2, 3, kind="prob")),
        _op(
            "special_xlog1py",
            lambda T, x, y: T.special.xlog1py(x, y),
            arg(2, 3),
            arg(3, kind="pos"),
        ),
        _op("special_entr", lambda T, x: T.special.entr(x), arg(2, 3, kind="pos")),
        _op("special_log_ndtr", lambda T, x: T.special.log_ndtr(x * 4), arg(2, 3)),
        _op("special_ndtri", lambda T, x: T.special.ndtri(x), arg(2, 3, kind="prob")),
        _op("logaddexp", lambda T, x, y: T.logaddexp(x, y), arg(2, 3), arg(3)),
        _op("logaddexp2", lambda T, x, y: T.logaddexp2(x, y), arg(2, 3), arg(3)),
        _op("logaddexp2_method", lambda T, x, y: x.logaddexp2(y), arg(3, 1), arg(1, 2)),
        # PyTorch's gradient of sgn is a ZeroTensor, made dense by the product's other path
        _op("sgn", lambda T, x: T.sgn(x) * x, arg(2, 3, kind="away")),
        _op("sgn_inplace", lambda T, x: (x * 1.0).sgn_() * x, arg(3, kind="away")),
        _op("angle", lambda T, x: T.angle(x), arg(2, 3, kind="away")),
        _op("angle_method", lambda T, x: x.angle(), arg(3, kind="away")),
        _op("xlogy", lambda T, x, y: T.xlogy(x, y), arg(2, 3), arg(3, kind="pos")),
        _op("xlogy_number_other", lambda T, x: T.xlogy(x, 2.5), arg(2, 3)),
        _op("xlogy_number_self", lambda T, y: T.xlogy(-1.5, y), arg(2, 3, kind="pos")),
        _op(
            "copysign",
            lambda T, x, y: T.copysign(x, y),
            arg(2, 3, kind="away"),
            arg(3, kind="away"),
        ),
        _op("copysign_number", lambda T, x: T.copysign(x, -1.0), arg(2, 3, kind="away")),
        _op("lerp", lambda T, x, y: T.lerp(x, y, 0.3), arg(2, 3), arg(3)),
        _op("lerp_high_weight", lambda T, x, y: x.lerp(y, 0.8), arg(2, 3), arg(2, 3)),
        _op("lerp_tensor", lambda T, x, y, w: T.lerp(x, y, w), arg(2, 3), arg(3), arg(2, 1)),
        _op(
            "nan_to_num",
            lambda T, x: T.nan_to_num(x + f64(T, [[0.0, float("inf"), float("nan")]]), posinf=9.0),
            arg(2, 3),
        ),
        _op("log2_inplace", lambda T, x: (x * 1.0).log2_(), arg(3, kind="pos")),
        _op("ldexp", lambda T, x, y: T.ldexp(x, y), arg(2, 3), arg(3)),
        _op("ldexp_inplace", lambda T, x, y: (x * 1.0).ldexp_(y), arg(2, 3), arg(2, 1)),
        _op("nextafter", lambda T, x, y: T.nextafter(x, y), arg(2, 3), arg(3)),
    ]
)
