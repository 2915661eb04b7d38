"""Variance and standard deviation, with PyTorch's ``correction`` (Bessel's by default)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad.ops.reductions import _count, _dims, _keep
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["var", "std"]


# -- variance and standard deviation ---------------------------------------------------------------
def _centered(xp: Any, x: Any, dim: Any) -> Any:
    return x - xp.sum(x, dim, True) / _count(x.shape, dim)


def _var_grad(xp: Any, g: Any, c: Any) -> Any:
    """PyTorch's var_backward for ``g`` expanded to the input's shape."""
    dim = c.params["dim"]
    n = _count(c.shapes[0], dim) - c.params["correction"]
    centered = _centered(xp, c.inputs[0], dim)
    if dim is None and n <= 0:
        # no degrees of freedom left: 2 / n is taken as inf, and inf * 0 is nan
        return g * xp.where(xp.eq(centered, 0), math.nan, math.inf)
    return g * centered * (2.0 / n if n else math.inf)


def _var_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (_var_grad(xp, _keep(g, c, xp), c),)


def _var_forward(xp: Any, a: Any, dim: Any, keepdim: bool, correction: float) -> Any:
    n = max(_count(a.shape, dim) - correction, 0)  # too few elements: inf, or nan for none
    d = _centered(xp, a, dim)
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.sum(d * d, dim, keepdim) / n


def _std_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # var's rule for g / (2 std), taken as 0 where std is 0 (as PyTorch's std_backward)
    out = _keep(c.out, c, xp)
    zero = xp.eq(out, 0)
    g = xp.where(zero, 0.0, _keep(g, c, xp) / (2 * xp.where(zero, 1.0, out)))
    return (_var_grad(xp, g, c),)


_VAR = Structural("var", _var_forward, _var_vjp, saves=(0,), batch="reduction")
_STD = Structural(
    "std",
    lambda xp, a, **p: xp.sqrt(_var_forward(xp, a, **p)),
    _std_vjp,
    saves=(0,),
    saves_out=True,
    batch="reduction",
)


def _correction(unbiased: Any, correction: Any) -> float:
    if correction is not None:
        return float(correction)
    return 1.0 if unbiased is None or unbiased else 0.0


def var(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The variance (Bessel-corrected by default, as PyTorch)."""
    return _spread(_VAR, input, dim, unbiased, keepdim, correction)


def _spread(
    prim: Structural, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any
) -> Tensor:
    """var or std, after PyTorch's warning when no degree of freedom is left."""
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        raise RuntimeError(
            f"std and var only support floating point and complex dtypes, got "
            f"{input.dtype.scalar_type} (convert with .float())"
        )
    axes, c = _dims(input, dim), _correction(unbiased, correction)
    if _count(input.shape, axes) - c <= 0:
        warnings.warn(
            f"{prim.name}(): degrees of freedom is <= 0. Correction should be strictly less "
            "than the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    return prim(input, dim=axes, keepdim=bool(keepdim), correction=c)


def std(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The standard deviation (Bessel-corrected by default, as PyTorch)."""
    return _spread(_STD, input, dim, unbiased, keepdim, correction)
