"""Op table entries for the activations, normalizations, losses and layers of
``nn.functional`` (included in :data:`op_db.OP_DB`)."""

from __future__ import annotations

from .op_db import NO_DOUBLE_BACKWARD, _loss, _op, arg, f64


def _fn(name, **kwargs):
    return lambda T, x: getattr(T.nn.functional, name)(x, **kwargs)


def _spread(name, scale=2.6, shift=0.05, **kwargs):
    """The input spread over (-5, 5) and shifted so that the kinks at +-3 are crossed."""
    return lambda T, x: getattr(T.nn.functional, name)(x * scale + shift, **kwargs)


ACTIVATIONS = [
    _op("selu", _fn("selu"), arg(2, 3, kind="away")),
    _op("celu", _fn("celu"), arg(2, 3, kind="away")),
    _op("celu_alpha", _fn("celu", alpha=0.5), arg(2, 3, kind="away")),
    _op(
        "selu_inplace",
        lambda T, x: T.nn.functional.selu(x * 1.0, inplace=True),
        arg(2, 3, kind="away"),
    ),
    _op("celu_inplace", lambda T, x: T.nn.functional.celu_(x * 1.0, 0.5), arg(2, 3, kind="away")),
    _op(
        "hardtanh_inplace", lambda T, x: T.nn.functional.hardtanh_(x * 1.0), arg(2, 3, kind="clamp")
    ),
    _op("elu_inplace", lambda T, x: T.nn.functional.elu_(x * 1.0, 0.5), arg(2, 3, kind="away")),
    _op(
        "elu_scaled_inplace",
        lambda T, x: T.nn.functional.elu_(x * 1.0, 0.5, 2.0, 1.5),
        arg(2, 3, kind="away"),
    ),
    _op(
        "leaky_relu_inplace",
        lambda T, x: T.nn.functional.leaky_relu(x * 1.0, 0.2, inplace=True),
        arg(2, 3, kind="away"),
    ),
    _op("mish", _fn("mish"), arg(2, 3)),
    _op("hardtanh", _fn("hardtanh"), arg(2, 4, kind="clamp")),
    _op("hardtanh_bounds", _fn("hardtanh", min_val=-0.5, max_val=0.7), arg(2, 4, kind="clamp")),
    _op("relu6", _spread("relu6", 2.0, 3.9), arg(2, 3, kind="away")),
    _op("hardswish", _spread("hardswish"), arg(2, 4)),
    # PyTorch's slope is float32's 1/6 even in float64 (test_activations covers the difference)
    _op(
        "hardsigmoid",
        _spread("hardsigmoid"),
        arg(2, 4),
        torch=False,
        tags=(NO_DOUBLE_BACKWARD,),
    ),
    _op("logsigmoid", _fn("logsigmoid"), arg(2, 3)),
    _op("softsign", _fn("softsign"), arg(2, 3, kind="away")),
    _op("tanhshrink", _fn("tanhshrink"), arg(2, 3)),
    _op("softshrink", _fn("softshrink"), arg(2, 4, kind="clamp")),
    _op("softshrink_lambd", _fn("softshrink", lambd=1.0), arg(2, 4, kind="clamp")),
    _op("hardshrink", _fn("hardshrink"), arg(2, 4, kind="clamp")),
    _op("glu", _fn("glu"), arg(2, 4)),
    _op("glu_dim0", _fn("glu", dim=0), arg(4, 3)),
    _op("softmin", _fn("softmin", dim=1), arg(2, 3)),
    _op("threshold", _fn("threshold", threshold=0.5, value=-2.0), arg(2, 4, kind="clamp")),
    _op(
        "threshold_inplace",
        lambda T, x: T.nn.functional.threshold_(x * 1.0, -0.5, 3.0),
        arg(2, 4, kind="clamp"),
    ),
    _op("rrelu_eval", _fn("rrelu", lower=0.1, upper=0.3), arg(2, 3, kind="away")),
    _op(
        "rrelu_eval_inplace",
        lambda T, x: T.nn.functional.rrelu_(x * 1.0),
        arg(2, 3, kind="away"),
        tags=("no_torch_forward_ad",),
    ),
    # training with lower == upper: every slope drawn is that number, in PyTorch too
    _op("rrelu_train", _fn("rrelu", lower=0.25, upper=0.25, training=True), arg(2, 3, kind="away")),
    _op(
        "rrelu_train_inplace",
        lambda T, x: T.nn.functional.rrelu(x * 1.0, 0.25, 0.25, True, True),
        arg(2, 3, kind="away"),
        tags=("no_torch_forward_ad",),
    ),
]

