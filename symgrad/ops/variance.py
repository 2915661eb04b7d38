"""Variance and standard deviation, with PyTorch's ``correction`` (Bessel's by default)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad._arguments import require_numbers, require_tensor
from symgrad._memory_format import row_major
from symgrad.ops.reductions import _count, _dims, _keep, _unsqueezed
from symgrad.prim.factorization import Factorization
from symgrad.prim.numpy_xp import NP, half_in_float32, half_rule_in_float32
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["var", "std", "var_mean", "std_mean"]


# -- variance and standard deviation ---------------------------------------------------------------
def _centered(xp: Any, x: Any, dim: Any) -> Any:
    return x - xp.sum(x, dim, True) / _count(x.shape, dim)


def _var_grad(xp: Any, g: Any, c: Any) -> Any:
    """PyTorch's var_backward: ``g`` with the reduced dimensions put back as size 1 (a 1-d
    input's 0-d ``g`` broadcasts as it is)."""
    x, dim = c.inputs[0], c.params["dim"]
    if x.ndim > 1:
        g = _unsqueezed(g, c, xp)
    n = _count(c.shapes[0], dim) - c.params["correction"]
    if dict(c.params.get("saved_as", ())).get("dim") == ():
        # dim=() reduces every element, yet PyTorch's var_backward counts the elements over
        # the dims given: none, so one (its gradient is that of a mean over one element)
        n = 1 - c.params["correction"]
        return xp.mul_scalar(g, 2.0 / n if n else math.inf) * (x - xp.mean(x))
    if dim is None and n <= 0:
        # no degrees of freedom left: 2 / n is taken as inf, and inf * 0 is nan
        return g * xp.where(xp.eq(x, xp.mean(x)), math.nan, math.inf)
    centered = x - (xp.mean(x) if dim is None else xp.mean(x, dim, True))
    return xp.mul_scalar(g, 2.0 / n if n else math.inf) * centered


def _var_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (_var_grad(xp, g, c),)


def _var_forward(
    xp: Any, a: Any, dim: Any, keepdim: bool, correction: float, saved_as: tuple = ()
) -> Any:
    n = max(_count(a.shape, dim) - correction, 0)  # too few elements: inf, or nan for none
    d = _centered(xp, a, dim)
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.sum(d * d, dim, keepdim) / n


def _std_vjp(xp: Any, g: Any, c: Any, out: Any = None) -> tuple:
    # var's rule for g / (2 std), taken as 0 where std is 0 (as PyTorch's std_backward)
    out = c.out if out is None else out
    with np.errstate(divide="ignore", invalid="ignore"):
        g = xp.masked_fill(g / xp.mul_scalar(out, 2.0), xp.eq(out, 0), 0.0)
    return (_var_grad(xp, g, c),)


