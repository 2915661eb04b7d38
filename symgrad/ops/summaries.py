"""Comparisons and summaries: ``isclose``, ``allclose``, ``equal``, ``count_nonzero`` (no
gradients), ``nansum``/``nanmean`` (nan counted as absent), ``var_mean``, ``std_mean`` and
``aminmax``."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_float, require_python_bool, require_tensor
from symgrad._data import _wrap_dim, check_broadcast, distinct_dims
from symgrad._memory_format import row_major
from symgrad.ops.reduced_dtype import converted, grad_in_input_dtype, kernel_dtype
from symgrad.ops.reductions import _dims, _extremum_vjp
from symgrad.ops.shown import shown, shown_dims
from symgrad.ops.variance import std_mean, var_mean
from symgrad.prim import batching
from symgrad.prim.factorization import Factorization
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = [
    "isclose",
    "allclose",
    "equal",
    "count_nonzero",
    "nansum",
    "nanmean",
    "var_mean",
    "std_mean",
    "aminmax",
]


def _pair(input: Any, other: Any, op: str) -> tuple:
    for name, t in (("input", input), ("other", other)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    return input._data, other._data


def isclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    """``|input - other| <= atol + rtol * |other|`` element-wise (infinities equal to
    themselves; nan to nan only with ``equal_nan``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.isclose(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0 + 1e-9, 2.1]))
    tensor([ True, False])
    """
    a, b = _pair(input, other, "isclose")
    rtol, atol = (_tolerance(name, t) for name, t in (("rtol", rtol), ("atol", atol)))
    if type(equal_nan) is not bool:
        require_python_bool("isclose", "equal_nan", equal_nan, position=None)
    if input.dtype is not other.dtype:
        raise RuntimeError(
            f"{input.dtype.scalar_type} did not match {other.dtype.scalar_type}: isclose "
            "compares tensors of one dtype; convert one with .to(other.dtype)"
        )
    check_broadcast("isclose", [a, b])  # PyTorch's RuntimeError, not NumPy's ValueError
    if a.dtype.kind == "b" and b.dtype.kind == "b":
        return Tensor._make(np.asanyarray(a == b))
    with np.errstate(invalid="ignore"):
        return Tensor._make(
            np.asanyarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
        )


def _tolerance(name: str, value: Any) -> Any:
    """A tolerance of ``isclose``: a number, or a one-element tensor's (PyTorch's TypeError
    for anything else: ``x.isclose(y, z)`` gives no tensor of tolerances)."""
    if type(value) is float:
        return value
    require_float("isclose", name, value)
    return value.item() if isinstance(value, Tensor) else value


def allclose(
    input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> bool:
    """Whether every element of ``input`` is close to ``other``'s (see :func:`isclose`)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether the two tensors have the same shape and the same elements."""
    a, b = _pair(input, other, "equal")
    return a.shape == b.shape and bool(np.array_equal(a, b))


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """The number of non-zero elements (along ``dim``), as ``int64``."""
    if type(input) is not Tensor:
        require_tensor("count_nonzero", "input", 1, input)
    if batching.any_batched(input):  # inside vmap: the whole batch at once
        count = lambda a, axis: np.count_nonzero(a, axis=axis)  # noqa: E731
        return batching.on_values(input, count, dim).to(dtypes.int64)
    # no dims (None or an empty tuple) counts over all of them, as PyTorch
    axis = tuple(_wrap_dim(d, input.ndim) for d in np.atleast_1d(() if dim is None else dim))
    distinct_dims(axis)
    axis = axis if axis and input.ndim else None  # a 0-d tensor's dim 0 is all of it
    counts = np.count_nonzero(input._data, axis=axis)
    return Tensor._make(np.asanyarray(counts, dtype=np.int64, order="C"))


def _nansum_forward(
    xp: Any,
    a: Any,
    dim: Any,
    keepdim: bool,
    present: np.ndarray,
    dtype: Any = None,
    saved_as: tuple = (),
) -> Any:
    zeros = xp.constant(np.zeros(present.shape))
    return xp.sum(xp.where(xp.constant(present), converted(xp, a, dtype), zeros), dim, keepdim)


def _nansum_kernel(
    xp: Any,
    a: Any,
    dim: Any,
    keepdim: bool,
    present: np.ndarray,
    dtype: Any = None,
    saved_as: tuple = (),
) -> Any:
    return np.nansum(converted(xp, a, dtype), axis=dim, keepdims=keepdim)


def _nansum_vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = c.params
    dims = range(len(c.shapes[0])) if p["dim"] is None else p["dim"]
    if not p["keepdim"]:
        for d in sorted(dims):
            g = xp.unsqueeze(g, d)
    g = xp.expand(g, c.shapes[0])
    return (g * xp.constant(p["present"].astype(np.float64)),)


