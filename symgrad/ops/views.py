"""Views: tensors sharing another tensor's memory, and in-place changes made through them.

A view (``y[0]``, ``y.t()``, ``y.view(6)``, ``y.expand(...)``) and the tensor it views share
one memory and one version counter (:func:`symgrad.tensor.link_view`). Changed in place while
gradients are recorded, the new values are written into that memory, so every alias sees them,
as in PyTorch. The viewed tensor's history gains the change (a ``CopySlices`` node when it came
through a view), and the history of each view is made again from it (``AsStridedBackward0``).
Which elements of the viewed tensor a view holds is read from the two arrays' memory layout,
so every kind of view is handled alike.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from symgrad._data import _wrap_dim
from symgrad._memory_format import (
    checked,
    contiguous_format,
    element_strides,
    is_contiguous_as,
    preserve_format,
)
from symgrad.autograd.edges import public_positions
from symgrad.ops.storages import offset_in_memory
from symgrad.prim.primitive import Primitive, recorded
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["positions", "has_overlap", "copy_slices", "remake_view_histories"]

_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor (shape {shape}) "
    "refers to a single memory location (an expand()ed tensor, or a view of one). Please "
    "clone() the tensor before performing the operation."
)


def has_overlap(a: np.ndarray) -> bool:
    """Whether two elements of ``a`` share one memory location (a stride 0 of size > 1)."""
    return a.size > 0 and any(s == 0 and n > 1 for n, s in zip(a.shape, a.strides))


def check_writable(x: Tensor) -> None:
    """PyTorch's refusal to write into memory that several elements share."""
    if has_overlap(x._data):
        raise RuntimeError(_OVERLAP.format(shape=list(x.shape)))


_PARTIAL = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer "
    "to a single memory location (an input of shape {inp} overlaps the tensor of shape {out} "
    "written in place). Please clone() the tensor before performing the operation."
)


def _dense(a: np.ndarray) -> bool:
    """Whether ``a``'s elements fill a block of memory without gaps or repeats (some order of
    a contiguous layout): PyTorch's "non-overlapping and dense"."""
    step = a.itemsize
    for s, n in sorted((abs(s), n) for n, s in zip(a.shape, a.strides) if n != 1):
        if s != step:
            return False
        step *= n
    return True


def reads_once(data: np.ndarray, index: np.ndarray) -> bool:
    """Whether the view ``data``, reading its base at flat positions ``index``, reads each
    place once (not an expanded view, nor overlapping strides): its gradient is then placed,
    not summed."""
    if has_overlap(data):
        return False
    return _dense(data) or bool(np.unique(index).size == index.size)


def check_no_partial_overlap(out: np.ndarray, inputs: Any) -> None:
    """PyTorch's refusal of an in-place op one of whose ``inputs`` shares only part of the
    memory ``out`` is written to (the same memory laid out the same way is allowed; so is any
    overlap PyTorch can't decide, where either is not a dense block)."""
    for a in inputs:
        if type(a) is not np.ndarray or not a.size or not np.may_share_memory(out, a):
            continue
        same = a.ctypes.data == out.ctypes.data and a.strides == out.strides
        if same and a.shape == out.shape and a.dtype == out.dtype:
            continue
        if _dense(a) and _dense(out):
            raise RuntimeError(_PARTIAL.format(inp=list(a.shape), out=list(out.shape)))


def _offsets(a: np.ndarray) -> np.ndarray:
    """Each element's distance in bytes from ``a``'s first element."""
    off = np.zeros(a.shape, dtype=np.intp)
    for d, (n, s) in enumerate(zip(a.shape, a.strides)):
        off = off + (np.arange(n, dtype=np.intp) * s).reshape((n,) + (1,) * (a.ndim - d - 1))
    return off


def positions(root: np.ndarray, view: np.ndarray) -> np.ndarray:
    """For each element of ``view``, its flat (C-order) position in ``root``, whose memory
    ``view`` shares."""
    start = view.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if root.flags.c_contiguous:  # the usual case: a byte offset is the position times the size
        found = (_offsets(view) + start) // root.itemsize
        if found.size == 0 or (found.min() >= 0 and found.max() < root.size):
            return found
    flat = _offsets(root).ravel()
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    wanted = (_offsets(view) + start).ravel()
    found = np.minimum(np.searchsorted(ordered, wanted), max(ordered.size - 1, 0))
    if wanted.size and (ordered.size == 0 or np.any(ordered[found] != wanted)):
        raise RuntimeError(
            f"this tensor (shape {list(view.shape)}) no longer shares memory with the tensor "
            f"it was a view of (shape {list(root.shape)}), whose data was replaced (.data = "
            "...); make the view again before changing it in place"
        )
    return order[found].reshape(view.shape)