def _std_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """var's tangent over ``2 std``, taken as 0 where std is 0 (as PyTorch's): the tangent
    from the reverse rule would be 0 / 0 there."""
    (t,) = tangents
    x, dim, keepdim = c.inputs[0], c.params["dim"], c.params["keepdim"]
    n = _count(c.shapes[0], dim) - c.params["correction"]
    spread = xp.sum(_centered(xp, x, dim) * t, dim, keepdim)
    zero = xp.eq(c.out, 0)
    denominator = xp.mul_scalar(xp.masked_fill(c.out, zero, 1.0), float(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        return xp.masked_fill(spread / denominator, zero, 0.0)


def _std_forward(xp: Any, a: Any, **params: Any) -> Any:
    return xp.sqrt(_var_forward(xp, a, **params))


def _accumulated(forward: Any) -> Any:
    """``forward`` as PyTorch's kernels accumulate: float16 in float32, float32 in float64
    (so a float32 standard deviation whose variance overflows float32 is still finite), each
    result rounded once."""
    half = half_in_float32(forward)

    def run(xp: Any, a: Any, **params: Any) -> Any:
        if type(a) is not np.ndarray or a.dtype != np.float32:
            return half(xp, a, **params)
        out = forward(xp, a.astype(np.float64), **params)
        if isinstance(out, tuple):
            return tuple(np.asarray(o).astype(np.float32) for o in out)
        return np.asarray(out).astype(np.float32)

    return run


# float16 is computed in float32 and rounded once, forward and backward, as PyTorch's kernels
_VAR = Structural(
    "var",
    _var_forward,
    half_rule_in_float32(_var_vjp),
    saves=(0,),
    kernel=_accumulated(_var_forward),
    batch="reduction",
    rows=True,
)
_STD = Structural(
    "std",
    _std_forward,
    half_rule_in_float32(_std_vjp),
    saves=(0,),
    saves_out=True,
    kernel=_accumulated(_std_forward),
    batch="reduction",
    jvp=_std_jvp,
    rows=True,
)


# -- var_mean and std_mean: one node for both outputs, as PyTorch -------------------------------
def _pair_forward(root: bool) -> Any:
    def forward(
        xp: Any, a: Any, dim: Any, keepdim: bool, correction: float, saved_as: tuple = ()
    ) -> tuple:
        spread = _var_forward(xp, a, dim, keepdim, correction)
        return xp.sqrt(spread) if root else spread, xp.sum(a, dim, keepdim) / _count(a.shape, dim)

    return forward


def _pair_vjp(root: bool) -> Any:
    def vjp(xp: Any, grads: tuple, c: Any) -> tuple:
        """The spread's rule for its gradient plus the mean's (PyTorch's var_mean_backward)."""
        g_spread, g_mean = tuple(grads) + (None,) * (2 - len(grads))
        total = None
        if g_spread is not None:
            rule = _std_vjp(xp, g_spread, c, c.out[0]) if root else _var_vjp(xp, g_spread, c)
            total = rule[0]
        if g_mean is not None:
            share = xp.div_scalar(_keep(g_mean, c, xp), _count(c.shapes[0], c.params["dim"]))
            total = share if total is None else total + share
        return (total,)

    return vjp


def _pair(name: str, root: bool) -> Factorization:
    forward = _pair_forward(root)
    kernel = _accumulated(forward)
    return Factorization(
        name,
        lambda a, **p: tuple(row_major(out) for out in kernel(NP, a, **p)),
        half_rule_in_float32(_pair_vjp(root)),
        backward=f"{name.title().replace('_', '')}Backward0",
        n_outputs=2,
        forward=forward,
        saves_outputs=(0,) if root else (),  # (std_mean's rule reads the deviation)
    )


_VAR_MEAN = _pair("var_mean", False)
_STD_MEAN = _pair("std_mean", True)


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
    if type(input) is not Tensor:
        require_tensor("var", "input", 1, input)
    return _spread(_VAR, input, dim, unbiased, keepdim, correction)


def _spread(
    prim: Any, input: Tensor, dim: Any, unbiased: Any, keepdim: bool, correction: Any
) -> Tensor:
    """var or std, after PyTorch's warning when no degree of freedom is left."""
    if isinstance(input, Tensor) and not input.dtype.is_floating_point:
        which = prim.name if isinstance(prim, Factorization) else "std and var"
        raise RuntimeError(
            f"{which} only support floating point and complex dtypes, got "
            f"{input.dtype.scalar_type} (convert with .float())"
        )
    if isinstance(dim, bool) and unbiased is None and correction is None and not keepdim:
        dim, unbiased = None, dim  # PyTorch's overload std(input, unbiased)
    if correction is not None and type(correction) is not int:
        require_numbers(prim.name, correction=correction)
    axes, c = _dims(input, dim), _correction(unbiased, correction)
    # PyTorch's reduction factor is input numel over output numel, 0 for an empty input
    factor = _count(input.shape, axes) if input.numel() else 0
    if factor - c <= 0:
        warnings.warn(
            f"{prim.name}(): degrees of freedom is <= 0. Correction should be strictly less "
            "than the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    # the node shows the arguments as PyTorch's does
    saved_as = (("correction", _shown_correction(dim, unbiased, correction)),)
    saved_as += (("dim", _shown_dim(dim)),)
    return prim(input, dim=axes, keepdim=bool(keepdim), correction=c, saved_as=saved_as)


def _shown_correction(dim: Any, unbiased: Any, correction: Any) -> Any:
    """``_saved_correction`` as PyTorch 2.13 shows it: as given, 0 or 1 from ``unbiased`` or
    from a ``dim`` alone (Bessel's), None when nothing chose it."""
    if correction is not None:
        return correction
    if unbiased is not None:
        return int(bool(unbiased))
    return None if dim is None else 1


def _shown_dim(dim: Any) -> Any:
    """``_saved_dim`` as PyTorch shows it: a tuple as given, a negative dim read as the unsigned
    64-bit number of the same bits."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return tuple(int(d) % 2**64 for d in dims)


def std(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    """The standard deviation (Bessel-corrected by default, as PyTorch)."""
    if type(input) is not Tensor:
        require_tensor("std", "input", 1, input)
    return _spread(_STD, input, dim, unbiased, keepdim, correction)


def var_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple:
    """``(var(input, ...), mean(input, ...))`` over the same dimensions, one node for both
    (``VarMeanBackward0``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> v, m = symgrad.var_mean(symgrad.tensor([1.0, 2.0, 6.0], requires_grad=True))
    >>> v, m
    (tensor(7., grad_fn=<VarMeanBackward0>), tensor(3., grad_fn=<VarMeanBackward0>))
    """
    if type(input) is not Tensor:
        require_tensor("var_mean", "input", 1, input)
    return _spread(_VAR_MEAN, input, dim, unbiased, keepdim, correction)


def std_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple:
    """``(std(input, ...), mean(input, ...))`` over the same dimensions, one node for both
    (``StdMeanBackward0``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.std_mean(symgrad.tensor([[1.0, 3.0], [2.0, 6.0]]), 1, correction=0)
    (tensor([1., 2.]), tensor([2., 4.]))
    """
    if type(input) is not Tensor:
        require_tensor("std_mean", "input", 1, input)
    return _spread(_STD_MEAN, input, dim, unbiased, keepdim, correction)
