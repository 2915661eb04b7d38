"""Log-sum-exp and the softmax family, in their numerically stable forms."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad.ops.reductions import _dims, _unsqueezed
from symgrad.ops.shown import shown, shown_dims
from symgrad.ops.softmax_backward import LOG_SOFTMAX_BACKWARD, SOFTMAX_BACKWARD
from symgrad.prim import blocks
from symgrad.prim.numpy_xp import HALF, half_rule_in_float32, widen
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor, _wrap_dim

__all__ = ["logsumexp", "softmax", "log_softmax"]


# -- log-sum-exp and the softmax family (numerically stable forms) ---------------------------------
def _logsumexp_kernel(xp: Any, a: Any, dim: Any, keepdim: bool) -> Any:
    # initial: an empty dim's maximum is -inf, so its log-sum-exp is log(0) = -inf
    m = np.max(a, axis=dim, keepdims=True, initial=-np.inf)
    m = np.where(np.isfinite(m), m, 0)  # all -inf: log(0) = -inf, not nan
    with np.errstate(divide="ignore"):  # (float16: PyTorch's exp and log, a float32 sum)
        out = np.log(xp.sum(np.exp(a - m), dim, True)) + m
    return out if keepdim else np.squeeze(out, axis=dim)


def _logsumexp_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # PyTorch's formula: the gradient and result unsqueezed, broadcast by the product
    return (_unsqueezed(g, c, xp) * xp.exp(c.inputs[0] - _unsqueezed(c.out, c, xp)),)


_LOGSUMEXP = Structural(
    "logsumexp",
    lambda xp, a, dim, keepdim: xp.log(xp.sum(xp.exp(a), dim, keepdim)),
    _logsumexp_vjp,
    saves=(0,),
    saves_out=True,
    kernel=_logsumexp_kernel,
    text="∂{o}/∂{x}[j] = exp({x}[j] − {o}) along dim {dim}",
    batch="reduction",
    rows=True,
    shows=True,
)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(input), dim))`` without overflow."""
    if type(input) is not Tensor:
        require_tensor("logsumexp", "input", 1, input)
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    # (PyTorch's kernel fails, but for an empty input: its -inf over every element)
    if isinstance(dim, (tuple, list)) and not dim and input.ndim and input.numel():
        raise RuntimeError(
            f"logsumexp(): dim=() reduces nothing, and PyTorch's kernel refuses it (output with "
            f"shape [] doesn't match the broadcast shape {[1] * input.ndim}): give the dims"
        )
    if input.dtype.category < 2:  # bool and integers: in the default float dtype, as PyTorch
        input = input.to(dtypes.get_default_dtype())
    dims, keepdim = _dims(input, dim), bool(keepdim)
    return _LOGSUMEXP(input, dim=dims, keepdim=keepdim, **shown_dims(dim))


def _max(a: np.ndarray, dim: Any) -> np.ndarray:
    """The maximum along ``dim``, kept; along an empty dim there is nothing to shift."""
    return a.max(axis=dim, keepdims=True) if a.size else np.zeros_like(a)


# Along the last axis of a large array, the kernels and the backward rules run on blocks of
# whole rows on every core (blocks.rows), as PyTorch shares them among its threads: the same
# operations on each row, so the same values, with the temporaries of a block in the cache.


def _along_last(a: Any, dim: Any) -> bool:
    """Whether ``dim`` (an int, a tuple of one, or None for every axis) is ``a``'s last axis."""
    if type(dim) is tuple:
        if len(dim) != 1:
            return False
        dim = dim[0]
    ndim = np.ndim(a)
    return type(dim) is int and ndim > 0 and dim in (ndim - 1, -1)


def _rows_kernel(values: Any) -> Any:
    """The NumPy kernel of ``values(a, dim)``: in blocks of rows along the last axis of a large
    array, at once otherwise (the same NumPy calls)."""

    def kernel(xp: Any, a: Any, dim: Any) -> Any:
        # ndarray methods: np.max/np.sum add dispatch costing more than work; the result is
        # laid out row by row whatever the input's layout, as PyTorch's (its view works)
        a = np.asarray(a, order="C")
        if a.size >= blocks.EAGER_MIN and _along_last(a, dim):  # (small: at once)
            out = blocks.rows(lambda rows: values(rows, -1), (a,))
            if out is not None:
                return out
        return values(a, dim)

    return kernel


def _softmax_values(a: np.ndarray, dim: Any) -> np.ndarray:
    e = np.exp(a - _max(a, dim))
    return e / e.sum(axis=dim, keepdims=True)