def put_flat(target: np.ndarray, index: np.ndarray, values: Any) -> None:
    """``target``'s elements at flat C-order positions ``index`` set to ``values``, whatever
    ``target``'s memory layout (``reshape(-1)`` of a column-major or strided array would be a
    copy, and the write would be lost)."""
    index = np.ravel(index)
    if target.flags.c_contiguous:
        target.reshape(-1)[index] = np.ravel(values)
    else:
        target[np.unravel_index(index, target.shape)] = np.ravel(values)


def _copy_slices_forward(xp: Any, r: Any, v: Any, index: np.ndarray) -> Any:
    out = np.array(r, copy=True)
    put_flat(out, index, np.asarray(v))
    return out


def _copy_slices_vjp(xp: Any, g: Any, c: Any) -> tuple:
    index = c.params["index"]
    gr = gv = None
    if c.needs[0]:
        mask = np.zeros(c.shapes[0], dtype=np.bool_)
        mask.reshape(-1)[index.ravel()] = True
        gr = xp.where(xp.constant(mask), 0.0, g)
    if c.needs[1]:
        gv = xp.getitem(xp.reshape(g, (-1,)), index)
    return gr, gv


# an in-place op on a view whose node PyTorch's CopySlices holds inside: {CopySlices node:
# (the op's node, the position of its edge to the view's values)}
_INSIDE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _copy_slices_edges(node: Any) -> tuple | None:
    """PyTorch's edges of a CopySlices node: the base's history, then the edges of the
    in-place op it holds but the one to the view's values (none held: its own inputs)."""
    inside = _INSIDE.get(node)
    if inside is None:
        return None
    fn, at = inside
    shown = public_positions(fn)  # (the op's own edges as PyTorch has them)
    if shown is not None:
        at = shown.index(at) if at in shown else -1
    return (0, *[e for i, e in enumerate(fn.next_functions) if i != at])


def hold_inside(copy: Tensor, op_result: Tensor, view_values: Tensor) -> None:
    """Show the node of ``op_result`` (an in-place op on a view, which read ``view_values``)
    as part of ``copy``'s CopySlices node, as PyTorch does."""
    fn, read = op_result.grad_fn, view_values.grad_fn
    if fn is None or copy.grad_fn is None or not fn._edges:
        return
    if read is None:  # values needing no gradient: the op's first input (its self) read them
        if fn._edges[0][0] is None:
            _INSIDE[copy.grad_fn] = (fn, 0)
        return
    at = [i for i, (n, _) in enumerate(fn._edges) if n is read]
    if len(at) == 1:
        _INSIDE[copy.grad_fn] = (fn, at[0])


_COPY_SLICES = Structural(
    "copy_slices",
    _copy_slices_forward,
    _copy_slices_vjp,
    backward="CopySlices",
    text=COPIES,
    edges=_copy_slices_edges,
)


def _as_strided_forward(xp: Any, r: Any, index: np.ndarray, unique: bool = True) -> Any:
    return xp.getitem(xp.reshape(r, (-1,)), index)


def _as_strided_vjp(xp: Any, g: Any, c: Any) -> tuple:
    shape = c.shapes[0]
    size = int(np.prod(shape, dtype=np.int64))
    # a view's positions are distinct; as_strided may read one place twice (summed then)
    unique = c.params.get("unique", True)
    index = c.params["index"]
    if xp is not INTERPRETERS.tensor or type(g) is not Tensor:
        return (xp.reshape(xp.index_put_zeros((size,), index, g, unique), shape),)
    # PyTorch's as_strided_backward: the gradient copied into zeros of the memory (added,
    # where places repeat), read back as the input (AsStridedBackward0)
    if unique:
        memory = xp.index_put_zeros((size,), index, g, True, node="CopySlices")
    else:
        flat = xp.reshape(g, (-1,))
        memory = xp.index_put_zeros((size,), index.reshape(-1), flat, node="IndexAddBackward0")
    return (_AS_STRIDED(memory, index=np.arange(size).reshape(shape), unique=True),)


_AS_STRIDED = Structural(
    "as_strided",
    _as_strided_forward,
    _as_strided_vjp,
    backward="AsStridedBackward0",
    jvp="linear",
    text=COPIES,
)


def copy_slices(root: Tensor, view: Tensor, values: Tensor) -> Tensor:
    """``root`` with ``values`` in the places ``view`` holds, recorded as ``CopySlices``."""
    return _COPY_SLICES(root, values, index=positions(root._data, view._data))


def read_of(root: Tensor, v: Tensor) -> Tensor:
    """``v``'s values read from ``root``'s history (``AsStridedBackward0``)."""
    index = positions(root._data, v._data)
    # an expanded view reads an element more than once: its gradients are summed
    params = {"index": index, "unique": reads_once(v._data, index)}
    return recorded(_AS_STRIDED, (root,), params, v._data)


