"""``grid_sample`` of :mod:`symgrad.nn.functional`: one node, PyTorch's
``GridSampler2DBackward0`` (4-D input) or ``GridSampler3DBackward0`` (5-D input).

For each output point the public function finds, from the grid's values, the corners around
the point's source coordinate (integers, with masks for corners outside the input) and how
each source coordinate depends on its grid coordinate near this point: ``source = offset +
slope * grid``, the slope carrying the unnormalization, a reflection's sign and a clipped
coordinate's zero, as PyTorch's kernel sets them. With those constants the rule reads in the
interpreter vocabulary: values gathered at the corners (``getitem``), weighted by products of
distances to the opposite corners (bilinear) or of cubic convolution weights of the
fractional parts (bicubic, whose sixteen taps are each mapped through the padding as
PyTorch's ``get_value_bounded`` does, so its slope is the unnormalization's alone); so closed
forms and any order of derivative follow.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np

from symgrad import _tracing
from symgrad.nn.grid_sampling import _ALIGN_WARNING
from symgrad.nn.upsampling_filters import cubic_coefficients, cubic_slopes
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural
from symgrad.prim.tangents import no_forward_rule
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["grid_sample"]


def _sources(xp: Any, grid: Any, axes: tuple) -> list:
    """Each grid coordinate's source coordinate, ``offset + slope * grid[..., k]``."""
    lead = (slice(None),) * (len(grid.shape) - 1)
    return [
        xp.constant(offset) + xp.constant(slope) * xp.getitem(grid, lead + (k,))
        for k, (offset, slope) in enumerate(axes)
    ]


def _taps(xp: Any, src: list, p: dict) -> tuple:
    """Per coordinate, the weight of each tap along it and the weight's slope with respect
    to the source coordinate (``+1``/``-1`` for the linear taps)."""
    bases = p["corners"][0][1]
    if p["mode"] == "bilinear":
        weights = [[xp.constant(b + 1) - s, s - xp.constant(b)] for s, b in zip(src, bases)]
        return weights, [[-1, 1]] * len(src)
    dtype = p["dtype"]

    def c(value: float) -> Any:
        return xp.constant(np.asarray(value, dtype=dtype))

    fractions = [s - xp.constant(b) for s, b in zip(src, bases)]
    return [cubic_coefficients(t, c) for t in fractions], [cubic_slopes(t, c) for t in fractions]


def _product(items: list) -> Any:
    out = items[0]
    for item in items[1:]:
        out = out * item
    return out


def _forward(
    xp: Any, input: Any, grid: Any, *, mode: str, axes: tuple, corners: tuple, key: Any, dtype: Any
) -> Any:
    p = dict(mode=mode, corners=corners, dtype=dtype)
    weights = _taps(xp, _sources(xp, grid, axes), p)[0] if mode != "nearest" else None
    out = None
    for corner in corners:
        mask = xp.constant(corner[3])
        if weights is not None:
            mask = mask * _product([w[tap] for w, tap in zip(weights, corner[0])])
        term = xp.getitem(input, key + corner[2]) * xp.unsqueeze(mask, 1)
        out = term if out is None else out + term
    return out


def _rule(xp: Any, g: Any, c: Any) -> tuple:
    input, grid = c.inputs
    p = c.params
    axes, key = p["axes"], p["key"]
    weights, slopes = _taps(xp, _sources(xp, grid, axes), p) if p["mode"] != "nearest" else ([], [])
    grads: list = [None, None]
    pulls = [None] * len(axes)
    # a NaN or infinite grid point: its weights are NaN, but a corner out of bounds sends
    # nothing to the input (PyTorch's backward skips it)
    off_grid = not all(np.isfinite(offset).all() for offset, _ in axes)
    for corner in p["corners"]:
        mask = xp.constant(corner[3])
        factors = [w[tap] for w, tap in zip(weights, corner[0])]
        if c.needs[0]:
            weight = mask * _product(factors) if factors else mask
            if off_grid and factors:
                weight = xp.masked_fill(weight, xp.constant(corner[3] == 0), 0.0)
            share = xp.index_put_zeros(c.shapes[0], key + corner[2], g * xp.unsqueeze(weight, 1))
            grads[0] = share if grads[0] is None else grads[0] + share
        if c.needs[1] and factors:
            along = xp.sum(g * xp.getitem(input, key + corner[2]), (1,), False) * mask
            for k, tap in enumerate(corner[0]):
                others = [f for j, f in enumerate(factors) if j != k]
                part = along * _product(others) if others else along
                slope = slopes[k][tap]
                if isinstance(slope, int):
                    part = part if slope > 0 else -part
                else:
                    part = part * slope
                pulls[k] = part if pulls[k] is None else pulls[k] + part
    if c.needs[1]:
        if not weights:  # nearest: the output does not move with the grid
            grads[1] = xp.constant(np.zeros(c.shapes[1], dtype=p["dtype"]))
        else:
            cols = [xp.unsqueeze(pull * xp.constant(s), -1) for pull, (_, s) in zip(pulls, axes)]
            grads[1] = xp.cat(cols, -1)
    return tuple(grads)


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    grads = _rule(xp, g, c)
    if xp is not INTERPRETERS.tensor or any(type(a) is BatchedTensor for a in (g, *c.inputs)):
        return grads
    # PyTorch's gradients are outputs of one node reading (g, input, grid): they require grad
    # whenever an input does, also where the rule's value is a constant (nearest sampling,
    # a constant incoming gradient and grid)
    return tuple(
        _GRADIENT(g, *c.inputs, which=i, **c.params)
        if grad is not None and not grad.requires_grad
        else grad
        for i, grad in enumerate(grads)
    )


