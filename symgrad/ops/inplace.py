"""In-place ops: the result is computed out of place, then written into (or rebound to) ``self``.

Without recording, the new values are copied into the existing array, so NumPy arrays shared
through ``from_numpy`` see them. When the op records, ``self`` takes the new node as its
``grad_fn`` (PyTorch's rebasing of history), and its old values stay with the node that used
them. Either way the version counter is bumped, so a node that saved ``self`` notices.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad._data import broadcast_mismatch, check_fill
from symgrad._memory_format import kept_layout
from symgrad._meta import NO_DATA, MetaArray
from symgrad._silent import cast, through_float
from symgrad._tracing import TRACE, write
from symgrad._unrecorded import data_base, note_change
from symgrad._version import check_writable
from symgrad.autograd import dual, grad_mode
from symgrad.autograd.hooks import move_retain_grad
from symgrad.ops import dual_tangents, views
from symgrad.ops.batched_inplace import batched_inplace
from symgrad.ops.inplace_origins import before_change, follow_change, involves_names
from symgrad.prim import batching
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, live_aliases

__all__ = ["inplace", "zero_", "fill_", "copy_", "check_view_change"]


def _check_leaf(x: Tensor, op: str) -> None:
    """Refuse to change ``x`` in place where PyTorch does: a leaf that requires grad while
    the graph records, an inference tensor outside inference mode."""
    # (a view made under no_grad is refused by the check of such views, with its message)
    shared = x._view_base
    made_under_no_grad = shared is not None and shared[1] == "no_grad"
    if x._requires_grad and x.grad_fn is None and grad_mode.recording() and not made_under_no_grad:
        if shared is not None and shared[1] == "view":  # (made a leaf by requires_grad_())
            raise RuntimeError(_VIEW_OF_LEAF.format(op=op))
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation.\n"
            f"({op}: wrap it in `with symgrad.no_grad():` (e.g. for a parameter update) or "
            "use the out-of-place op)"
        )
    check_writable(x)


def check_view_change(x: Tensor, op: str) -> None:
    """Refuse a recorded in-place change of ``x``'s shape where PyTorch does: ``x`` a view of
    a leaf that requires grad, or a piece of ``split``/``unbind``."""
    if x._view_base is None or not x._requires_grad or not grad_mode.recording():
        return
    root, kind = x._view_base
    _check_output_view(x, kind)
    if kind == "view" and root.grad_fn is None:  # (root a leaf, requiring grad or not)
        raise RuntimeError(_VIEW_OF_LEAF.format(op=op))


def _check_output_view(x: Tensor, kind: str | None) -> None:
    """Refuse a recorded in-place change of a view made by a multi-output view op or returned
    by a custom Function (PyTorch's errors)."""
    if kind == "multi":
        template = views.MULTI_OUTPUT_VIEW
    elif kind == "function":
        template = views.FUNCTION_OUTPUT_VIEW
    else:
        return
    raise RuntimeError(template.format(nr=x._output_nr, op=views.op_name(x), what="is being"))


def inplace(
    x: Tensor, op: str, compute: Callable[[Tensor], Tensor], *others: Any, one_value: bool = False
) -> Tensor:
    """Run ``compute`` on ``x`` and make ``x`` hold the result, as an in-place op ``op``
    (``others``: the other tensor arguments, among them index tensors and masks).
    ``one_value``: the op writes one number everywhere (fill_, zero_), which PyTorch allows
    into memory that several elements share (an expanded tensor)."""
    if batching.any_batched(x, *others):  # inside vmap: the batch written at once
        return batched_inplace(x, op, compute, others, inplace)
    if TRACE.log is not None:
        write(x, op)
    _check_leaf(x, op)
    if op != "setitem":  # (which writes into x[key] only: checked there)
        views.check_no_partial_overlap(x._data, [o._data for o in others if isinstance(o, Tensor)])
    if dual.active():
        dual_tangents.check_inplace(x, others, op)
    # a tensor that is not floating can't require grad, so writing into it records nothing
    recording = (
        grad_mode.recording()
        and x.dtype.is_floating_point
        and (x._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others))
    )
    shared = x._view_base
    if shared is not None and shared[1] == "no_grad" and grad_mode.recording():
        if recording or shared[0]._requires_grad:  # the change would be recorded
            raise RuntimeError(_no_grad_view_message(x, op))
    if not recording:
        # nothing that requires grad is involved; in forward mode grad mode stays as it is, so
        # that a tangent computed from tensors requiring grad keeps its graph
        keep = dual.active() and x.dtype.is_floating_point
        before = before_change(x, others)  # (named data: closed forms follow the change)
        with grad_mode.set_grad_enabled(grad_mode.is_grad_enabled() and keep):
            result = compute(x if before is None else before)
        _write(x, result._data, op, one_value)
        if before is not None:
            follow_change(x, result)
        dual_tangents.take_tangent(x, result)
        return x
    root, kind, aliases = live_aliases(x)
    _check_output_view(x, kind)
    if kind == "multi_plain":
        raise RuntimeError(views.PLAIN_MULTI_OUTPUT_VIEW.format(what="is being"))
    if root is None and not aliases:  # its memory is its own: it takes the result's
        result = compute(_snapshot(x))
        _check_castable(result, x, op)
        _rebase(x, result.to(x.dtype))
        dual_tangents.take_tangent(x, result)
        return x
    if kind == "alias":  # detach()ed: the memory is shared, the history is x's own
        root, aliases = None, [v for v in (r() for r in x._views or ()) if v is not None]
    return _through_aliases(x, root, aliases, op, compute, one_value)