_NORMS = [
    _op("layer_norm", lambda T, x: T.nn.functional.layer_norm(x, (4,)), arg(3, 4)),
    _op(
        "layer_norm_affine",
        lambda T, x, w, b: T.nn.functional.layer_norm(x, (3, 4), w, b, eps=1e-3),
        arg(2, 3, 4),
        arg(3, 4),
        arg(3, 4),
    ),
    _op(
        "layer_norm_weight",
        lambda T, x, w: T.nn.functional.layer_norm(x, [4], weight=w),
        arg(3, 4),
        arg(4),
    ),
    _op(
        "group_norm",
        lambda T, x, w, b: T.nn.functional.group_norm(x, 2, w, b),
        arg(2, 4, 3),
        arg(4),
        arg(4),
    ),
    _op("group_norm_plain", lambda T, x: T.nn.functional.group_norm(x, 3), arg(2, 3, 2)),
    _op(
        "batch_norm_train",
        lambda T, x, w, b: T.nn.functional.batch_norm(x, None, None, w, b, training=True),
        arg(4, 3),
        arg(3),
        arg(3),
    ),
    _op(
        "batch_norm_train_2d",
        lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True),
        arg(2, 3, 2, 2),
    ),
    _op(
        "batch_norm_eval",
        lambda T, x, w, b: T.nn.functional.batch_norm(
            x, f64(T, [0.1, -0.2, 0.3]), f64(T, [0.5, 1.5, 2.0]), w, b
        ),
        arg(4, 3, 2),
        arg(3),
        arg(3),
    ),
    _op("normalize", lambda T, x: T.nn.functional.normalize(x), arg(3, 4)),
    _op(
        "normalize_p1_dim0",
        lambda T, x: T.nn.functional.normalize(x, 1.0, 0),
        arg(3, 4, kind="away"),
    ),
    _op(
        "cosine_similarity",
        lambda T, x, y: T.nn.functional.cosine_similarity(x, y),
        arg(3, 4),
        arg(3, 4),
    ),
    _op(
        "cosine_similarity_broadcast",
        lambda T, x, y: T.nn.functional.cosine_similarity(x, y, dim=-1),
        arg(2, 3, 4),
        arg(4),
    ),
    _op(
        "pairwise_distance",
        lambda T, x, y: T.nn.functional.pairwise_distance(x, y),
        arg(3, 4),
        arg(3, 4),
    ),
    _op(
        "pairwise_distance_p1_keepdim",
        lambda T, x, y: T.nn.functional.pairwise_distance(x, y, p=1.0, keepdim=True),
        arg(3, 4, kind="distinct"),
        arg(3, 4, kind="distinct"),
    ),
]


def _probs(T):
    return f64(T, [[0.2, 0.3, 0.5], [0.0, 0.6, 0.4]])


def _signs(T):
    return f64(T, [[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]])


