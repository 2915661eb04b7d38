"""Scans along a dimension: ``cumsum``, ``cumprod``, ``logcumsumexp``, ``cummax``, ``cummin``,
with PyTorch's node names and dtypes (integers and bools sum to ``int64``).

``cumprod``'s gradient is exact where the input has zeros: for element ``i``, the product of
the elements before it times ``S_i = g_i + x_{i+1} S_{i+1}`` (the gradients after it carried
back through the products), with no division. ``logcumsumexp``'s is PyTorch's: the positive
and the negative incoming gradients apart, each through a reversed log-domain scan, so its
graph (a ``SubBackward0`` of two exponentials) and its numbers are PyTorch's; symbolically it
is carried back as ``S_i = g_i + exp(out_i - out_{i+1}) S_{i+1}`` times ``exp(x_i - out_i)``.
An element of ``-inf`` gets 0 (a leading run of them, whose outputs are ``-inf`` too, gets
nan, as in PyTorch)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad._data import _wrap_dim
from symgrad.autograd import dual
from symgrad.ops.cumprod_zeros import cumprod_gradient_with_zeros
from symgrad.ops.operand_checks import zero_count
from symgrad.ops.reduced_dtype import converted, grad_in_input_dtype, kernel_dtype
from symgrad.ops.reductions import _pick_forward, picked, picked_itself
from symgrad.ops.shown import shown
from symgrad.prim import batching as _batching
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.numpy_xp import NP, half_rule_in_float32
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["cumsum", "cumprod", "logcumsumexp", "cummax", "cummin"]


def _scalar_as_row(scan: Any) -> Any:
    """``scan(xp, a, dim)`` that takes a 0-d ``a`` as one row of one element, so a 0-d
    tensor's scan is one node on it, as PyTorch's (no reshapes around it)."""

    def scan_of(xp: Any, a: Any, dim: int, dtype: Any = None) -> Any:
        a = converted(xp, a, dtype)
        if len(a.shape):
            return scan(xp, a, dim)
        return xp.reshape(scan(xp, xp.reshape(a, (1,)), 0), ())

    return scan_of


def _scalar_passes(vjp: Any) -> Any:
    """``vjp`` that passes the gradient of a scan of one element through (PyTorch's)."""

    def vjp_of(xp: Any, g: Any, c: Any) -> tuple:
        return (g,) if not len(c.shapes[0]) else vjp(xp, g, c)

    return vjp_of


def _cumsum_vjp(xp: Any, g: Any, c: Any) -> tuple:
    dim = c.params["dim"]
    return (xp.flip(xp.cumsum(xp.flip(g, (dim,)), dim), (dim,)),)


_CUMSUM = Structural(
    "cumsum",
    _scalar_as_row(lambda xp, a, dim: xp.cumsum(a, dim)),
    grad_in_input_dtype(_scalar_passes(_cumsum_vjp)),
    backward="CumsumBackward0",
    jvp="linear",
    batch="reduction",
    rows=True,
    shows=True,
)


def _scan_dtype(input: Tensor, dtype: Any) -> Any:
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    return dtypes.int64 if not input.dtype.is_floating_point else None


_KIND = {"cumsum": "sums", "cumprod": "products"}


def _prepare(input: Tensor, dim: Any, dtype: Any, name: str) -> tuple:
    d = _wrap_dim(dim, max(input.ndim, 1))
    target = _scan_dtype(input, dtype)
    if target is dtypes.bool_:
        raise NotImplementedError(
            f"\"{name}_out_cpu\" not implemented for 'Bool': running {_KIND[name]} of bools "
            "have no bool result; leave dtype out for int64 counts"
        )
    converts = None if target is None else kernel_dtype(input, target)
    if converts is not None or target is None or target == input.dtype:
        x = input  # (converted by the node itself, as PyTorch's)
    else:
        x = input.to(target)
    if x.ndim == 0 and _batching.any_batched(x):  # the batch's dimension is not a scan's
        x = x.reshape(1)
    return x, d, converts


def _converting(dtype: Any) -> dict:
    return {} if dtype is None else {"dtype": dtype}


def cumsum(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running sums along ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0, 2.0, 3.0]).cumsum(0)
    tensor([1., 3., 6.])
    """
    if type(input) is not Tensor:
        require_tensor("cumsum", "input", 1, input)
    x, d, converts = _prepare(input, dim, dtype, "cumsum")
    out = _CUMSUM(x, dim=d, **_converting(converts), saved_as=shown(dim=dim))
    # NumPy's running sums of small integers are int64
    if converts is None and out.dtype != x.dtype:
        out = out.to(x.dtype)
    return out.reshape(()) if input.ndim == 0 and out.ndim else out


def _cumprod_forward(xp: Any, a: Any, dim: int) -> Any:
    """Products of the elements up to each one, as a chain of products (for SymPy)."""
    n = a.shape[dim]
    pieces, running = [], None
    for i in range(n):
        key = (slice(None),) * dim + (slice(i, i + 1),)
        item = xp.getitem(a, key)
        running = item if running is None else running * item
        pieces.append(running)
    return xp.cat(pieces, dim) if pieces else a


# PyTorch's running products and log-sum-exps accumulate float16 in float32 and float32 in
# float64, each output rounded once (so a product that leaves float32's range comes back)
_WIDER = {np.dtype(np.float16): np.float32, np.dtype(np.float32): np.float64}


def _running_products(a: np.ndarray, dim: int) -> np.ndarray:
    wider = _WIDER.get(a.dtype)
    if wider is None:
        return np.cumprod(a, axis=dim)
    return np.cumprod(a, axis=dim, dtype=wider).astype(a.dtype)


def _cumprod_vjp(xp: Any, g: Any, c: Any) -> tuple:
    x, out, dim = c.inputs[0], c.out, c.params["dim"]
    n = x.shape[dim]
    if 0 in tuple(x.shape):  # PyTorch passes an empty input's gradient through as it is
        return (g,)

    zeros = zero_count(x)
    if n > 1 and zeros == 0:  # PyTorch's rule without zeros: nan at an infinity
        return (xp.flip(xp.cumsum(xp.flip(out * g, (dim,)), dim), (dim,)) / x,)
    if n > 1 and xp is NP:  # (outside create_graph, PyTorch's own rule with zeros)
        return (_gradient_with_zeros(g, x, out, dim),)
    recorded = xp is INTERPRETERS.tensor and type(g) is Tensor and type(x) is Tensor
    if n > 1 and recorded and not dual.active():  # (it writes into views: no tangents)
        return (cumprod_gradient_with_zeros(xp, g, x, dim),)

    def at(a: Any, i: int) -> Any:
        return xp.getitem(a, (slice(None),) * dim + (slice(i, i + 1),))

    carried = [at(g, n - 1)]
    for i in range(n - 2, -1, -1):
        carried.append(at(g, i) + at(x, i + 1) * carried[-1])
    after = xp.cat(carried[::-1], dim)
    if n == 1:
        return (after,)
    before = xp.cat(
        [xp.constant(np.ones(tuple(at(x, 0).shape))), *[at(out, i) for i in range(n - 1)]], dim
    )
    return (before * after,)


def _gradient_with_zeros(g: Any, x: Any, out: Any, dim: int) -> Any:
    """PyTorch's cumprod_backward outside grad mode for an input holding zeros: along each
    line, before its first zero the rule without zeros; at it the gradients after it carried
    back through the products up to its second zero, times the product before it; 0 after.
    (An infinity before a zero gives nan, as PyTorch's, where the exact products differ.)"""
    w = out * g
    zeros_so_far = np.cumsum(x == 0, axis=dim)
    before = zeros_so_far == 0
    carried = np.flip(np.cumsum(np.flip(np.where(before, w, 0), dim), axis=dim), dim)
    with np.errstate(divide="ignore", invalid="ignore"):
        grad = np.where(before, carried / x, 0).astype(g.dtype)
    between = zeros_so_far == 1
    first = np.argmax(between, axis=dim).reshape(_kept_shape(x.shape, dim))
    at_first = np.zeros(x.shape, bool)
    np.put_along_axis(at_first, first, True, axis=dim)
    at_first &= between
    between &= ~at_first
    after = np.cumprod(np.where(between, x, 1), axis=dim) * np.where(zeros_so_far != 1, 0, g)
    prior = np.take_along_axis(out, np.maximum(first - 1, 0), axis=dim)
    total = after.sum(axis=dim, keepdims=True) * np.where(first == 0, 1, prior)
    return np.where(at_first, total, grad).astype(g.dtype)


def _kept_shape(shape: tuple, dim: int) -> tuple:
    return tuple(1 if i == dim else n for i, n in enumerate(shape))


_CUMPROD = Structural(
    "cumprod",
    _scalar_as_row(_cumprod_forward),
    # float16 in float32, as PyTorch's running products and the sums of its gradient
    grad_in_input_dtype(_scalar_passes(half_rule_in_float32(_cumprod_vjp))),
    saves=(0,),
    saves_out=True,
    backward="CumprodBackward0",
    kernel=_scalar_as_row(lambda xp, a, dim: _running_products(a, dim)),
    batch="reduction",
    rows=True,
    shows=True,
)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running products along ``dim`` (gradient exact with zeros in the input).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([2.0, 0.0, 3.0]).cumprod(0)
    tensor([2., 0., 0.])
    """
    if type(input) is not Tensor:
        require_tensor("cumprod", "input", 1, input)
    x, d, converts = _prepare(input, dim, dtype, "cumprod")
    out = _CUMPROD(x, dim=d, **_converting(converts), saved_as=shown(dim=dim))
    # NumPy's running products of small integers are int64
    if converts is None and out.dtype != x.dtype:
        out = out.to(x.dtype)
    return out.reshape(()) if input.ndim == 0 and out.ndim else out


def _at(xp: Any, a: Any, dim: int, i: int) -> Any:
    return xp.getitem(a, (slice(None),) * dim + (slice(i, i + 1),))


def _decay(xp: Any, out: Any, dim: int, i: int) -> Any:
    """``exp(out_i - out_{i+1})``, at most 1: how much of the running sum at ``i`` is left in
    the one at ``i + 1`` (1 where both are the same infinity)."""
    before, after = _at(xp, out, dim, i), _at(xp, out, dim, i + 1)
    return xp.where(xp.eq(before, after), 1.0, xp.exp(before - after))


def _running_logaddexp(a: np.ndarray, dim: int) -> np.ndarray:
    """One log-add-exp after another (PyTorch's order of operations)."""
    if not a.ndim:
        return a.copy()
    wider = _WIDER.get(a.dtype)
    if wider is None:
        return np.logaddexp.accumulate(a, axis=dim)
    return np.logaddexp.accumulate(a.astype(wider), axis=dim).astype(a.dtype)


def _logcumsumexp_vjp(xp: Any, g: Any, c: Any) -> tuple:
    x, out, dim = c.inputs[0], c.out, c.params["dim"]
    if x.ndim == 0 or 0 in x.shape:  # PyTorch passes the gradient of these on as it is
        return (g,)
    if xp is NP or (xp is INTERPRETERS.tensor and type(g) is not BatchedTensor):
        return (_signed_reverse_scans(xp, g, x, out, dim),)
    n = x.shape[dim]
    carried = [_at(xp, g, dim, n - 1)]
    for i in range(n - 2, -1, -1):
        carried.append(_at(xp, g, dim, i) + _decay(xp, out, dim, i) * carried[-1])
    return (xp.exp(x - out) * xp.cat(carried[::-1], dim),)


def _signed_reverse_scans(xp: Any, g: Any, x: Any, out: Any, dim: int) -> Any:
    """PyTorch's logcumsumexp_backward: ``exp(x_i + log sum_{k >= i} exp(log g_k - out_k))``
    for the positive and the negative gradients apart (the lowest finite number for the log
    of a gradient of the other sign), the second taken from the first. Its graph and
    numbers are PyTorch's: a gradient of the sum is exactly constant, so its derivative 0."""
    dtype = g._data.dtype if isinstance(g, Tensor) else g.dtype
    lowest = xp.constant(np.array(np.finfo(dtype).min, dtype))
    with np.errstate(divide="ignore"):
        log_abs = xp.log(xp.abs(g))

    def reversed_scan(log_g: Any) -> Any:
        a = xp.flip(log_g - out, (dim,))
        scanned = _running_logaddexp(a, dim) if xp is NP else _LOGCUMSUMEXP(a, dim=dim)
        return xp.exp(xp.flip(scanned, (dim,)) + x)

    positive = reversed_scan(xp.where(g > 0, log_abs, lowest))
    return positive - reversed_scan(xp.where(g < 0, log_abs, lowest))


def _logcumsumexp_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """``sum_{j <= i} exp(x_j - out_i) t_j``, carried forward as the gradient is back."""
    x, out, dim = c.inputs[0], c.out, c.params["dim"]
    if x.ndim == 0:
        return tangents[0]
    n = x.shape[dim]
    weighted = xp.exp(x - out) * tangents[0]
    if n == 0:
        return weighted
    carried = [_at(xp, weighted, dim, 0)]
    for i in range(1, n):
        carried.append(_at(xp, weighted, dim, i) + _decay(xp, out, dim, i - 1) * carried[-1])
    return xp.cat(carried, dim)


_LOGCUMSUMEXP = Structural(
    "logcumsumexp",
    lambda xp, a, dim, saved_as=(): a if a.ndim == 0 else xp.log(xp.cumsum(xp.exp(a), dim)),
    half_rule_in_float32(_logcumsumexp_vjp),
    saves=(0,),
    saves_out=True,
    backward="LogcumsumexpBackward0",
    # one log-add-exp after another, PyTorch's order of operations (float16 in float32)
    kernel=lambda xp, a, dim, saved_as=(): _running_logaddexp(a, dim),
    jvp=_logcumsumexp_jvp,
    batch="reduction",
    rows=True,
)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input), dim))`` without overflow (floating tensors only).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([0.0, 0.0, 1000.0, float("-inf")]).logcumsumexp(0)
    tensor([0.0000e+00, 6.9315e-01, 1.0000e+03, 1.0000e+03])
    """
    if type(input) is not Tensor:
        require_tensor("logcumsumexp", "input", 1, input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"logcumsumexp_out_cpu\" not implemented for '{input.dtype.scalar_type}'; "
            "convert the tensor with .double() or .float()"
        )
    d = _wrap_dim(dim, max(input.ndim, 1))
    if input.ndim == 0 and _batching.any_batched(input):  # the batch's dimension is not a scan's
        return _LOGCUMSUMEXP(input.reshape(1), dim=0).reshape(())
    return _LOGCUMSUMEXP(input, dim=d, saved_as=shown(dim=dim))


class _CumExtremum(NamedTuple):
    values: Tensor
    indices: Tensor

    def __repr__(self) -> str:
        return (
            f"symgrad.return_types.{type(self).op}(\nvalues={self.values!r},\n"
            f"indices={self.indices!r})"
        )


class _Cummax(_CumExtremum):
    __slots__ = ()
    op = "cummax"


class _Cummin(_CumExtremum):
    __slots__ = ()
    op = "cummin"


def _running_pick_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """The gradients at the running extremum's places, summed where one is picked again and
    again (PyTorch's ``scatter_add``), unlike a reduction's one place per output."""
    dim = c.params["dim"]
    g = g if c.params["keepdim"] else xp.unsqueeze(g, dim)
    if not len(c.shapes[0]):  # a 0-d input's element, as from a row of one (vmap's scatter)
        row = xp.scatter_zeros((1,), 0, c.params["index"].reshape(1), xp.reshape(g, (1,)))
        return (xp.reshape(row, ()),)
    return (xp.scatter_zeros(c.shapes[0], dim, c.params["index"], g),)


_PICKS = {
    # (the input saved, unread, as PyTorch's node saves it: changing it in place is an error)
    op: Structural(
        op, _pick_forward, _running_pick_vjp, saves=(0,), backward=name, jvp="linear", rows=True
    )
    for op, name in (("cummax", "CummaxBackward0"), ("cummin", "CumminBackward0"))
}


def _cum_extremum(input: Tensor, dim: int, op: str) -> Any:
    d = _wrap_dim(dim, max(input.ndim, 1))
    if input.ndim == 0 and not _batching.any_batched(input):
        return (_Cummax if op == "cummax" else _Cummin)(*picked_itself(_PICKS[op], input))
    x = input.reshape(1) if input.ndim == 0 else input
    if _batching.any_batched(x):  # inside vmap: the running extrema of the whole batch at once
        found = _batching.per_batch(lambda p: _cum_extremum(p, d + 1, op), x)
        if input.ndim == 0:
            return type(found)(found.values.reshape(()), found.indices.reshape(()))
        return found
    better = np.greater_equal if op == "cummax" else np.less_equal

    def find(data: np.ndarray) -> np.ndarray:
        a = np.moveaxis(data, d, -1)
        index = np.zeros(a.shape, dtype=np.int64)
        best = a[..., :1].copy()
        for i in range(1, a.shape[-1]):
            v = a[..., i : i + 1]
            # PyTorch: a later equal value (or a nan) takes over
            take = better(v, best) | np.isnan(v)
            take &= ~np.isnan(best) | np.isnan(v)
            best = np.where(take, v, best)
            index[..., i : i + 1] = np.where(take, i, index[..., i - 1 : i])
        return np.moveaxis(index, -1, d)

    picks = picked(_PICKS[op], x, d, True, find, dim)
    result = (_Cummax if op == "cummax" else _Cummin)(*picks)
    if input.ndim == 0:
        return type(result)(result.values.reshape(()), result.indices.reshape(()))
    return result


def cummax(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running maximum along ``dim`` and where it was found (the
    last position of a tie, as PyTorch)."""
    if type(input) is not Tensor:
        require_tensor("cummax", "input", 1, input)
    return _cum_extremum(input, dim, "cummax")


def cummin(input: Tensor, dim: int) -> Any:
    """``(values, indices)``: the running minimum along ``dim``."""
    if type(input) is not Tensor:
        require_tensor("cummin", "input", 1, input)
    return _cum_extremum(input, dim, "cummin")