_NO_GRAD_VIEW = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled "
    "({op}). Given that this use case is ambiguous and error-prone, it is forbidden. Move "
    "both the view and the inplace op inside the no_grad block (if the change should not be "
    "recorded) or both outside it (if it should)."
)


def _no_grad_view_message(x: Tensor, op: str) -> str:
    """PyTorch's error for a view made under no_grad changed in place while recording; one
    with a history of its own is a view of such a view."""
    message = _NO_GRAD_VIEW.format(op=op)
    if x.grad_fn is None:
        return message
    prefix = f"Output {x._output_nr} of {views.op_name(x)} is a view of a view which was created"
    return message.replace("A view was created", prefix, 1)


_VIEW_OF_LEAF = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation.\n"
    "({op}: change a clone (y = x.clone(); y[...] ...), or wrap the change in "
    "`with symgrad.no_grad():` if it should not be recorded)"
)


def _snapshot(x: Tensor) -> Tensor:
    """A second tensor object for ``x``'s present values and history: the nodes of the op read
    it, so that ``x`` itself can take the result (and bump its version)."""
    snapshot = Tensor._make(x._data, x.grad_fn, x._requires_grad)
    snapshot._output_nr, snapshot._accumulator = x._output_nr, x._accumulator
    snapshot._fw = x._fw
    return snapshot


def _through_aliases(
    x: Tensor, root: Tensor | None, aliases: list, op: str, compute: Callable, one_value: bool
) -> Tensor:
    """A recorded in-place op on ``x`` while other tensors share its memory: the new values are
    written into that memory, so they all see them (as in PyTorch). When ``x`` is a view of
    ``root``, ``root``'s history records the change (``CopySlices``); the views' histories are
    made again from ``root``'s."""
    if TRACE.log is not None:
        write(x, op)
    if root is not None and root.grad_fn is None and x._requires_grad:
        # PyTorch's rule: a view that requires grad of a leaf, which may itself not require
        # grad (a view made a leaf by requires_grad_(), and the views of that view)
        raise RuntimeError(_VIEW_OF_LEAF.format(op=op))
    if not one_value:
        views.check_writable(x)
    old = _snapshot(x)
    if root is not None and root._requires_grad and x.grad_fn is not None:
        # PyTorch sends the op's gradient for the view straight into root's history: the
        # view's own node (and the hooks on it) is not on the way
        old = views.read_of(_snapshot(root), x)
    old._data = x._data.copy()  # the op's node may read the old values; the memory changes
    result = compute(old)
    _check_castable(result, x, op)
    result = result.to(x.dtype)
    owner = x if root is None else root
    new = result if root is None else views.copy_slices(_snapshot(root), x, result)
    if root is not None:
        views.hold_inside(new, result, old)
    np.copyto(owner._data, new._data)
    dual_tangents.take_tangent(x, result)
    old_node = owner.grad_fn
    owner.grad_fn, owner._output_nr, owner._requires_grad = new.grad_fn, new._output_nr, True
    _bump(owner, new)
    if result.grad_fn is not None and result.grad_fn._out_version is not None:
        result.grad_fn._out_version = (x._counter, x._counter.value)  # x shares owner's counter
    move_retain_grad(owner, old_node)
    views.remake_view_histories(owner, aliases)
    return x


