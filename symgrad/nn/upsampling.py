"""``interpolate`` of :mod:`symgrad.nn.functional` (and ``Upsample``'s arithmetic): resizing
by nearest neighbours, (bi/tri)linear or bicubic interpolation, or anti-aliased filters.

All are separable: along each spatial dimension every output is a weighted sum of a few
inputs (the filters' matrices are built in :mod:`symgrad.nn.upsampling_filters`), so the
resize is one constant ``(out, in)`` matrix per dimension, recorded as one node with
PyTorch's name (``UpsampleNearest2DBackward0``, ``UpsampleBicubic2DBackward0``, ...) by
:func:`symgrad.ops.pooling.pool_matrices`; its VJP multiplies by the transposes, so closed
forms, forward mode and every order of derivative come with it. The source positions and
weights follow PyTorch's CPU kernels, in their precision (``float`` for the nearest modes;
the input's own for the others, but float32 for a float16 bilinear one, rounded once), so
the values match PyTorch's to rounding.
"""

from __future__ import annotations

import math
import numbers
import operator
import warnings
from typing import Any

import numpy as np

from symgrad.nn import adaptive_pooling as _adaptive_pooling
from symgrad.nn.upsampling_filters import antialias_matrix, cubic_matrix
from symgrad.ops.pooling import pool_matrices
from symgrad.tensor import Tensor

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_LINEAR = {1: "linear", 2: "bilinear", 3: "trilinear"}
_NAMES = {
    "nearest": "UpsampleNearest{d}DBackward0",
    "nearest-exact": "UpsampleNearestExact{d}DBackward0",
    "linear": "UpsampleLinear1DBackward0",
    "bilinear": "UpsampleBilinear2DBackward0",
    "trilinear": "UpsampleTrilinear3DBackward0",
    "bicubic": "UpsampleBicubic2DBackward0",
}
_AA_NAMES = {
    "bilinear": "UpsampleBilinear2DAaBackward0",
    "bicubic": "UpsampleBicubic2DAaBackward0",
    "lanczos": "UpsampleLanczos2DAaBackward0",
}
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _nearest_matrix(
    n: int, o: int, scale: float | None, exact: bool, shortcut: bool = True
) -> np.ndarray:
    """PyTorch's ``nearest_idx`` / ``nearest_exact_idx``: ``floor(j * scale)`` (or of
    ``(j + 0.5) * scale``) in single precision, clipped to the last input; ``shortcut``:
    ``nearest_idx``'s copy of each input where ``o == n`` and of each twice where ``o == 2 *
    n``, whatever the scale factor given."""
    j = np.arange(o)
    if not exact and shortcut and o == n:
        src = j
    elif not exact and shortcut and o == 2 * n:
        src = j >> 1
    else:
        s = np.float32(1.0 / scale) if scale else np.float32(n) / np.float32(o)
        pos = (j.astype(np.float32) + np.float32(0.5)) * s if exact else j.astype(np.float32) * s
        src = np.minimum(np.floor(pos).astype(np.int64), n - 1)
    m = np.zeros((o, n))
    m[j, src] = 1.0
    return m


def _linear_matrix(n: int, o: int, scale: float | None, align: bool, dtype: Any) -> np.ndarray:
    """PyTorch's ``compute_indices_weights_linear``: the source position ``scale * j``
    (aligned corners) or ``scale * (j + 0.5) - 0.5`` clipped at 0, its floor and the next
    input (the same at the last), weighted by the distances, in ``dtype``."""
    t = np.dtype(dtype).type
    if align:
        s = t(n - 1) / t(o - 1) if o > 1 else t(0)
    else:
        s = t(1.0 / scale) if scale else t(n) / t(o)
    j = np.arange(o).astype(dtype)
    pos = s * j if align else np.maximum(s * (j + t(0.5)) - t(0.5), t(0))
    lo = pos.astype(np.int64)
    hi = lo + (lo < n - 1)
    w1 = np.clip(pos - lo.astype(dtype), 0, 1)
    m = np.zeros((o, n), dtype=dtype)
    np.add.at(m, (np.arange(o), lo), 1 - w1)
    np.add.at(m, (np.arange(o), hi), w1)
    return m


def _is_int(value: Any) -> bool:
    """Whether PyTorch takes ``value`` as an output size: an int, a NumPy integer or an
    integer tensor of one element, not a bool."""
    if isinstance(value, Tensor):
        return value.numel() == 1 and value.dtype.category == 1
    return not isinstance(value, (bool, np.bool_)) and hasattr(type(value), "__index__")


def _scale(value: Any) -> float:
    """A scale factor as a float: PyTorch's TypeError for one that is not a real number (a
    string, a tensor)."""
    if not isinstance(value, numbers.Real):
        raise TypeError(
            f"interpolate(): scale_factor must be a float or a tuple of floats, got "
            f"{type(value).__name__} {value!r}"
        )
    return float(value)


