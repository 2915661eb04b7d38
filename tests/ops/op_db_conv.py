"""Op table entries for convolution, pooling, padding and attention of ``nn.functional``
(included in :data:`op_db.OP_DB`)."""

from __future__ import annotations

from .op_db import _op, arg, f64


def _f(name, **kwargs):
    return lambda T, *xs: getattr(T.nn.functional, name)(*xs, **kwargs)


CONV = [
    _op("conv1d", _f("conv1d"), arg(2, 2, 5), arg(3, 2, 2)),
    _op(
        "conv1d_bias_stride_pad",
        _f("conv1d", stride=2, padding=1),
        arg(1, 2, 5),
        arg(2, 2, 3),
        arg(2),
    ),
    _op("conv1d_same_unbatched", _f("conv1d", padding="same"), arg(2, 4), arg(2, 2, 2)),
    _op("conv2d", _f("conv2d"), arg(1, 2, 3, 3), arg(2, 2, 2, 2)),
    _op(
        "conv2d_groups_dilation",
        _f("conv2d", groups=2, dilation=2, padding=1),
        arg(1, 2, 4, 4),
        arg(2, 1, 2, 2),
        arg(2),
    ),
    _op(
        "conv2d_stride_uneven",
        _f("conv2d", stride=(2, 1), padding=(1, 0)),
        arg(1, 1, 4, 3),
        arg(1, 1, 2, 2),
    ),
    _op("conv3d", _f("conv3d"), arg(1, 1, 3, 2, 2), arg(1, 1, 2, 1, 2)),
    _op(
        "conv_transpose1d",
        _f("conv_transpose1d", stride=2, padding=1, output_padding=1),
        arg(1, 2, 3),
        arg(2, 2, 3),
        arg(2),
    ),
    _op("conv_transpose2d", _f("conv_transpose2d"), arg(1, 2, 2, 3), arg(2, 1, 2, 2)),
    _op(
        "conv_transpose2d_groups_dilation",
        _f("conv_transpose2d", stride=(2, 1), groups=2, dilation=2, output_padding=(1, 0)),
        arg(1, 2, 2, 2),
        arg(2, 1, 2, 2),
        arg(2),
    ),
    _op(
        "conv_transpose2d_unbatched",
        _f("conv_transpose2d", padding=1),
        arg(1, 3, 3),
        arg(1, 2, 3, 3),
    ),
    _op("interpolate_nearest", _f("interpolate", scale_factor=2), arg(1, 2, 2, 3)),
    _op(
        "interpolate_nearest_exact",
        _f("interpolate", size=5, mode="nearest-exact"),
        arg(2, 1, 3),
    ),
    _op(
        "interpolate_bilinear",
        _f("interpolate", scale_factor=1.5, mode="bilinear"),
        arg(1, 1, 2, 3),
    ),
    _op(
        "interpolate_linear_aligned",
        _f("interpolate", size=4, mode="linear", align_corners=True),
        arg(1, 2, 3),
    ),
    _op(
        "interpolate_bicubic",
        _f("interpolate", scale_factor=(1.5, 0.8), mode="bicubic"),
        arg(1, 2, 3, 4),
    ),
    _op(
        "interpolate_bicubic_aligned",
        _f("interpolate", size=(4, 2), mode="bicubic", align_corners=True),
        arg(1, 1, 2, 3),
    ),
    _op(
        "interpolate_bilinear_antialias",
        _f("interpolate", size=(2, 5), mode="bilinear", antialias=True),
        arg(1, 2, 5, 3),
    ),
    _op(
        "interpolate_bicubic_antialias",
        _f("interpolate", scale_factor=0.6, mode="bicubic", antialias=True, align_corners=True),
        arg(1, 1, 5, 4),
    ),
    _op(
        "interpolate_lanczos_antialias",
        _f("interpolate", size=(2, 3), mode="lanczos", antialias=True),
        arg(1, 1, 4, 5),
    ),
    _op("pixel_shuffle", _f("pixel_shuffle", upscale_factor=2), arg(1, 8, 2, 1)),
    _op("pixel_unshuffle", _f("pixel_unshuffle", downscale_factor=2), arg(2, 2, 4)),
    # the top-level names with ATen's signatures (symgrad.channel_shuffle, symgrad.kl_div)
    _op("channel_shuffle", lambda T, x: T.channel_shuffle(x, 2), arg(1, 4, 3)),
    _op("prelu_toplevel", lambda T, x, w: T.prelu(x, w), arg(2, 3, 2), arg(3)),
    _op("prelu_method", lambda T, x, w: x.prelu(w), arg(4), arg(1)),
    _op(
        "batch_norm_toplevel",
        lambda T, x, w: T.batch_norm(x, w, None, None, None, True, 0.1, 1e-5, False),
        arg(3, 2),
        arg(2),
    ),
    _op("embedding_toplevel", lambda T, w: T.embedding(w, T.tensor([2, 0, 2])), arg(3, 2)),
    _op(
        "cosine_embedding_loss_toplevel",
        lambda T, a, b: T.cosine_embedding_loss(a, b, f64(T, [1.0, -1.0]), 0.1, 1),
        arg(2, 3),
        arg(2, 3),
    ),
    _op(
        "kl_div_toplevel", lambda T, a, b: T.kl_div(a, b, 1, log_target=True), arg(2, 3), arg(2, 3)
    ),
    _op("unfold_im2col", _f("unfold", kernel_size=2, padding=1, stride=2), arg(1, 2, 3, 3)),
    _op(
        "fold_col2im",
        _f("fold", output_size=(3, 4), kernel_size=2, dilation=(1, 2)),
        arg(1, 8, 4),
    ),
    _op("max_pool2d", _f("max_pool2d", kernel_size=2), arg(1, 2, 4, 4)),
    _op(
        "max_pool2d_pad_ceil",
        _f("max_pool2d", kernel_size=3, stride=2, padding=1, ceil_mode=True),
        arg(1, 4, 5),
    ),
    _op("max_pool1d", _f("max_pool1d", kernel_size=2, stride=1), arg(2, 2, 4)),
    _op(
        "avg_pool2d",
        _f("avg_pool2d", kernel_size=2, padding=1, count_include_pad=False),
        arg(1, 2, 3, 3),
    ),
    _op(
        "avg_pool2d_ceil",
        _f("avg_pool2d", kernel_size=3, stride=2, ceil_mode=True),
        arg(1, 1, 4, 5),
    ),
    _op("avg_pool1d", _f("avg_pool1d", kernel_size=3, stride=2, padding=1), arg(1, 2, 5)),
    _op("adaptive_avg_pool2d", _f("adaptive_avg_pool2d", output_size=(2, 3)), arg(1, 2, 3, 5)),
    _op("adaptive_avg_pool2d_1", _f("adaptive_avg_pool2d", output_size=1), arg(2, 3, 3)),
    _op("adaptive_max_pool2d", _f("adaptive_max_pool2d", output_size=2), arg(1, 3, 5)),
    _op("pad_constant", _f("pad", pad=(1, 2, 0, -1), value=0.5), arg(2, 3, 3)),
    _op("pad_reflect", _f("pad", pad=(2, 1), mode="reflect"), arg(2, 4)),
    _op("pad_replicate", _f("pad", pad=(1, 1, 2, 0), mode="replicate"), arg(1, 2, 3)),
    _op("pad_circular", _f("pad", pad=(1, 2), mode="circular"), arg(1, 2, 3)),
    _op("adaptive_avg_pool3d", _f("adaptive_avg_pool3d", output_size=(2, 1, 3)), arg(1, 2, 3, 4)),
    _op("adaptive_max_pool3d", _f("adaptive_max_pool3d", output_size=2), arg(1, 3, 3, 3)),
    _op(
        "max_pool3d_with_indices",
        lambda T, x: T.nn.functional.max_pool3d_with_indices(x, 2, 1)[0],
        arg(1, 2, 3, 3),
    ),
    _op("lp_pool2d", _f("lp_pool2d", norm_type=2, kernel_size=2, stride=1), arg(1, 3, 3)),
    _op(
        "max_unpool2d",
        lambda T, x: T.nn.functional.max_unpool2d(
            *T.nn.functional.max_pool2d(x, 2, return_indices=True), 2
        ),
        arg(1, 4, 4),
    ),
    _op(
        "fractional_max_pool2d",
        lambda T, x: T.nn.functional.fractional_max_pool2d(
            x, 2, output_size=2, _random_samples=T.full((1, x.shape[-3], 2), 0.4, dtype=x.dtype)
        ),
        arg(2, 4, 4),
    ),
    _op("constant_pad_nd", lambda T, x: T.constant_pad_nd(x, (1, -1, 2, 0), 1.5), arg(2, 3)),
    _op("pad_reflect_3d", _f("pad", pad=(1, 1, 0, 1, 1, 0), mode="reflect"), arg(1, 2, 2, 3)),
    _op("pad_circular_3d", _f("pad", pad=(1, 0, 1, 1, 0, 1), mode="circular"), arg(1, 2, 2, 2)),
    _op("sdpa", _f("scaled_dot_product_attention"), arg(1, 3, 2), arg(1, 4, 2), arg(1, 4, 2)),
    _op(
        "sdpa_causal",
        _f("scaled_dot_product_attention", is_causal=True),
        arg(3, 2),
        arg(3, 2),
        arg(3, 3),
    ),
]
