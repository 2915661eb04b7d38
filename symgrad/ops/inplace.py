"""In-place ops: the result is computed out of place, then written into (or rebound to) ``self``.

Without recording, the new values are copied into the existing array, so NumPy arrays shared
through ``from_numpy`` see them. When the op records, ``self`` takes the new node as its
``grad_fn`` (PyTorch's rebasing of history), and its old values stay with the node that used
them. Either way the version counter is bumped, so a node that saved ``self`` notices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._data import check_number
from symgrad.autograd import grad_mode
from symgrad.autograd.hooks import move_retain_grad
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, link_view, live_aliases

__all__ = ["inplace", "setitem", "zero_", "fill_", "copy_"]


def _check_leaf(x: Tensor, op: str) -> None:
    if x._requires_grad and x.grad_fn is None and grad_mode.is_grad_enabled():
        raise RuntimeError(
            f"a leaf Variable that requires grad is being used in an in-place operation "
            f"({op}). Wrap it in `with symgrad.no_grad():` (e.g. for a parameter update) or "
            "use the out-of-place op."
        )


def inplace(x: Tensor, op: str, compute: Callable[[Tensor], Tensor], *others: Any) -> Tensor:
    """Run ``compute`` on ``x`` and make ``x`` hold the result, as an in-place op ``op``."""
    _check_leaf(x, op)
    # a tensor that is not floating can't require grad, so writing into it records nothing
    recording = (
        grad_mode.is_grad_enabled()
        and x.dtype.is_floating_point
        and (x._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others))
    )
    if not recording:
        with grad_mode.no_grad():
            result = compute(x)
        _write(x, result._data, op)
        return x
    base, key, views = live_aliases(x)
    if base is not None:
        return _through_view(x, base, key, op, compute)
    _check_views(x, views, others, op)
    result = compute(_snapshot(x))
    _check_castable(result, x, op)
    if result.dtype is not x.dtype:
        result = result.to(x.dtype)
    _rebase(x, result)
    return x


def _snapshot(x: Tensor) -> Tensor:
    """A second tensor object for ``x``'s present values and history: the nodes of the op read
    it, so that ``x`` itself can take the result (and bump its version)."""
    snapshot = Tensor._make(x._data, x.grad_fn, x._requires_grad)
    snapshot._output_nr, snapshot._accumulator = x._output_nr, x._accumulator
    return snapshot


def _through_view(x: Tensor, base: Tensor, key: Any, op: str, compute: Callable) -> Tensor:
    """An in-place op on ``x = base[key]``: the new values are written into ``base`` (a
    ``CopySlices`` node, as in PyTorch), and ``x`` becomes ``base[key]`` again."""
    from symgrad.ops.indexing import getitem

    if key is None:
        raise RuntimeError(
            f"{op}: this tensor (shape {list(x.shape)}) is a view of another tensor (shape "
            f"{list(base.shape)}) made by reshape, transpose or the like: changed in place "
            "while gradients are recorded, it would leave that tensor behind (PyTorch changes "
            "both). Use the out-of-place op (v = v.add(1) for v.add_(1)), or change a copy "
            "(v = v.clone())"
        )
    result = compute(_snapshot(x))
    _check_castable(result, x, op)
    base._views = [r for r in base._views or () if r() is not x]  # x is being rewritten
    setitem(base, key, result)
    _rebase(x, getitem(base, key))
    link_view(base, x, key)
    return x


def _check_views(x: Tensor, views: list, others: tuple, op: str) -> None:
    """A recorded in-place op gives ``x`` new memory and history: a tensor viewing the old
    memory would keep the old values, where PyTorch changes both. Refused rather than
    silently different (the values being written are exempt: they are what x will hold)."""
    stale = [v for v in views if not any(v is o for o in others)]
    if stale:
        raise RuntimeError(
            f"{op}: {len(stale)} view(s) of this tensor (shape {list(x.shape)}), made by "
            "reshape, transpose, slicing or the like, are still alive: changed in place while "
            "gradients are recorded, the tensor would leave them with its old values (PyTorch "
            "changes both). Make the views after the in-place op or with .clone(), or use the "
            "out-of-place op"
        )


def _check_castable(result: Tensor, x: Tensor, op: str) -> None:
    if result.dtype.category > x.dtype.category:
        raise RuntimeError(
            f"{op}: result type {result.dtype.name} can't be cast to the desired output type "
            f"{x.dtype.name} of the tensor being modified (shape {list(x.shape)}); convert the "
            "tensor first or use the out-of-place op"
        )
    if result.shape != x.shape:
        raise RuntimeError(
            f"{op}: output with shape {list(x.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )


def _write(x: Tensor, values: np.ndarray, op: str) -> None:
    result = Tensor._make(np.asarray(values))
    _check_castable(result, x, op)
    if not x._data.flags.writeable:
        x._data = np.array(x._data)  # an expanded (broadcast) array: give it its own memory
    np.copyto(x._data, values, casting="unsafe")
    x._counter.value += 1


def _rebase(x: Tensor, result: Tensor) -> None:
    old_node = x.grad_fn
    x._data = result._data
    x.grad_fn = result.grad_fn
    x._output_nr = result._output_nr
    x._requires_grad = True
    x._counter.value += 1
    node = result.grad_fn
    if node is not None and node._out_version is not None:
        node._out_version = (x._counter, x._counter.value)
    move_retain_grad(x, old_node)


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value`` as an in-place op (recorded as ``CopySlices``)."""
    from symgrad.ops.indexing import index_put

    if type(value) is int and not -(2**63) <= value < 2**63:
        raise ValueError(
            f"Overflow when unpacking long long: can't write {value!r:.30} into a tensor, it "
            "is outside int64's range [-2**63, 2**63 - 1]; write float(n) instead"
        )
    inplace(x, "setitem", lambda t: index_put(t, key, value), value)