def _check_castable(result: Tensor, x: Tensor, op: str) -> None:
    if result.dtype.category > x.dtype.category:
        raise RuntimeError(
            f"result type {result.dtype.scalar_type} can't be cast to the desired output type "
            f"{x.dtype.scalar_type}\n({op} writes into the tensor being modified, of dtype "
            f"{x.dtype!r} and shape {list(x.shape)}: convert it first or use the out-of-place op)"
        )
    if result.shape != x.shape:
        raise RuntimeError(
            f"output with shape {list(x.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}\n(in {op})"
        )


def _write(x: Tensor, values: np.ndarray, op: str, one_value: bool = False) -> None:
    if TRACE.log is not None:
        write(x, op)
    result = Tensor._make(np.asanyarray(values))
    _check_castable(result, x, op)
    if not one_value:
        views.check_writable(x)
    if type(x._data) is MetaArray or type(values) is MetaArray:
        if type(x._data) is not MetaArray:
            raise NotImplementedError(NO_DATA)
        x._counter.value += 1  # a meta tensor: no values to write
        return
    values = through_float(values, x._data.dtype)  # (PyTorch's double to half: via float)
    if not x._data.flags.writeable:
        root, kind, _ = live_aliases(x)
        if root is not None and kind != "alias" and root._data.flags.writeable:
            index = views.positions(root._data, x._data)  # a read-only view (diagonal, ...)
            views.put_flat(root._data, index, np.asarray(values, dtype=x._data.dtype))
        else:
            x._data = np.array(x._data)  # read-only memory of its own: give it a copy
            np.copyto(x._data, values, casting="unsafe")
    else:
        np.copyto(x._data, values, casting="unsafe")
    x._counter.value += 1
    root, _, aliases = live_aliases(x)
    # the tensors with a history whose values changed with x's: closed forms refuse them
    # (see symgrad._unrecorded)
    note_change([x, root, data_base(x), *aliases], op)
    _reread_views(x, root, aliases)


def _reread_views(x: Tensor, root: Tensor | None, aliases: list) -> None:
    """After a change recorded nowhere (under no_grad, an optimizer's step, a write through a
    detached alias), the views of a tensor that requires grad read it again
    (``AsStridedBackward0``), as PyTorch's views do when next used after their version moved;
    ``root`` and ``aliases``: :func:`~symgrad.tensor.live_aliases` of ``x``."""
    if not aliases:
        return
    # the views hang off the tensor they were made of: x's root, or an alias of it (detach(),
    # a Parameter made of a tensor)
    for owner in (x if root is None else root, *(a for a in aliases if _is_alias(a))):
        views_of = [v for v in (r() for r in owner._views or ()) if v is not None]
        if views_of and owner._requires_grad:
            with grad_mode.enable_grad():
                views.remake_view_histories(owner, views_of)


def _is_alias(t: Tensor) -> bool:
    return t._view_base is not None and t._view_base[1] == "alias"


def _rebase(x: Tensor, result: Tensor) -> None:
    if TRACE.log is not None:
        write(x, "an in-place op")
    old_node = x.grad_fn
    x._data = kept_layout(result._data, x._data)
    x.grad_fn = result.grad_fn
    x._output_nr = result._output_nr
    x._requires_grad = True
    _bump(x, result)
    move_retain_grad(x, old_node)


def _bump(x: Tensor, result: Tensor) -> None:
    """One more change to ``x``'s values; the new node that saved its output watches them."""
    x._counter.value += 1
    node = result.grad_fn
    if node is not None and node._out_version is not None:
        node._out_version = (x._counter, x._counter.value)


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
    batch="elementwise",
    kernel=lambda xp, a: np.zeros_like(a),
)
_FILL = Structural(
    "fill",
    _full,
    _overwritten_vjp,
    backward="FillBackward2",
    batch="elementwise",
    kernel=lambda xp, a, value: np.full_like(a, value),
)
_FILL_TENSOR = Structural(
    "fill", _broadcast_into, _overwritten_vjp, backward="FillBackward3", batch="elementwise"
)
_COPY = Structural(
    "copy",
    _broadcast_into,
    _overwritten_vjp,
    backward="CopyBackwards",
    text=COPIES,
    batch="elementwise",
)


