"""Op table entries for instance normalization, embedding bags, grid sampling and CTC
(included in :data:`op_db.OP_DB`)."""

from __future__ import annotations

from .op_db import NO_DOUBLE_BACKWARD, NO_GRADGRADCHECK, _op, arg, f64

NORMS = [
    _op(
        "instance_norm",
        lambda T, x, w, b: T.nn.functional.instance_norm(x, weight=w, bias=b),
        arg(2, 3, 4),
        arg(3),
        arg(3),
    ),
    _op(
        "instance_norm_running",
        lambda T, x: T.nn.functional.instance_norm(
            x, f64(T, [0.5, -0.5]), f64(T, [1.5, 2.0]), momentum=0.3
        ),
        arg(2, 2, 3, 2),
    ),
    _op(
        "embedding_bag_mean",
        lambda T, w: T.nn.functional.embedding_bag(
            T.tensor([1, 2, 4, 4, 0, 1]), w, T.tensor([0, 2, 2, 5]), padding_idx=4
        ),
        arg(5, 3),
        tags=("no_torch_forward_ad", NO_GRADGRADCHECK),
    ),
    _op(
        "embedding_bag_sum_weighted",
        lambda T, w, p: T.nn.functional.embedding_bag(
            T.tensor([[1, 2, 4], [4, 0, 1]]), w, mode="sum", per_sample_weights=p
        ),
        arg(5, 3),
        arg(2, 3),
        tags=("no_torch_forward_ad", NO_DOUBLE_BACKWARD),
    ),
    _op(
        "embedding_bag_max",
        lambda T, w: T.nn.functional.embedding_bag(
            T.tensor([1, 2, 4, 3, 0, 1]), w, T.tensor([0, 2, 3]), mode="max"
        ),
        arg(5, 3, kind="distinct"),
        tags=("no_torch_forward_ad", NO_GRADGRADCHECK),
    ),
]

# grid points kept off the input's pixel lines, where the bilinear weights have kinks
_GRID = [[[[0.31, -0.42], [1.37, 0.66]], [[-1.21, -0.93], [0.07, 1.52]]]]

NORMS += [
    _op(
        "affine_grid",
        lambda T, t: T.nn.functional.affine_grid(t, (2, 1, 3, 4), align_corners=False),
        arg(2, 2, 3),
    ),
    _op(
        "affine_grid_3d",
        lambda T, t: T.nn.functional.affine_grid(t, (1, 1, 2, 3, 2), align_corners=True),
        arg(1, 3, 4),
    ),
    _op(
        "grid_sample",
        lambda T, x, g: T.nn.functional.grid_sample(
            x, g * 0.01 + f64(T, _GRID), align_corners=False
        ),
        arg(1, 2, 3, 4),
        arg(1, 2, 2, 2),
        tags=("no_torch_forward_ad",),
    ),
    _op(
        "grid_sample_border_aligned",
        lambda T, x, g: T.nn.functional.grid_sample(
            x, g * 0.01 + f64(T, _GRID), padding_mode="border", align_corners=True
        ),
        arg(1, 2, 3, 4),
        arg(1, 2, 2, 2),
        tags=("no_torch_forward_ad",),
    ),
    _op(
        "grid_sample_reflection",
        lambda T, x, g: T.nn.functional.grid_sample(
            x, g * 0.01 + f64(T, _GRID), padding_mode="reflection", align_corners=False
        ),
        arg(1, 2, 3, 4),
        arg(1, 2, 2, 2),
        tags=("no_torch_forward_ad",),
    ),
    _op(
        "grid_sample_bicubic",
        lambda T, x, g: T.nn.functional.grid_sample(
            x, g * 0.01 + f64(T, _GRID), mode="bicubic", align_corners=False
        ),
        arg(1, 2, 3, 4),
        arg(1, 2, 2, 2),
        tags=("no_torch_forward_ad",),
    ),
    _op(
        "grid_sample_bicubic_reflection_aligned",
        lambda T, x, g: T.nn.functional.grid_sample(
            x, g * 0.01 + f64(T, _GRID), "bicubic", "reflection", align_corners=True
        ),
        arg(1, 1, 3, 4),
        arg(1, 2, 2, 2),
        tags=("no_torch_forward_ad",),
    ),
    _op(
        "grid_sample_nearest",
        lambda T, x: T.nn.functional.grid_sample(
            x, f64(T, _GRID), mode="nearest", align_corners=False
        ),
        arg(1, 2, 3, 4),
        tags=("no_torch_forward_ad",),
    ),
]

NORMS += [
    # through log_softmax: PyTorch's gradient for log_probs adds exp(log_probs), which only
    # agrees with finite differences once it passes back through the normalization
    _op(
        "ctc_loss",
        lambda T, x: T.nn.functional.ctc_loss(
            x.log_softmax(2), T.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2], reduction="none"
        ),
        arg(5, 2, 4),
        tags=("no_torch_forward_ad",),
    ),
]