def _overwritten_vjp(xp: Any, g: Any, ctx: Any) -> tuple:
    """The old values are overwritten, so no gradient reaches them; a source gets ``g``."""
    zeros = xp.constant(np.zeros(ctx.shapes[0]))
    if len(ctx.shapes) == 1:
        return (zeros,)
    return (zeros, xp.sum_to_size(g, ctx.shapes[1]))


def _broadcast_into(xp: Any, a: np.ndarray, src: np.ndarray) -> np.ndarray:
    return np.array(np.broadcast_to(src, a.shape), dtype=a.dtype)


def _full(xp: Any, a: Any, value: Any = 0) -> Any:
    """``value`` in every place of ``a`` (exact in closed forms)."""
    return xp.constant(np.full(np.shape(a), value))


# PyTorch's node names: ZeroBackward0, FillBackward2 (a number), FillBackward3 (a 0-d tensor)
_ZERO = Structural(
    "zero",
    _full,
    _overwritten_vjp,
    backward="ZeroBackward0",
    kernel=lambda xp, a: np.zeros_like(a),
)
_FILL = Structural(
    "fill",
    _full,
    _overwritten_vjp,
    backward="FillBackward2",
    kernel=lambda xp, a, value: np.full_like(a, value),
)
_FILL_TENSOR = Structural("fill", _broadcast_into, _overwritten_vjp, backward="FillBackward3")
_COPY = Structural("copy", _broadcast_into, _overwritten_vjp, backward="CopyBackwards", text=COPIES)


def zero_(x: Tensor) -> Tensor:
    """Fill ``x`` with zeros in place (on a non-leaf, recorded as ``ZeroBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> y = symgrad.ones(2, requires_grad=True) * 2
    >>> y.zero_()
    tensor([0., 0.], grad_fn=<ZeroBackward0>)
    """
    _check_leaf(x, "zero_")
    if x.grad_fn is not None and grad_mode.is_grad_enabled():
        return inplace(x, "zero_", _ZERO)
    _write(x, np.zeros(x.shape, x._data.dtype), "zero_")
    return x


def fill_(x: Tensor, value: Any) -> Tensor:
    """Fill ``x`` with ``value`` (a number or a 0-d tensor) in place."""
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions (shape {list(value.shape)}); use copy_ to write a "
                "tensor of values"
            )
        return inplace(x, "fill_", lambda t: _FILL_TENSOR(t, value), value)
    check_number(value, x.dtype, "fill_")
    _check_leaf(x, "fill_")
    if x.grad_fn is not None and grad_mode.is_grad_enabled():
        return inplace(x, "fill_", lambda t: _FILL(t, value=value))
    _write(x, np.full(x.shape, value, dtype=x._data.dtype), "fill_")  # cast, as PyTorch
    return x


def copy_(x: Tensor, src: Any) -> Tensor:
    """Copy ``src`` (broadcast to ``x``'s shape, converted to its dtype) into ``x``."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): expected a Tensor as src, got {type(src).__name__}")
    try:
        np.broadcast_shapes(src.shape, x.shape)
    except ValueError:
        raise RuntimeError(
            f"copy_: the source of shape {list(src.shape)} can't be broadcast to the "
            f"destination's shape {list(x.shape)}"
        ) from None
    _check_leaf(x, "copy_")
    recording = grad_mode.is_grad_enabled() and (x._requires_grad or src._requires_grad)
    if not recording or not x.dtype.is_floating_point:
        _write(x, np.broadcast_to(src._data, x.shape).astype(x._data.dtype), "copy_")
        return x
    return inplace(x, "copy_", lambda t: _COPY(t, src), src)