_LOSSES = (
    _loss(
        "soft_margin_loss",
        lambda T, F, r, x: F.soft_margin_loss(x, _signs(T), reduction=r),
        arg(2, 3),
    )
    + _loss(
        "multilabel_soft_margin_loss",
        lambda T, F, r, x: F.multilabel_soft_margin_loss(x, (_signs(T) + 1) / 2, reduction=r),
        arg(2, 3),
    )
    + _loss("kl_div", lambda T, F, r, x: F.kl_div(x, _probs(T), reduction=r), arg(2, 3))
    + _loss(
        "kl_div_log_target",
        lambda T, F, r, x, t: F.kl_div(x, t, reduction=r, log_target=True),
        arg(2, 3),
        arg(2, 3),
    )
    + [
        _op(
            "kl_div_batchmean",
            lambda T, x: T.nn.functional.kl_div(x, _probs(T), reduction="batchmean"),
            arg(2, 3),
        ),
        _op(
            "kl_div_target_grad",
            lambda T, x, t: T.nn.functional.kl_div(x, t, reduction="sum"),
            arg(2, 3),
            arg(2, 3, kind="pos"),
        ),
    ]
    + _loss(
        "smooth_l1_loss",
        lambda T, F, r, x, y: F.smooth_l1_loss(x, y, reduction=r),
        arg(2, 3, kind="distinct"),
        arg(2, 3, kind="distinct"),
    )
    + [
        _op(
            "smooth_l1_loss_beta",
            lambda T, x, y: T.nn.functional.smooth_l1_loss(x, y, beta=0.5),
            arg(2, 3, kind="distinct"),
            arg(2, 3, kind="distinct"),
        ),
        _op(
            "smooth_l1_loss_beta0",
            lambda T, x, y: T.nn.functional.smooth_l1_loss(x, y, beta=0.0),
            arg(2, 3, kind="distinct"),
            arg(2, 3, kind="distinct"),
        ),
    ]
    + _loss(
        "huber_loss",
        lambda T, F, r, x, y: F.huber_loss(x, y, reduction=r, delta=0.5),
        arg(2, 3, kind="distinct"),
        arg(2, 3, kind="distinct"),
    )
    + _loss(
        "poisson_nll_loss",
        lambda T, F, r, x: F.poisson_nll_loss(x, _probs(T) * 3, reduction=r),
        arg(2, 3),
    )
    + [
        _op(
            "poisson_nll_loss_full",
            lambda T, x: T.nn.functional.poisson_nll_loss(
                x, f64(T, [[0.0, 1.0, 2.5], [4.0, 0.5, 3.0]]), full=True
            ),
            arg(2, 3),
        ),
        _op(
            "poisson_nll_loss_not_log",
            lambda T, x: T.nn.functional.poisson_nll_loss(x, _probs(T), log_input=False),
            arg(2, 3, kind="pos"),
        ),
    ]
    + _loss(
        "gaussian_nll_loss",
        lambda T, F, r, x, t, v: F.gaussian_nll_loss(x, t, v, reduction=r),
        arg(2, 3),
        arg(2, 3),
        arg(2, 3, kind="pos"),
    )
    + [
        _op(
            "gaussian_nll_loss_full_homoscedastic",
            lambda T, x, t, v: T.nn.functional.gaussian_nll_loss(x, t, v, full=True),
            arg(2, 3),
            arg(2, 3),
            arg(2, kind="pos"),
        ),
    ]
    + _loss(
        "margin_ranking_loss",
        lambda T, F, r, x, y: F.margin_ranking_loss(
            x, y, f64(T, [1.0, -1.0, 1.0, -1.0]), margin=0.1, reduction=r
        ),
        arg(4, kind="distinct"),
        arg(4, kind="distinct"),
    )
    + _loss(
        "hinge_embedding_loss",
        lambda T, F, r, x: F.hinge_embedding_loss(
            x, f64(T, [[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0]]), margin=0.5, reduction=r
        ),
        arg(2, 3, kind="clamp"),
    )
    + _loss(
        "triplet_margin_loss",
        lambda T, F, r, a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, reduction=r),
        arg(3, 4),
        arg(3, 4),
        arg(3, 4),
    )
    + [
        _op(
            "triplet_margin_loss_swap_p1",
            lambda T, a, p, n: T.nn.functional.triplet_margin_loss(
                a, p, n, margin=3.0, p=1.0, swap=True
            ),
            arg(3, 4, kind="distinct"),
            arg(3, 4, kind="distinct"),
            arg(3, 4, kind="distinct"),
        ),
    ]
)

_LAYERS = [
    _op(
        "embedding",
        lambda T, w: T.nn.functional.embedding(T.tensor([[0, 2], [2, 3]]), w),
        arg(4, 3),
    ),
    _op(
        "bilinear",
        lambda T, x, y, w, b: T.nn.functional.bilinear(x, y, w, b),
        arg(4, 3),
        arg(4, 2),
        arg(5, 3, 2),
        arg(5),
    ),
    _op(
        "bilinear_batched_no_bias",
        lambda T, x, y, w: T.nn.functional.bilinear(x, y, w),
        arg(2, 2, 3),
        arg(2, 2, 2),
        arg(4, 3, 2),
    ),
    _op(
        "bilinear_1d",
        lambda T, x, y, w, b: T.nn.functional.bilinear(x, y, w, b),
        arg(3),
        arg(2),
        arg(4, 3, 2),
        arg(4),
    ),
]

FUNCTIONAL = ACTIVATIONS + _NORMS + _LOSSES + _LAYERS
