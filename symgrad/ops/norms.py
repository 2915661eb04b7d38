"""Vector norms: the 2-norm and every other p, each one ``LinalgVectorNormBackward0`` node;
``norm``'s matrix norms ('nuc', 'fro' over two dims) by a string p."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops import elementwise as E
from symgrad.ops.decompositions import svdvals
from symgrad.ops.reduced_dtype import converted
from symgrad.ops.reductions import _dims, _empty_dim, _unsqueezed
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor, _wrap_dim

__all__ = ["norm"]


def norm(
    input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """The vector p-norm over ``dim`` (all elements by default); 'fro' is the 2-norm, 'nuc'
    (or 'fro' over more than two dims) a matrix norm over two dims, as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> m = symgrad.tensor([[3.0, 0.0], [0.0, 4.0]])
    >>> m.norm(), m.norm("nuc"), m.norm(1, dim=0)
    (tensor(5.), tensor(7.), tensor([3., 4.]))
    """
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype, "norm")
    if isinstance(p, str) and not (p == "fro" and _at_most_two(dim)):
        return _matrix_norm(input, p, dim, keepdim, dtype)
    return vector(input, p, dim, keepdim, norm_dtype("linalg.vector_norm", input, dtype))


def vector(input: Tensor, p: Any, dim: Any, keepdim: bool, converts: Any = None) -> Tensor:
    """The vector ``p``-norm, one ``LinalgVectorNormBackward0`` node that converts the input
    to the NumPy dtype ``converts`` first (a ``dtype=``; None: none)."""
    extra = {} if converts is None else {"dtype": converts}
    if p in ("fro", 2, 2.0, None):
        return _NORM2(input, dim=_dims(input, dim), keepdim=bool(keepdim), **extra)
    order = int(p) if isinstance(p, bool) else p  # PyTorch reads a bool p as the number it is
    if not isinstance(order, (int, float)) or math.isnan(order):
        raise ValueError(f"norm: p must be a number, inf, -inf, 'fro' or 'nuc', got {p!r}")
    if order < 0 or math.isinf(order):
        _check_identity(input, order, dim)
    return _NORM_P(input, order=order, dim=_dims(input, dim), keepdim=bool(keepdim), **extra)


def _at_most_two(dim: Any) -> bool:
    return dim is None or isinstance(dim, int) or len(dim) <= 2


def _floating(op: str, input: Tensor, dtype: Any) -> None:
    """PyTorch's errors for a norm of an integer tensor, or one asked for in an integer dtype."""
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"{op}: Expected a floating point or complex tensor as input. Got "
            f"{input.dtype.scalar_type}"
        )
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError(
            f"{op}: dtype should be floating point or complex, but got {dtype.scalar_type}"
        )


def norm_dtype(op: str, input: Tensor, dtype: Any) -> Any:
    """The NumPy dtype a norm's node converts ``input`` to for its ``dtype=`` (None where it
    is the input's), with PyTorch's errors: an integer input or dtype, or a dtype the
    input's would narrow to (float64 to float32)."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype, op)
    _floating(op, input, dtype)
    if dtype is None or dtype is input.dtype:
        return None
    if dtypes.promote_types(input.dtype, dtype) is not dtype:
        raise RuntimeError(
            f"{op}: the dtype of the input ({input.dtype.scalar_type}) should be convertible "
            f"without narrowing to the specified dtype ({dtype.scalar_type})"
        )
    return np.dtype(dtype.numpy)


def in_dtype(op: str, input: Tensor, dtype: Any) -> Tensor:
    """``input`` converted to a norm's ``dtype=`` (a recorded conversion, as PyTorch's nuclear
    and spectral norms make), with :func:`norm_dtype`'s errors."""
    converts = norm_dtype(op, input, dtype)
    return input if converts is None else input.to(dtypes.from_numpy_dtype(converts))