def _name(params: dict, shapes: Any) -> str:
    return f"GridSampler{len(params['axes'])}DBackward0"


_GRID_SAMPLE = Structural(
    "grid_sample",
    _forward,
    _vjp,
    saves=(0, 1),
    backward=_name,
    jvp=no_forward_rule(lambda c: f"grid_sampler_{len(c.shapes[0]) - 2}d"),
    shows=True,
)


_vjp.__wrapped__ = _rule  # type: ignore[attr-defined]  # (what symgrad.compile calls)


def _gradient_forward(xp: Any, g: Any, input: Any, grid: Any, which: int, **params: Any) -> Any:
    """grid_sample's gradient for its input (``which`` 0) or grid (1)."""
    needs = (which == 0, which == 1)
    shapes = (tuple(input.shape), tuple(grid.shape))
    return _rule(xp, g, Ctx((input, grid), None, shapes, needs, params))[which]


def _gradient_vjp(xp: Any, gg: Any, c: Any) -> tuple:
    """Where the gradient node is used its value moves with ``g`` alone (the input's
    gradient: linear in ``g``, sampled back by the forward) or with nothing (nearest
    sampling's grid gradient, zeros); the input's and grid's are then PyTorch's: none, and
    zeros for the grid under nearest sampling."""
    p = dict(c.params)
    which = p.pop("which")
    grid = c.inputs[2]
    by_g = _forward(xp, gg, grid, **p) if which == 0 and c.needs[0] else None
    by_grid = None
    if which == 0 and c.needs[2] and p["mode"] == "nearest":
        by_grid = xp.constant(np.zeros(c.shapes[2], dtype=p["dtype"]))
    return (by_g, None, by_grid)


def _gradient_name(params: dict, shapes: Any) -> str:
    return f"GridSampler{len(params['axes'])}DBackwardBackward0"


_GRADIENT = Structural(
    "grid_sample_backward",
    _gradient_forward,
    _gradient_vjp,
    saves=(2,),
    backward=_gradient_name,
    jvp=None,
)


def _reflect(x: np.ndarray, twice_low: int, twice_high: int) -> tuple:
    """PyTorch's reflect_coordinates_set_grad: the reflected coordinate and its slope."""
    if twice_low == twice_high:
        return np.zeros_like(x), np.zeros_like(x)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = x - low
    sign = np.where(x < 0, -1.0, 1.0)
    x = np.abs(x)
    extra, flips = np.fmod(x, span), np.floor(x / span)
    even = flips % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, sign, -sign)


def _source_index(coord: np.ndarray, size: int, padding: str, align: bool) -> tuple:
    """PyTorch's grid_sampler_compute_source_index_set_grad: the source coordinate and its
    derivative with respect to the grid coordinate (``padding`` None: unnormalized only)."""
    if align:
        src, slope = (coord + 1) / 2 * (size - 1), np.full_like(coord, (size - 1) / 2)
    else:
        src, slope = ((coord + 1) * size - 1) / 2, np.full_like(coord, size / 2)
    if padding is None:
        return src, slope
    if padding == "reflection":
        src, sign = _reflect(src, 0, 2 * (size - 1)) if align else _reflect(src, -1, 2 * size - 1)
        slope = slope * sign
    if padding != "zeros":
        inside = (src > 0) & (src < size - 1)
        src, slope = np.clip(src, 0, size - 1), slope * inside
    return src, slope


def _bounded(where: np.ndarray, size: int, padding: str, align: bool) -> np.ndarray:
    """PyTorch's compute_coordinates for the integer taps of bicubic sampling."""
    if padding == "reflection":
        twice = (0, 2 * (size - 1)) if align else (-1, 2 * size - 1)
        where = _reflect(where, *twice)[0]
    if padding != "zeros":
        where = np.clip(where, 0, size - 1)
    return np.trunc(where)