def zero_(x: Tensor) -> Tensor:
    """Fill ``x`` with zeros in place (on a non-leaf, recorded as ``ZeroBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> y = symgrad.ones(2, requires_grad=True) * 2
    >>> y.zero_()
    tensor([0., 0.], grad_fn=<ZeroBackward0>)
    """
    if batching.any_batched(x):
        return inplace(x, "zero_", _ZERO)
    _check_leaf(x, "zero_")
    if dual.active():
        dual_tangents.check_inplace(x, (), "zero_")
    if (x.grad_fn is not None and grad_mode.recording()) or involves_names(x, ()):
        return inplace(x, "zero_", _ZERO, one_value=True)
    _write(x, np.zeros(x.shape, x._data.dtype), "zero_", one_value=True)
    dual_tangents.overwritten(x, None)
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
    value = check_fill(value, x.dtype, "fill_", one=x.numel() == 1)
    if batching.any_batched(x):
        return inplace(x, "fill_", lambda t: _FILL(t, value=value))
    _check_leaf(x, "fill_")
    if dual.active():
        dual_tangents.check_inplace(x, (), "fill_")
    if (x.grad_fn is not None and grad_mode.recording()) or involves_names(x, ()):
        return inplace(x, "fill_", lambda t: _FILL(t, value=value), one_value=True)
    _write(x, np.full(x.shape, value, dtype=x._data.dtype), "fill_", one_value=True)  # cast
    dual_tangents.overwritten(x, None)
    return x


def copy_(x: Tensor, src: Any) -> Tensor:
    """Copy ``src`` (broadcast to ``x``'s shape, converted to its dtype; a Python number
    too, as PyTorch takes one) into ``x``."""
    if not isinstance(src, Tensor):
        if not isinstance(src, (numbers.Number, np.number, np.bool_)):
            require_tensor("copy_", "other", 1, src)
        src = Tensor._make(np.asarray(src))
    try:
        shape = np.broadcast_shapes(src.shape, x.shape)
    except ValueError:
        mismatch = broadcast_mismatch([list(x.shape), list(src.shape)])[2:-1]
        raise RuntimeError(
            f"{mismatch[:1].upper()}{mismatch[1:]}\n(copy_: the source of shape {list(src.shape)} "
            f"can't be broadcast to the destination's shape {list(x.shape)})"
        ) from None
    if shape != tuple(x.shape):
        raise RuntimeError(
            f"output with shape {list(x.shape)} doesn't match the broadcast shape "
            f"{list(shape)} (copy_ writes a source of shape {list(src.shape)} into it)"
        )
    if batching.any_batched(x, src):
        return inplace(x, "copy_", lambda t: _COPY(t, src), src)
    _check_leaf(x, "copy_")
    views.check_no_partial_overlap(x._data, (src._data,))
    if type(x._data) is not type(src._data):  # between devices: into meta, never out of it
        if type(src._data) is MetaArray:
            raise NotImplementedError(NO_DATA)
        if type(x._data) is MetaArray:
            src = src.to("meta")
    recording = grad_mode.recording() and (x._requires_grad or src._requires_grad)
    if (not recording or not x.dtype.is_floating_point) and not involves_names(x, (src,)):
        if dual.active():
            dual_tangents.check_inplace(x, (src,), "copy_")
        _write(x, cast(np.broadcast_to(src._data, x.shape), x._data.dtype), "copy_")
        dual_tangents.overwritten(x, src)
        return x
    return inplace(x, "copy_", lambda t: _COPY(t, src), src)


def write_values(x: Tensor, op: str, compute: Callable[[Tensor], Tensor], *others: Any) -> Tensor:
    """Write ``compute(x)`` into ``x`` as an op with no derivative (``logical_not_``): PyTorch
    records nothing, keeps ``x``'s history, even a leaf's, and bumps its version."""
    if batching.any_batched(x, *others):
        return inplace(x, op, compute, *others)
    check_writable(x)
    if involves_names(x, others):
        return inplace(x, op, compute, *others)
    with grad_mode.no_grad():
        values = compute(x)
    _write(x, values._data, op)
    return x


# for the other in-place ops (symgrad.ops.shape_inplace)
check_leaf = _check_leaf
snapshot = _snapshot
rebase = _rebase