def _softmax_kernel(rows_kernel: Any) -> Any:
    """The NumPy kernel of softmax: ``rows_kernel``, in float32 for float16, rounded once;
    along another dim than the last, PyTorch's kernel rounds each exponential to float16
    before dividing it by their float32 sum."""

    def kernel(xp: Any, a: Any, dim: Any) -> Any:
        if type(a) is not np.ndarray or a.dtype is not HALF:
            return rows_kernel(xp, a, dim)
        wide = a.astype(np.float32, order="C")
        axis = dim[0] if type(dim) is tuple and len(dim) == 1 else dim
        if not a.size or type(axis) is not int or axis % a.ndim == a.ndim - 1:
            return rows_kernel(xp, wide, dim).astype(HALF)
        e = np.exp(wide - wide.max(axis=axis, keepdims=True))
        return (e.astype(HALF).astype(np.float32) / e.sum(axis=axis, keepdims=True)).astype(HALF)

    return kernel


def _softmax_vjp(xp: Any, g: Any, c: Any) -> tuple:
    out = c.out
    if xp is INTERPRETERS.tensor:  # (create_graph: PyTorch's node for the gradient)
        return (SOFTMAX_BACKWARD(g, out, dim=c.params["dim"]),)
    return (out * (g - xp.sum(g * out, c.params["dim"], True)),)


def _by_rows(grad: Any) -> Any:
    """The ``numeric_vjp`` of a rule ``grad(g, out, dim)`` on NumPy arrays: in blocks of rows
    along the last axis of a large array, at once otherwise (the same NumPy calls)."""

    def numeric_vjp(g: Any, arrays: list, out: Any, needs: list, params: dict, meta: tuple):
        dim = params["dim"]
        if type(out) is not np.ndarray or not out.ndim:
            return None
        if out.dtype is HALF:  # in float32, as PyTorch's kernel; the engine rounds the result
            g, out = widen(g), widen(out)
        if out.size >= blocks.EAGER_MIN and _along_last(out, dim):
            r = blocks.rows(lambda gr, outr: grad(gr, outr, -1), (g, out))
            if r is not None:
                return (r,)
        return (grad(g, out, dim),)

    return numeric_vjp


def _softmax_grad(g: np.ndarray, out: np.ndarray, dim: Any) -> np.ndarray:
    """``_softmax_vjp`` on NumPy arrays."""
    return out * (g - np.asarray((g * out).sum(axis=dim, keepdims=True)))


def _log_softmax_values(a: np.ndarray, dim: Any) -> np.ndarray:
    shifted = a - _max(a, dim)
    return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


def _log_softmax_kernel(rows_kernel: Any) -> Any:
    """The NumPy kernel of log_softmax: ``rows_kernel``, in float32 for float16 (PyTorch's kernel
    along the last dim keeps the sum of exponentials and its log in float16 in between)."""

    def kernel(xp: Any, a: Any, dim: Any) -> Any:
        if type(a) is not np.ndarray or a.dtype is not HALF:
            return rows_kernel(xp, a, dim)
        shifted = a.astype(np.float32, order="C")
        if not (a.size and _along_last(a, dim)):
            return rows_kernel(xp, shifted, dim).astype(HALF)
        shifted -= shifted.max(axis=-1, keepdims=True)
        total = np.exp(shifted).sum(axis=-1, keepdims=True).astype(HALF)
        return (shifted - np.log(total)).astype(HALF)

    return kernel


def _log_softmax_vjp(xp: Any, g: Any, c: Any) -> tuple:
    if xp is INTERPRETERS.tensor:  # (create_graph: PyTorch's node for the gradient)
        return (LOG_SOFTMAX_BACKWARD(g, c.out, dim=c.params["dim"]),)
    return (g - xp.exp(c.out) * xp.sum(g, c.params["dim"], True),)


def _log_softmax_grad(g: np.ndarray, out: np.ndarray, dim: Any) -> np.ndarray:
    """``_log_softmax_vjp`` on NumPy arrays."""
    return g - np.exp(out) * np.asarray(g.sum(axis=dim, keepdims=True))


def _softmax_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """``out * (t - sum(out * t, dim))``: the tangent of the inputs' weights."""
    out, t = c.out, tangents[0]
    return out * (t - xp.sum(out * t, c.params["dim"], True))


def _log_softmax_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """``t - sum(softmax * t, dim)``."""
    t = tangents[0]
    return t - xp.sum(xp.exp(c.out) * t, c.params["dim"], True)


def _softmax(xp: Any, a: Any, dim: Any) -> Any:
    e = xp.exp(a)
    return e / xp.sum(e, dim, True)


def _log_softmax(xp: Any, a: Any, dim: Any) -> Any:
    return a - xp.log(xp.sum(xp.exp(a), dim, True))