def _sizes(input: Tensor, d: int, size: Any, scale_factor: Any, recompute: Any) -> tuple:
    """The output sizes and the scales handed to the kernel (None: from the sizes)."""
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if recompute:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        if isinstance(size, (list, tuple)):
            if len(size) != d:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_int(v) for v in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}"
                )
            return tuple(operator.index(v) for v in size), (None,) * d
        if not _is_int(size):
            raise TypeError(f"expected size to be an int or a tuple of ints, but got {size!r}")
        return (operator.index(size),) * d, (None,) * d
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != d:
            raise ValueError(
                "Input and scale_factor must have the same number of spatial dimensions, but "
                f"got input with spatial dimensions of {spatial} and scale_factor of shape "
                f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                "and scale_factor in (s1, s2, ...,sK) format."
            )
        factors = tuple(_scale(f) for f in scale_factor)
    else:
        factors = (_scale(scale_factor),) * d
    sizes = tuple(math.trunc(n * f) for n, f in zip(spatial, factors))
    return sizes, (None,) * d if recompute else factors


def _check_sizes(input: Tensor, sizes: tuple) -> None:
    spatial = input.shape[2:]
    if all(n > 0 for n in spatial) and all(o > 0 for o in sizes):
        if input.shape[1] == 0:  # no channels: refused, where no batch is taken
            raise RuntimeError(
                f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                f"{list(input.shape)}"
            )
        return
    names = {1: ("W",), 2: ("H", "W"), 3: ("D", "H", "W")}[len(sizes)]
    given = ", ".join(f"{k}: {n}" for k, n in zip(names, spatial))
    wanted = ", ".join(f"{k}: {o}" for k, o in zip(names, sizes))
    raise RuntimeError(
        f"Input and output sizes should be greater than 0, but got input ({given}) output "
        f"({wanted})"
    )