def remake_view_histories(root: Tensor, aliases: list) -> None:
    """After ``root`` changed in place, each view of it that records gradients reads its values
    from the new history (``AsStridedBackward0``), as in PyTorch; a piece of ``split`` or
    ``unbind`` can't, and a backward through it raises PyTorch's error."""
    for v in aliases:
        # (an alias that is no view, as _unsafe_view's, has no base)
        kind = v._view_base[1] if v is not root and v._view_base is not None else None
        if kind == "view":
            node = read_of(root, v).grad_fn
        elif kind in ("multi", "multi_plain", "function"):
            what = "its base or another view of its base has been"
            if kind == "multi":
                message = MULTI_OUTPUT_VIEW.format(nr=v._output_nr, op=op_name(v), what=what)
            elif kind == "function":
                message = FUNCTION_OUTPUT_VIEW.format(nr=v._output_nr, op=op_name(v), what=what)
            else:
                message = PLAIN_MULTI_OUTPUT_VIEW.format(what=what)
            node = recorded(_STALE, (root,), {"message": message}, v._data).grad_fn
        else:
            continue  # an alias made by detach(), or a view made under no_grad, stays out
        v.grad_fn, v._output_nr, v._requires_grad = node, 0, True


# a piece of split/unbind of a tensor that required no grad (PyTorch's wording)
PLAIN_MULTI_OUTPUT_VIEW = (
    "A view was created in no_grad mode and {what} modified inplace with grad mode enabled. "
    "This view is the output of a function that returns multiple views. Such functions do not "
    "allow the output views to be modified inplace. You should replace the inplace operation "
    "by an out-of-place one."
)
MULTI_OUTPUT_VIEW = (
    "Output {nr} of {op} is a view and {what} modified inplace. This view is the output of a "
    "function that returns multiple views. Such functions do not allow the output views to be "
    "modified inplace. You should replace the inplace operation by an out-of-place one."
)

# an input a custom Function returned as it is: PyTorch makes the output a view of it
FUNCTION_OUTPUT_VIEW = (
    "Output {nr} of {op} is a view and {what} modified inplace. This view was created inside a "
    "custom Function (or because an input was returned as-is) and the autograd logic to handle "
    "view+inplace would override the custom backward associated with the custom Function, "
    "leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning "
    "the output of the custom Function."
)


def op_name(v: Tensor) -> str:
    name = type(v.grad_fn).__name__
    return name.removesuffix("Backward0").removesuffix("Backward").removesuffix("WithSizes")


class _Stale(Primitive):
    """The history of a piece of ``split``/``unbind`` whose base changed in place: a
    backward through it raises (PyTorch raises as soon as it is used)."""

    name = "stale_view"
    backward_name = "Error"

    def saves(self, n: int) -> tuple[tuple, bool]:
        return (False,) * n, False

    def vjp(self, xp: Any, g: Any, ctx: Any) -> tuple:
        raise RuntimeError(ctx.params["message"])


_STALE = _Stale()


# -- what a user asks of a tensor's memory layout ----------------------------------------------
def _base(self: Tensor) -> Tensor | None:
    """The tensor this one is a view of (PyTorch's ``_base``), None if it is not a view."""
    vb = self._view_base
    return vb[0] if vb is not None and vb[1] != "alias" else None


def is_contiguous(self: Tensor, *, memory_format: Any = contiguous_format) -> bool:
    """Whether the elements lie in memory without gaps in the order of ``memory_format``:
    row-major by default, NHWC for ``channels_last`` (NDHWC for ``channels_last_3d``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, 3)
    >>> x.is_contiguous(), x.t().is_contiguous()
    (True, False)
    >>> y = symgrad.ones(2, 3, 4, 5).contiguous(memory_format=symgrad.channels_last)
    >>> y.is_contiguous(), y.is_contiguous(memory_format=symgrad.channels_last)
    (False, True)
    """
    fmt = checked(memory_format, "is_contiguous", none=False)
    if fmt is contiguous_format or fmt is preserve_format:
        return bool(self._data.flags.c_contiguous)
    return is_contiguous_as(self.shape, element_strides(self._data), fmt)


def stride(self: Tensor, dim: int | None = None) -> Any:
    """The step in memory, in elements, between neighbours along each dimension.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.zeros(2, 3)
    >>> x.stride(), x.t().stride(), x.stride(1)
    ((3, 1), (1, 3), 1)
    """
    steps = element_strides(self._data)
    return steps if dim is None else steps[_wrap_dim(dim, self.ndim)]


def storage_offset(self: Tensor) -> int:
    """Where this tensor's first element lies in the memory it shares, in elements.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.zeros(2, 3)
    >>> x[1].storage_offset(), x[:, 2].storage_offset()
    (3, 2)
    """
    return offset_in_memory(self)


def _output_nr(self: Tensor) -> int:
    """Which output of its ``grad_fn`` this tensor is (0 but for split, unbind, ...)."""
    return self._output_nr


METHODS = {
    "_base": property(_base),
    "output_nr": property(_output_nr),
    "is_contiguous": is_contiguous,
    "stride": stride,
    "storage_offset": storage_offset,
}