_NANSUM = Structural(
    "nansum",
    _nansum_forward,
    grad_in_input_dtype(_nansum_vjp),
    saves=(0,),  # (unread: PyTorch's node saves it, so changing it in place is an error)
    backward="NansumBackward0",
    kernel=_nansum_kernel,
    # the sum of the tangents where the values are not nan (PyTorch's; a nan tangent there
    # stays nan): the kernel's own nansum of the tangents would read the tangents' nan instead
    jvp=lambda xp, tangents, c: _nansum_forward(xp, tangents[0], **c.params),
    rows=True,
)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The sum with nan counted as 0 (no gradient to the nan elements).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.nansum(symgrad.tensor([1.0, float("nan"), 2.0]))
    tensor(3.)
    """
    if type(input) is not Tensor:
        require_tensor("nansum", "input", 1, input)
    dtype = None if dtype is None else dtypes.as_dtype(dtype, "nansum")
    converts = None if dtype is None else kernel_dtype(input, dtype)
    if converts is None and dtype is not None:
        input = input.to(dtype)
    if not input.dtype.is_floating_point:
        from symgrad.ops.reductions import sum as _sum

        return _sum(input, dim, keepdim, dtype=dtype)
    present = ~np.isnan(input._data)
    dims, keepdim = _dims(input, dim), bool(keepdim)
    params = {"dim": dims, "keepdim": keepdim, "present": present, **shown_dims(dim)}
    if converts is not None:  # converted by the node itself, as PyTorch's
        return _NANSUM(input, **params, dtype=converts)
    out = _NANSUM(input, **params)
    return out.to(input.dtype) if out.dtype != input.dtype else out


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """The mean of the elements that are not nan (``nansum / count``, as PyTorch; the sum in
    ``dtype`` when given).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0, float("nan"), 3.0]).nanmean()
    tensor(2.)
    """
    if type(input) is not Tensor:
        require_tensor("nanmean", "input", 1, input)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got "
            f"{input.dtype.scalar_type}"
        )
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype, "nanmean")
        if not dtype.is_floating_point:
            raise RuntimeError(
                "nanmean(): could not infer output dtype. Optional dtype must be either a "
                f"floating point or complex dtype. Got: {dtype.scalar_type}"
            )
    # PyTorch's count is an int64 tensor, so the quotient keeps the sum's dtype
    present = np.sum(~np.isnan(input._data), axis=_dims(input, dim), keepdims=keepdim)
    count = Tensor._make(np.asarray(present, dtype=np.int64))
    return nansum(input, dim, keepdim, dtype=dtype) / count


class _Aminmax(NamedTuple):
    min: Tensor
    max: Tensor

    def __repr__(self) -> str:
        return f"symgrad.return_types.aminmax(\nmin={self.min!r},\nmax={self.max!r})"


def _aminmax_kernel(a: np.ndarray, dim: Any, keepdim: bool, saved_as: tuple = ()) -> tuple:
    return tuple(row_major(np.asarray(f(a, axis=dim, keepdims=keepdim))) for f in (np.min, np.max))


def _aminmax_forward(xp: Any, a: Any, dim: Any, keepdim: bool, saved_as: tuple = ()) -> tuple:
    return tuple(xp.extremum(a, dim, keepdim, pick) for pick in (np.argmin, np.argmax))


def _aminmax_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    """amin's rule for the first gradient plus amax's for the second (ties share each)."""
    total = None
    for g, out in zip(grads, c.out):
        if g is not None:
            (part,) = _extremum_vjp(xp, g, Ctx(c.inputs, out, c.shapes, c.needs, c.params))
            total = part if total is None else total + part
    return (total,)


_AMINMAX = Factorization(
    "aminmax",
    _aminmax_kernel,
    _aminmax_vjp,
    backward="AminmaxBackward0",
    n_outputs=2,
    forward=_aminmax_forward,
)


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """``(min, max)`` of ``input`` (along ``dim``), one node for both (``AminmaxBackward0``);
    ties share each output's gradient evenly, as PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[1.0, 5.0], [4.0, 2.0]], requires_grad=True)
    >>> low, high = symgrad.aminmax(x, dim=1)
    >>> (low + 10 * high).sum().backward()
    >>> low, x.grad
    (tensor([1., 2.], grad_fn=<AminmaxBackward0>), tensor([[ 1., 10.],
            [10.,  1.]]))
    """
    if type(input) is not Tensor:
        require_tensor("aminmax", "input", 1, input)
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, (int, np.integer))):
        raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
    if input.numel() == 0:
        if dim is None:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation "
                "has no identity (the input is empty: give a dim of nonzero size)"
            )
        d = _wrap_dim(dim, input.ndim)
        if input.ndim and input.shape[d] == 0:
            raise IndexError(
                f"aminmax: Expected reduction dim {d} to have non-zero size (the input's shape "
                f"is {list(input.shape)})"
            )
    if dim is not None and input.ndim == 0:
        _wrap_dim(dim, 0)  # (a 0-d tensor's one dim is 0 or -1: PyTorch's IndexError else)
    axes = None if dim is None or input.ndim == 0 else (_wrap_dim(dim, input.ndim),)
    shows = {} if dim is None else {"saved_as": shown(dim=dim)}
    return _Aminmax(*_AMINMAX(input, dim=axes, keepdim=bool(keepdim), **shows))