def _check_dtype(input: Tensor, mode: str, d: int, antialias: bool) -> None:
    if input.dtype.is_floating_point:
        return
    if antialias:
        kernel = "compute_index_ranges_weights"
    elif mode == "bicubic":
        kernel = "compute_indices_weights_cubic"
    else:
        kernel = _NAMES[mode].format(d=d)[: -len("Backward0")].replace("Upsample", "upsample_")
        kernel = kernel.lower()
    # PyTorch's CPU kernels take uint8 as their only non-floating dtype
    if input.dtype.scalar_type == "Byte" and mode in ("nearest", "nearest-exact"):
        return
    if input.dtype.scalar_type == "Byte":
        raise NotImplementedError(
            f"interpolate: mode '{mode}' needs a floating input, got {input.dtype}: convert it "
            "with .float() (PyTorch rounds uint8 images after each pass of its own kernel)"
        )
    raise NotImplementedError(f'"{kernel}" not implemented for {input.dtype.scalar_type!r}')


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dimensions of ``(N, C, *spatial)`` to ``size`` or by
    ``scale_factor``: ``mode`` ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-d input),
    ``'bilinear'`` or ``'bicubic'`` (4-d), ``'trilinear'`` (5-d) with ``align_corners``, or
    ``'area'`` (adaptive average pooling). ``antialias=True`` (4-d ``'bilinear'``,
    ``'bicubic'``, ``'lanczos'``) widens the filter by the scale when downsampling. Sources
    and weights as PyTorch's CPU kernels.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[[1.0, 2.0, 4.0]]])
    >>> F.interpolate(x, scale_factor=2)
    tensor([[[1., 1., 2., 2., 4., 4.]]])
    >>> F.interpolate(x, size=5, mode="linear", align_corners=True)
    tensor([[[1.0000, 1.5000, 2.0000, 3.0000, 4.0000]]])
    >>> F.interpolate(symgrad.tensor([[[[0.0, 1.0]]]]), size=(1, 4), mode="bicubic")
    tensor([[[[-0.1055,  0.2266,  0.7734,  1.1055]]]])
    >>> image = symgrad.tensor([[[[1.0, 2.0, 3.0, 4.0]]]])
    >>> F.interpolate(image, size=(1, 2), mode="bilinear", antialias=True)
    tensor([[[[1.7143, 3.2857]]]])
    """
    if not isinstance(input, Tensor):
        raise TypeError(
            f"interpolate(): argument 'input' must be Tensor, not {type(input).__name__}"
        )
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    d = input.ndim - 2
    sizes, scales = _sizes(input, d, size, scale_factor, recompute_scale_factor)
    if mode == "area" and size is None:
        scales = (None,) * d
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    if d not in (1, 2, 3) or mode not in (*_NAMES, "area", "lanczos"):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: {_MODES} (got {mode})"
        )
    if mode in ("linear", "bilinear", "trilinear") and _LINEAR[d] != mode:
        wanted = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {wanted}D input")
    if mode in ("bicubic", "lanczos") and d != 2:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
            f"the modes: {_MODES} (got {mode})"
        )
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if mode == "area":
        return getattr(_adaptive_pooling, f"adaptive_avg_pool{d}d")(input, sizes)
    _check_sizes(input, sizes)
    _check_dtype(input, mode, d, antialias)
    # the arguments as the node shows them: the output size, one scale per dimension (None
    # where computed from the sizes) and, but for nearest, align_corners
    shown = (("output_size", tuple(sizes)),)
    shown += tuple(zip(_SCALE_NAMES[d], (None if s is None else float(s) for s in scales)))
    if not mode.startswith("nearest"):
        shown += (("align_corners", bool(align_corners)),)
    return pool_matrices(
        input,
        _matrices(input, mode, sizes, scales, align_corners, antialias),
        _AA_NAMES[mode] if antialias else _NAMES[mode].format(d=d),
        shown=shown,
        grad_matrices=_backward(input, mode, sizes, scales, align_corners, antialias),
    )


def _backward(
    input: Tensor, mode: str, sizes: tuple, scales: tuple, align: Any, aa: bool
) -> tuple | None:
    """The matrices of the gradient where PyTorch's backward kernel resizes otherwise than
    its forward, else None: the 1-d and 3-d nearest kernels compute ``floor(j * scale)`` for
    every output, but their backward kernels, and both 2-d ones, take ``nearest_idx``'s
    shortcuts (an output twice the input repeats each input twice, whatever the scale
    factor); the anti-aliased forward skips a dimension whose size is unchanged, its
    backward filters it too."""
    dims = tuple(zip(input.shape[2:], sizes, scales))
    if mode == "nearest" and len(sizes) != 2 and any(o in (n, 2 * n) for n, o, _ in dims):
        return tuple(_nearest_matrix(n, o, s, False) for n, o, s in dims)
    if aa and any(n == o for n, o, _ in dims):
        dtype = input.dtype.numpy
        return tuple(antialias_matrix(n, o, s, bool(align), dtype, mode) for n, o, s in dims)
    return None


_SCALE_NAMES = {
    1: ("scales",),
    2: ("scales_h", "scales_w"),
    3: ("scales_d", "scales_h", "scales_w"),
}


def _matrices(input: Tensor, mode: str, sizes: tuple, scales: tuple, align: Any, aa: bool) -> tuple:
    """One ``(out, in)`` matrix per spatial dimension."""
    dims = zip(input.shape[2:], sizes, scales)
    dtype = input.dtype.numpy
    if dtype == np.float16 and not aa and mode == "bilinear":
        dtype = np.float32  # PyTorch's float16 bilinear kernel computes in float32
    if mode in ("nearest", "nearest-exact"):
        shortcut = len(sizes) == 2  # (see _backward)
        exact = mode == "nearest-exact"
        return tuple(_nearest_matrix(n, o, s, exact, shortcut) for n, o, s in dims)
    if aa:
        # PyTorch's separable anti-aliased kernel skips a dimension whose size is unchanged,
        # even when a scale factor other than 1 was given
        return tuple(
            np.eye(n, dtype=dtype)
            if n == o
            else antialias_matrix(n, o, s, bool(align), dtype, mode)
            for n, o, s in dims
        )
    if mode == "bicubic":
        return tuple(cubic_matrix(n, o, s, align, dtype) for n, o, s in dims)
    # PyTorch's linear kernels copy a dimension whose size is unchanged, whatever the scale
    # factor given (bicubic's interpolate it by the scale)
    return tuple(
        np.eye(n, dtype=dtype) if n == o else _linear_matrix(n, o, s, align, dtype)
        for n, o, s in dims
    )


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=3,
    )


def upsample(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """PyTorch's deprecated name of :func:`interpolate` (with its ``UserWarning``).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     F.upsample(symgrad.tensor([[[1.0, 2.0]]]), scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """PyTorch's deprecated ``interpolate(..., mode='nearest')`` (with its ``UserWarning``).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     F.upsample_nearest(symgrad.tensor([[[1.0, 2.0]]]), 3)
    tensor([[[1., 1., 2.]]])
    """
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """PyTorch's deprecated ``interpolate(..., mode='bilinear', align_corners=True)`` (with
    its ``UserWarning``).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     F.upsample_bilinear(symgrad.tensor([[[[1.0, 2.0]]]]), (1, 3))
    tensor([[[[1.0000, 1.5000, 2.0000]]]])
    """
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
