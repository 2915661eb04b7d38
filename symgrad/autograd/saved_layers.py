"""The values PyTorch's layer nodes save (normalizations, pooling, resampling), read from what
symgrad's nodes keep: their parameters, the shapes of their inputs and, for the statistics of
a normalization, its saved input (computed only when the attribute is read).

:data:`SAVED` and :data:`VALUES` here are merged into those of
:mod:`symgrad.autograd.saved_table`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.autograd.saved import FREED
from symgrad.tensor import Tensor

__all__ = ["SAVED", "VALUES"]

SAVED = {
    "NativeLayerNormBackward0": "bias input normalized_shape result1 result2 weight",
    "NativeBatchNormBackward0": (
        "eps input result1 result2 running_mean running_var training weight"
    ),
    "NativeGroupNormBackward0": "C HxW N eps group input result1 result2 weight",
    "RollBackward0": "dims shifts",
    "AdaptiveMaxPool2DBackward0": "result1 self",
    "AdaptiveMaxPool3DBackward0": "result1 self",
    "PixelShuffleBackward0": "upscale_factor",
    "PixelUnshuffleBackward0": "downscale_factor",
    "ChannelShuffleBackward0": "groups",
    "MaxUnpool2DBackward0": "indices",
    "MaxUnpool3DBackward0": "indices",
    "AffineGridGeneratorBackward0": "align_corners size",
}
_SCALES = {1: "scales", 2: "scales_h scales_w", 3: "scales_d scales_h scales_w"}
for _d, _scales in _SCALES.items():
    for _name in (f"UpsampleNearest{_d}DBackward0", f"UpsampleNearestExact{_d}DBackward0"):
        SAVED[_name] = f"output_size {_scales} self_sym_sizes"
for _name, _d in (
    ("UpsampleLinear1DBackward0", 1),
    ("UpsampleBilinear2DBackward0", 2),
    ("UpsampleTrilinear3DBackward0", 3),
    ("UpsampleBicubic2DBackward0", 2),
    ("UpsampleBilinear2DAaBackward0", 2),
    ("UpsampleBicubic2DAaBackward0", 2),
):
    SAVED[_name] = f"align_corners output_size {_SCALES[_d]} self_sym_sizes"
for _d in (1, 2, 3):
    SAVED[f"ReflectionPad{_d}DBackward0"] = "padding self"
    SAVED[f"ReplicationPad{_d}DBackward0"] = "padding self"
    SAVED[f"MaxPool{_d}DWithIndicesBackward0"] = (
        "ceil_mode dilation kernel_size padding result1 self stride"
    )
    SAVED[f"FractionalMaxPool{_d}DBackward0"] = "kernel_size output_size result1 self"
    SAVED[f"GridSampler{_d}DBackward0"] = "align_corners grid input interpolation_mode padding_mode"
    SAVED[f"AvgPool{_d}DBackward0"] = (
        "ceil_mode count_include_pad divisor_override kernel_size padding self stride"
    )


# -- normalizations ---------------------------------------------------------------------------
def _statistics(node: Any) -> tuple:
    """(mean, 1 / std) of the saved input over the normalized axes, as arrays in the dtype
    PyTorch saves them in (float32 for float16 data with float32 parameters)."""
    if node._saved is None:
        raise RuntimeError(FREED)
    x, p = node._saved[0]._data, node.params
    dtype = x.dtype if p["half_stats"] else np.dtype(np.float32)
    xr = np.asarray(x, dtype=np.float64)
    if p["group"] is not None:
        xr = xr.reshape(p["group"])
    mean = xr.mean(axis=p["axes"], keepdims=True)
    rstd = 1 / np.sqrt(((xr - mean) ** 2).mean(axis=p["axes"], keepdims=True) + p["eps"])
    return mean.astype(dtype), rstd.astype(dtype)


def _statistic(k: int) -> Any:
    def read(node: Any) -> Tensor:
        p = node.params
        if p["stats"] is not None:  # a batch norm in evaluation saves none
            return Tensor._make(np.zeros((0,), dtype=np.float32))
        value = _statistics(node)[k]
        if p["group"] is not None:
            value = value.reshape(p["group"][:2])
        elif type(node).__name__ == "NativeBatchNormBackward0":
            value = value.reshape(-1)
        return Tensor._make(value)

    return read


def _group_size(part: str) -> Any:
    def read(node: Any) -> int:
        shape = node._meta[0][0]
        if part == "N":
            return int(shape[0])
        if part == "C":
            return int(shape[1])
        if part == "HxW":
            return math.prod(int(n) for n in shape[2:])
        return int(node.params["group"][1])

    return read


_STATISTICS = {"result1": _statistic(0), "result2": _statistic(1)}


# -- pooling ----------------------------------------------------------------------------------
def _max_positions(node: Any) -> Tensor:
    """The flat position of each window's maximum in its input plane (``return_indices``)."""
    if node._saved is None:
        raise RuntimeError(FREED)
    d = int(type(node).__name__.split("D", 1)[0][-1])  # (MaxPool2D..., AdaptiveMaxPool3D...)
    spatial = tuple(int(n) for n in node._meta[0][0][-d:])
    picked = np.broadcast_arrays(*node.params["key"])[-d:]
    return Tensor._make(np.ravel_multi_index(picked, spatial).astype(np.int64))


def _unpooled_positions(node: Any) -> Tensor:
    """The flat positions max unpooling wrote its input to (the ``indices`` it was given)."""
    if node._saved is None:
        raise RuntimeError(FREED)
    d = int(type(node).__name__.split("D", 1)[0][-1])  # (MaxUnpool2D..., MaxUnpool3D...)
    spatial = tuple(int(n) for n in node.params["shape"][-d:])
    shape = tuple(int(n) for n in node._meta[0][0])
    picked = [np.broadcast_to(p, shape) for p in node.params["key"][-d:]]
    return Tensor._make(np.ravel_multi_index(picked, spatial).astype(np.int64))


VALUES: dict[str, dict[str, Any]] = {
    "NativeLayerNormBackward0": {
        "normalized_shape": lambda n: tuple(int(d) for d in n.params["view"]),
        **_STATISTICS,
    },
    "NativeBatchNormBackward0": {
        "training": lambda n: n.params["stats"] is None,
        **_STATISTICS,
    },
    "NativeGroupNormBackward0": {
        **{part: _group_size(part) for part in ("N", "C", "HxW", "group")},
        **_STATISTICS,
    },
    "AdaptiveMaxPool2DBackward0": {"result1": _max_positions},
    "AdaptiveMaxPool3DBackward0": {"result1": _max_positions},
    "PixelShuffleBackward0": {"upscale_factor": lambda n: n.params["r"]},
    "PixelUnshuffleBackward0": {"downscale_factor": lambda n: n.params["r"]},
    "MaxUnpool2DBackward0": {"indices": _unpooled_positions},
    "MaxUnpool3DBackward0": {"indices": _unpooled_positions},
}
for _d in (1, 2, 3):
    VALUES[f"MaxPool{_d}DWithIndicesBackward0"] = {"result1": _max_positions}
    VALUES[f"FractionalMaxPool{_d}DBackward0"] = {"result1": _max_positions}