# float16 is computed in float32 and rounded once, forward and backward, as PyTorch's kernels
_SOFTMAX = Structural(
    "softmax",
    _softmax,
    half_rule_in_float32(_softmax_vjp),
    saves_out=True,
    kernel=_softmax_kernel(_rows_kernel(_softmax_values)),
    text="∂{o}[i]/∂{x}[j] = {o}[i]·(δij − {o}[j]) along dim {dim}",
    batch="reduction",
    numeric_vjp=_by_rows(_softmax_grad),
    jvp=_softmax_jvp,
    shows=True,
)
_LOG_SOFTMAX = Structural(
    "log_softmax",
    _log_softmax,
    half_rule_in_float32(_log_softmax_vjp),
    saves_out=True,
    kernel=_log_softmax_kernel(_rows_kernel(_log_softmax_values)),
    text="∂{o}[i]/∂{x}[j] = δij − exp({o}[j]) along dim {dim}",
    batch="reduction",
    numeric_vjp=_by_rows(_log_softmax_grad),
    jvp=_log_softmax_jvp,
    shows=True,
)


def _safe_softmax_values(a: np.ndarray, dim: Any) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        out = _softmax_values(a, dim)
    hidden = np.all(a == -np.inf, axis=dim, keepdims=True)
    return np.where(hidden, 0.0, out).astype(out.dtype, copy=False)


def _safe_softmax(xp: Any, a: Any, dim: Any) -> Any:
    seen = xp.sum(xp.where(xp.eq(a, -np.inf), 0.0, 1.0), dim, True)
    return xp.where(xp.eq(seen, 0), 0.0, _softmax(xp, a, dim))


# softmax whose rows of only -inf give 0, not nan: PyTorch's attention weights
_SAFE_SOFTMAX = Structural(
    "_safe_softmax",
    _safe_softmax,
    _softmax_vjp,
    saves_out=True,
    backward="SafeSoftmaxBackward0",
    kernel=lambda xp, a, dim: _safe_softmax_values(np.asarray(a, order="C"), dim),
    text="∂{o}[i]/∂{x}[j] = {o}[i]·(δij − {o}[j]) along dim {dim}, 0 for rows of only -inf",
)


def safe_softmax(input: Tensor, dim: int) -> Tensor:
    """``softmax(input, dim)`` with 0 (not nan) in the rows along ``dim`` that hold only
    ``-inf``: the weights of PyTorch's reference attention.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.ops.softmax_family import safe_softmax
    >>> safe_softmax(symgrad.tensor([[0.0, 0.0], [-float("inf"), -float("inf")]]), -1)
    tensor([[0.5000, 0.5000],
            [0.0000, 0.0000]])
    """
    input, d = _softmax_dim(input, dim, None, "_safe_softmax")
    return _SAFE_SOFTMAX(input, dim=(d,) if input.ndim else None)


def implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's deprecated choice of dimension for ``nn.functional``'s ``name`` called
    without ``dim`` (0 for 0-, 1- and 3-dimensional inputs, else 1), with its warning
    (``stacklevel`` counted from this function, as PyTorch's ``_get_softmax_dim``)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include "
        "dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_dim(input: Tensor, dim: Any, dtype: Any, op: str) -> tuple[Tensor, int]:
    if dim is None:
        raise TypeError(f'{op}() missing 1 required positional arguments: "dim"\n(e.g. dim=-1)')
    if dtype is not None:
        input = input.to(dtypes.as_dtype(dtype, op))
    d = _wrap_dim(dim, input._data.ndim)
    if input._data.dtype.kind != "f":
        # the name of the ATen CPU kernel that refuses it: one for the last dim, one for others
        kernel = "log_softmax" if op == "log_softmax" else "softmax"
        kernel += "_lastdim" if d == max(input._data.ndim - 1, 0) else ""
        raise NotImplementedError(
            f"\"{kernel}_kernel_impl\" not implemented for '{input.dtype.scalar_type}'\n"
            f"(softmax and log_softmax are not implemented for {input.dtype!r} tensors; pass "
            "dtype=symgrad.float32 (or float64), or convert with .float())"
        )
    return input, d


def softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """``exp(input) / sum(exp(input), dim)``, computed without overflow."""
    if type(input) is not Tensor:
        require_tensor("softmax", "input", 1, input)
    input, d = _softmax_dim(input, dim, dtype, "softmax")
    return _SOFTMAX(input, dim=(d,) if input.ndim else None, saved_as=shown(dim=dim))


def log_softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """``input - logsumexp(input, dim)``, computed without overflow."""
    if type(input) is not Tensor:
        require_tensor("log_softmax", "input", 1, input)
    input, d = _softmax_dim(input, dim, dtype, "log_softmax")
    return _LOG_SOFTMAX(input, dim=(d,) if input.ndim else None, saved_as=shown(dim=dim))