def _matrix_norm(input: Tensor, p: str, dim: Any, keepdim: bool, dtype: Any) -> Tensor:
    """``norm`` with a string ``p``: the Frobenius or nuclear norm of the matrices over the
    two dims ``dim`` (by default every dim, so only a 2-D input has a default)."""
    op = "linalg.matrix_norm"
    if p not in ("fro", "nuc"):
        raise RuntimeError(f"{op}: Order {p} not supported.")
    if input.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else dim
    if len(dims) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    d0, d1 = (_wrap_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({d0}, {d1})")
    _floating(op, input, dtype)
    if p == "nuc" and input.dtype.itemsize < 4:  # (PyTorch checks before dtype)
        raise RuntimeError(
            f"{op}: Low precision dtypes not supported. Got {input.dtype.scalar_type}"
        )
    if p == "fro":
        return vector(input, 2, (d0, d1), keepdim, norm_dtype(op, input, dtype))
    input = in_dtype(op, input, dtype)
    # the sum of the singular values, with the two dims moved last
    order = [d for d in range(input.ndim) if d not in (d0, d1)] + [d0, d1]
    out = svdvals(input.permute(order)).sum(-1, keepdim=keepdim)
    if keepdim:
        out = out.unsqueeze(-1).permute([order.index(d) for d in range(input.ndim)])
    return out


def _check_identity(input: Tensor, order: float, dim: Any) -> None:
    """PyTorch's error for a norm with no value on nothing (inf takes a maximum, a negative p
    a power of an empty sum's 0), when a reduced dimension is empty."""
    if input.numel():
        return
    p = f"{int(order)}" if float(order).is_integer() else f"{order}"
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
        where = "an empty tensor because"
    else:
        empty = _empty_dim(input, dim)
        if empty is None:
            return
        # (PyTorch's message runs the dimension into "because")
        where = f"the dimension {empty}because this dimension is empty and"
    raise RuntimeError(
        f"linalg.vector_norm cannot compute the {p} norm on {where} the operation does not "
        f"have an identity\n(input shape {list(input.shape)}: reduce over a non-empty dim)"
    )


def _accumulated(a: Any) -> Any:
    """``a`` in the type its norm sums in: float32 for float16, as PyTorch's CPU kernels
    (squares of float16 overflow from 256 on)."""
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _norm2_kernel(xp: Any, a: Any, dim: Any, keepdim: bool, dtype: Any = None) -> Any:
    a = converted(xp, a, dtype)
    if _one_each(a, dim):
        return _absolute(a, dim, keepdim)
    w = _accumulated(a)
    return np.sqrt(np.sum(w * w, axis=dim, keepdims=keepdim)).astype(np.asarray(a).dtype)


def _norm_p_kernel(
    xp: Any, a: Any, order: float, dim: Any, keepdim: bool, dtype: Any = None
) -> Any:
    a = converted(xp, a, dtype)
    if order != 0 and _one_each(a, dim):
        return _absolute(a, dim, keepdim)
    return _norm_p_wide(_accumulated(a), order, dim, keepdim).astype(np.asarray(a).dtype)


def _one_each(a: Any, dim: Any) -> bool:
    """Whether each norm is over one element (then PyTorch's is its absolute value: no power
    that could overflow, underflow or round)."""
    a = np.asarray(a)
    if not a.size:
        return False
    return a.size == 1 if dim is None else all(a.shape[d] == 1 for d in dim)


def _absolute(a: Any, dim: Any, keepdim: bool) -> np.ndarray:
    m = np.abs(np.asarray(a))
    if keepdim:
        return m
    return m.reshape(()) if dim is None else m.squeeze(axis=dim)


def _norm_p_wide(a: np.ndarray, order: float, dim: Any, keepdim: bool) -> Any:
    m = np.abs(a)
    if math.isinf(order):
        pick = np.max if order > 0 else np.min
        return np.asarray(pick(m, axis=dim, keepdims=keepdim))
    if order == 0:
        return np.asarray(np.sum(m != 0, axis=dim, keepdims=keepdim), dtype=m.dtype)
    if order == 1:
        return np.asarray(np.sum(m, axis=dim, keepdims=keepdim))
    return np.asarray(np.sum(m**order, axis=dim, keepdims=keepdim) ** (1 / order))


def _norm_p(xp: Any, a: Any, order: float, dim: Any, keepdim: bool, dtype: Any = None) -> Any:
    m = xp.abs(converted(xp, a, dtype))
    if math.isinf(order):
        return xp.extremum(m, dim, keepdim, np.argmax if order > 0 else np.argmin)
    if order == 0:
        return xp.sum(xp.sign(m), dim, keepdim)  # 1 for each non-zero element
    if order == 1:
        return xp.sum(m, dim, keepdim)
    powered = xp.sum(xp.elementwise(E.POW, (m,), (order,)), dim, keepdim)
    return xp.elementwise(E.POW, (powered,), (1 / order,))


def _norm_p_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # PyTorch's rules (linalg_vector_norm_backward, written with its ops for create_graph),
    # with its 0 where the norm is 0
    x, order = c.inputs[0], c.params["order"]
    if order == 0:  # piecewise constant: PyTorch sends no gradient at all (x.grad stays None)
        return (None,)
    g = _unsqueezed(g, c, xp)
    if order == 1:
        return (xp.sgn(x) * g,)
    out = _unsqueezed(c.out, c, xp)
    m = xp.abs(x)
    if math.isinf(order):  # amax's rule on |x| (ties share the gradient), the nans included
        mask = xp.eq(m, out) | ~xp.eq(m, m)
        scaled = g / xp.count(mask, c.params["dim"], True)
        return (xp.sgn(x) * (scaled * (mask * 1)),)  # (the mask as numbers for SymPy)
    if order < 1:
        scaled = xp.sgn(x) * xp.masked_fill(_power(xp, m, order - 1), xp.eq(x, 0), 0.0)
        return (scaled * _as_x(g, x) * _as_x(_power(xp, out, 1 - order), x),)
    scale = _as_x(xp.masked_fill(g / _power(xp, out, order - 1), xp.eq(out, 0), 0.0), x)
    if order < 2:
        return (xp.sgn(x) * _power(xp, m, order - 1) * scale,)
    return (x * _power(xp, m, order - 2) * scale,)


def _as_x(a: Any, x: Any) -> Any:
    """``a``, a NumPy array of no dimensions, in the dtype of the array ``x`` (of some), as
    PyTorch's type promotion makes it meeting ``x``: a norm over every element asked for a
    wider ``dtype=`` has its gradient computed in the input's dtype, by a factor rounded to
    it. Any other value as it is."""
    if type(a) is np.ndarray and type(x) is np.ndarray and a.ndim == 0 < x.ndim:
        return a if a.dtype == x.dtype else a.astype(x.dtype)
    return a


def _power(xp: Any, a: Any, exponent: float) -> Any:
    return xp.elementwise(E.POW, (a,), (exponent,))


_NORM_P = Structural(
    "norm",
    _norm_p,
    _norm_p_vjp,
    saves=(0,),
    saves_out=True,
    backward="LinalgVectorNormBackward0",
    kernel=_norm_p_kernel,
    batch="reduction",
    rows=True,
)


def _norm2_forward(xp: Any, a: Any, dim: Any, keepdim: bool, dtype: Any = None) -> Any:
    a = converted(xp, a, dtype)
    return xp.sqrt(xp.sum(a * a, dim, keepdim))


def _norm2_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # PyTorch's rule: 0 where the norm is 0 (the zero vector, or a norm that underflowed);
    # the masked g / 0 makes the second derivative there nan, as in PyTorch
    x, out = c.inputs[0], _unsqueezed(c.out, c, xp)
    ratio = xp.masked_fill(x / _as_x(out, x), xp.eq(out, 0), 0.0)
    return (_as_x(_unsqueezed(g, c, xp), x) * ratio,)


def _norm2_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """PyTorch's tangent of the 2-norm, ``<x, t> / |x|``: 0 where the norm is 0 (a zero
    vector), not the nan of differentiating the square root there."""
    (t,) = tangents
    if t is None:
        return None
    dot = xp.sum(c.inputs[0] * t, c.params["dim"], c.params["keepdim"])
    return xp.where(xp.eq(c.out, 0), 0.0, dot / c.out)


_NORM2 = Structural(
    "norm",
    _norm2_forward,
    _norm2_vjp,
    saves=(0,),
    saves_out=True,
    jvp=_norm2_jvp,
    backward="LinalgVectorNormBackward0",
    kernel=_norm2_kernel,
    batch="reduction",
    rows=True,
)


def _as_node(prim: Structural, backward: str) -> Structural:
    return Structural(
        prim.name,
        prim.forward,
        prim.vjp,
        saves=prim.saved_inputs,
        saves_out=prim.saves_out,
        jvp=prim.jvp_rule,
        backward=backward,
        kernel=prim.kernel,
        batch=prim.batch,
        rows=prim.rows,
    )


# ATen's own at::norm (pairwise_distance calls it) records NormBackward1, not the
# LinalgVectorNormBackward0 of torch.norm; the rule is the same
_NORM2_AT = _as_node(_NORM2, "NormBackward1")
_NORM_P_AT = _as_node(_NORM_P, "NormBackward1")


def at_norm(input: Tensor, p: float, dim: int, keepdim: bool) -> Tensor:
    """The p-norm over one ``dim``, recorded as ATen's ``norm`` (``NormBackward1``)."""
    dims = _dims(input, dim)
    if p == 2:
        return _NORM2_AT(input, dim=dims, keepdim=bool(keepdim))
    return _NORM_P_AT(input, order=float(p), dim=dims, keepdim=bool(keepdim))
