"""``affine_grid`` of :mod:`symgrad.nn.functional`, one node (PyTorch's
``AffineGridGeneratorBackward0``): linear in ``theta``, the base grid of normalized
coordinates times ``theta`` transposed."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad._rounding import linspace_values
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["affine_grid"]

_NATIVE = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since "
    "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
    "documentation of grid_sample for details."
)


# -- affine_grid: one node, AffineGridGeneratorBackward0 -----------------------------------------


def _base_grid(spatial: tuple, align_corners: bool, dtype: Any) -> np.ndarray:
    """``(prod(spatial), d + 1)``: each point's normalized coordinates (x first), then 1."""
    # ATen's own linspace and scaling, in theta's dtype: at pixel centres the points then fall
    # on the same side of grid_sample's kinks as PyTorch's
    work = np.dtype(dtype) if np.dtype(dtype) in _NATIVE else np.dtype(np.float64)
    axes = []
    for n in spatial:
        steps = linspace_values(-1.0, 1.0, n, work) if n > 1 else np.zeros(n, work)
        axes.append(steps if align_corners else steps * work.type(n - 1) / work.type(n))
    mesh = np.meshgrid(*axes, indexing="ij")  # (D,) H, W order
    coords = [m.reshape(-1) for m in reversed(mesh)] + [np.ones(math.prod(spatial))]
    return np.stack(coords, axis=-1).astype(dtype)


def _affine_forward(xp: Any, theta: Any, base: Any, out: tuple) -> Any:
    points = xp.matmul(xp.constant(base), xp.transpose(theta, 1, 2))  # (N, P, d)
    return xp.reshape(points, out)


def _affine_vjp(xp: Any, g: Any, c: Any) -> tuple:
    base, out = c.params["base"], c.params["out"]
    rows = xp.reshape(g, (out[0], base.shape[0], out[-1]))
    return (xp.matmul(xp.transpose(rows, 1, 2), xp.constant(base)),)


_AFFINE_GRID = Structural(
    "affine_grid",
    _affine_forward,
    _affine_vjp,
    backward="AffineGridGeneratorBackward0",
    jvp="linear",
    shows=True,
)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of the affine maps ``theta`` (N, 2, 3) or (N, 3, 4) for an output of
    ``size`` (N, C, H, W) or (N, C, D, H, W): each point's normalized coordinates ``(x, y[,
    z], 1)`` times ``theta`` transposed, a tensor (N, H, W, 2) or (N, D, H, W, 3).

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> theta = symgrad.tensor([[[1.0, 0.0, 0.0], [0.0, 2.0, 0.5]]])
    >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=True)
    tensor([[[[-1.0000, -1.5000],
              [ 1.0000, -1.5000]],
    <BLANKLINE>
             [[-1.0000,  2.5000],
              [ 1.0000,  2.5000]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = list(size)
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}."
        )
    d = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (d, d + 1):
        raise ValueError(
            f"Expected a batch of {d}D affine matrices of shape Nx{d}x{d + 1} for size "
            f"{size}. Got {theta.shape}."
        )
    spatial = tuple(size[2:])
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            UserWarning,
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            f"affine_grid: theta holds {theta.shape[0]} matrices but size asks for a batch of "
            f"{size[0]}"
        )
    base = _base_grid(spatial, align_corners, theta._data.dtype)
    shown = (("size", tuple(int(n) for n in size)), ("align_corners", bool(align_corners)))
    return _AFFINE_GRID(theta, base=base, out=(size[0], *spatial, d), saved_as=shown)