def _corners(src: list, sizes: list, mode: str, dtype: Any, padding: str, align: bool) -> tuple:
    """(taps, bases, index arrays, mask) of each corner read for every output point: one tap
    per coordinate, 0 or 1 (bilinear) or 0 to 3 (bicubic, the second tap at the floor)."""
    if mode == "nearest":
        bases, tap_sets = [np.rint(s) for s in src], [(0,) * len(src)]
    else:
        taps = (0, 1) if mode == "bilinear" else (-1, 0, 1, 2)
        bases = [np.floor(s) for s in src]
        tap_sets = list(itertools.product(taps, repeat=len(src)))
    corners = []
    for offsets in tap_sets:
        where = [b + off for b, off in zip(bases, offsets)]
        if mode == "bicubic":
            where = [_bounded(w, n, padding, align) for w, n in zip(where, sizes)]
        mask = np.ones(where[0].shape, dtype=bool)
        for w, n in zip(where, sizes):
            mask &= (w >= 0) & (w < n)
        # coordinate k runs along spatial axis d-1-k (x: width, the last one)
        index = tuple(np.where(mask, w, 0).astype(np.int64)[:, None] for w in reversed(where))
        bits = tuple(off + 1 for off in offsets) if mode == "bicubic" else offsets
        corners.append((bits, tuple(b.astype(dtype) for b in bases), index, mask.astype(dtype)))
    return tuple(corners)


def _check(input: Tensor, grid: Tensor, mode: str, padding_mode: str) -> None:
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            "nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
            f"'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(
            f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}"
        )
    d = input.ndim - 2
    if grid.shape[-1] != d:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {d} in last dimension, but got grid "
            f"with sizes {list(grid.shape)}"
        )
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input "
            f"with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    if input.dtype != grid.dtype:
        raise RuntimeError(
            f"grid_sampler(): expected input and grid to have the same dtype, but got input "
            f"{input.dtype} and grid {grid.dtype}"
        )
    for i, n in enumerate(input.shape[2:]):
        if n == 0:
            raise RuntimeError(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but "
                f"input has sizes {list(input.shape)} with dimension {i + 2} being empty"
            )
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f'"grid_sampler_{d}d_cpu_kernel_impl" not implemented for {input.dtype!r}'
        )
    if mode == "bicubic" and d == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


# (PyTorch's enums, as its node shows them)
_MODES, _PADDINGS = ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection")


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at the points of ``grid`` (N, H_out,
    W_out, 2) or (N, D_out, H_out, W_out, 3), given as normalized coordinates ``(x, y[, z])``
    in [-1, 1]: ``bilinear`` (trilinear for 5-D), ``nearest`` or ``bicubic`` (4-D only, 4 x 4
    taps, each read through the padding) interpolation; points outside
    read zeros, the border, or the input reflected (``padding_mode``); ``align_corners`` puts
    -1 and 1 at the centres of the corner pixels instead of their outer edges.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> image = symgrad.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> grid = symgrad.tensor([[[[0.0, 0.0], [1.0, -1.0]]]])
    >>> F.grid_sample(image, grid, align_corners=True)
    tensor([[[[1.5000, 1.0000]]]])
    >>> F.grid_sample(image, grid, padding_mode="border", align_corners=False)
    tensor([[[[1.5000, 1.0000]]]])
    >>> F.grid_sample(image, grid, mode="bicubic", padding_mode="border", align_corners=True)
    tensor([[[[1.5000, 1.0000]]]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=2)
        align_corners = False
    _check(input, grid, mode, padding_mode)
    shape = input.shape

    def params(coords: np.ndarray) -> dict:
        # from the grid's values: at every call of a compiled function too
        return _params(coords, shape, mode, padding_mode, align_corners)

    shown = (
        ("interpolation_mode", _MODES.index(mode)),
        ("padding_mode", _PADDINGS.index(padding_mode)),
        ("align_corners", bool(align_corners)),
    )
    result = _GRID_SAMPLE(input, grid, **params(grid._data), saved_as=shown)
    _tracing.data_params(result, params, grid)
    return result


def _params(grid: np.ndarray, shape: tuple, mode: str, padding: str, align: bool) -> dict:
    """The corners each output point reads, and the slopes and offsets of their weights."""
    d, dtype = len(shape) - 2, grid.dtype
    sizes = list(reversed(shape[2:]))  # along x, y[, z]
    coords = grid.astype(np.float64)
    axes, src = [], []
    for k in range(d):
        # bicubic maps each of its integer taps through the padding instead
        pad = None if mode == "bicubic" else padding
        with np.errstate(invalid="ignore"):  # (a NaN or infinite grid point)
            s, slope = _source_index(coords[..., k], sizes[k], pad, align)
            axes.append(((s - slope * coords[..., k]).astype(dtype), slope.astype(dtype)))
        src.append(s)
    n, c = shape[:2]
    key = (
        np.arange(n).reshape((n,) + (1,) * (d + 1)),
        np.arange(c).reshape((1, c) + (1,) * d),
    )
    corners = _corners(src, sizes, mode, dtype, padding, align)
    return dict(mode=mode, axes=tuple(axes), corners=corners, key=key, dtype=dtype)
