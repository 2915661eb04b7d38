"""Indexing: ``x[key]``, its VJP (scatter into zeros), ``x[key] = v`` and masked_fill (gather
and index_select: :mod:`symgrad.ops.gathering`; ``index_put``: :mod:`symgrad.ops.putting`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._tracing import TRACE, data_params
from symgrad.autograd.modified import watch_indices
from symgrad.autograd.placed import index_gradient
from symgrad.ops import index_keys as keys
from symgrad.ops.batched_indexing import batched_getitem, batched_key, batched_put
from symgrad.ops.copy_slices_gradients import copy_slices_gradients, is_basic
from symgrad.ops.index_keys import index_array, int_slice, is_sequence, list_index, pytorch_key
from symgrad.ops.index_layout import index_result
from symgrad.ops.index_steps import _reads as reads
from symgrad.ops.index_steps import advanced, index_steps, several_ellipses, spread_ellipses
from symgrad.ops.reduced_dtype import converted
from symgrad.prim import batching
from symgrad.prim.primitive import as_operand
from symgrad.prim.structural import Structural
from symgrad.prim.text import getitem_text
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["getitem"]


def check_key_device(input: Tensor, key: Any) -> None:
    """PyTorch's device error for a meta index of a CPU tensor: its values don't exist, and
    reading the placeholder would make up a result (CPU indices of a meta tensor are fine)."""
    if not input.is_meta:
        for k in key if isinstance(key, (tuple, list)) else (key,):
            if isinstance(k, Tensor) and k.is_meta:
                raise RuntimeError("Tensor on device meta is not on the expected device cpu!")


def normalize_key(key: Any, shape: tuple) -> Any:
    """A NumPy index from a PyTorch one: tensors become integer or boolean arrays, several
    ellipses the dimensions they pass over (:func:`spread_ellipses`)."""
    items = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, str) for k in items):  # PyTorch counts the indices first
        used = [k for k in items if not (k is None or k is Ellipsis or isinstance(k, bool))]
        if len(used) > len(shape):
            raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    out = _normalized(items)
    if several_ellipses(out):
        out = spread_ellipses(out, out, len(shape))
    return _probe(tuple(out), shape)


def one_ellipsis(key: Any, shape: tuple) -> Any:
    """``key`` as given, with several ellipses spread over the dimensions they pass over."""
    if type(key) is not tuple or not several_ellipses(key):
        return key
    return tuple(spread_ellipses(key, _normalized(key), len(shape)))


def _normalized(items: tuple) -> list:
    """Each entry of a key as NumPy reads it."""
    out = []
    for k in items:
        kind = type(k)
        if kind is int or k is None or k is Ellipsis:  # (the common entries, checked first)
            out.append(k)
            continue
        if kind is slice:
            out.append(int_slice(k))
            continue
        if (
            isinstance(k, Tensor)
            and k.ndim == 0
            and k.dtype.category == 1
            and k.dtype.name != "uint8"
        ):
            k = int(k.item())  # a 0-d integer tensor indexes like an int, as in PyTorch
        elif isinstance(k, Tensor):
            k = index_array(k)
        elif is_sequence(k):  # a list, tuple or range is an index tensor, as in PyTorch
            k = list_index(k)
        elif isinstance(k, slice):
            k = int_slice(k)
        elif isinstance(k, (str, bytes)):
            k = list_index([k])
        elif isinstance(k, (np.integer, np.bool_)):
            k = k.item()
        elif not (k is None or k is Ellipsis or isinstance(k, (int, np.ndarray))):
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {type(k).__name__})"
            )
        out.append(k)
    return out


def _probe(key: tuple, shape: tuple) -> tuple:
    """Raise PyTorch-style errors for an out-of-range index before touching any data.

    PyTorch checks the integer indices of advanced indexing as it reads the entries, so an
    index out of range that selects an empty result goes unnoticed (``x[[5]]`` of a (2, 0)
    tensor is (1, 0)); such a key comes back with those indices made 0, so NumPy takes it.
    """
    try:
        np.empty(shape, dtype=np.bool_)[key]
        return key
    except IndexError as exc:
        error = IndexError(keys.torch_words(str(exc), key, shape))
    zeroed = tuple(
        np.zeros(k.shape, np.intp) if isinstance(k, np.ndarray) and k.dtype.kind in "iu" else k
        for k in key
    )
    try:
        empty = np.empty(shape, dtype=np.bool_)[zeroed].size == 0
    except IndexError:  # also out of range with the indices made 0: an empty dim is indexed
        empty = False
    if all(z is k for z, k in zip(zeroed, key)) or not empty:
        raise error from None
    return zeroed


def _kind(key: tuple) -> str:
    """Which PyTorch node an index makes: PyTorch applies the parts in order, so the last
    part that does something names it (``x[:, 0]`` is a select, ``x[..., None]`` an
    unsqueeze)."""
    if any(isinstance(k, np.ndarray) for k in key):
        return "advanced"
    for k in reversed(key):
        if k is None:
            return "unsqueeze"
        if isinstance(k, int):
            return "select"
        if isinstance(k, slice) and k != slice(None):
            return "slice"
    return "alias"


def _getitem_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (xp.index_put_zeros(c.shapes[0], c.params["key"], g),)


def _getitem_forward(xp: Any, a: Any, key: Any) -> Any:
    return xp.getitem(a, key)


def _getitem_kernel(xp: Any, a: np.ndarray, key: tuple) -> np.ndarray:
    # a trailing ``...`` keeps ``x[1]`` of a vector a 0-d view (NumPy would give a copy of
    # the element), so it shares x's memory as in PyTorch
    key = key if isinstance(key, tuple) else (key,)
    if not any(k is Ellipsis for k in key):
        key = key + (Ellipsis,)
    out = a[key]
    if not advanced(key) or type(out) is not np.ndarray:
        if 0 in out.strides and out.size and type(out) is np.ndarray:  # (None gave 0)
            return _new_axes_strided(a, key, out)
        return out
    # NumPy may lay out an indexed copy with the indexed dimensions outermost; PyTorch's
    # follows the input's layout (so .view() works on it as there)
    laid = index_result(a, key, out)
    if laid is not None:
        return laid
    return np.ascontiguousarray(out) if a.flags.c_contiguous else out


def _new_axes_strided(a: np.ndarray, key: tuple, out: np.ndarray) -> np.ndarray:
    """``out = a[key]`` with the strides PyTorch gives the dimensions ``None`` adds (NumPy
    gives 0): an ``unsqueeze`` where the key stands, the size times the stride of the input's
    dimension there, or one element after the last."""
    strides = list(out.strides)
    at = dim = 0  # the dimension of out, of a
    for k in key:
        if k is None:
            strides[at] = a.shape[dim] * a.strides[dim] if dim < a.ndim else a.itemsize
            at += 1
        elif k is Ellipsis:
            n = a.ndim - sum(1 for j in key if j is not None and j is not Ellipsis)
            at, dim = at + n, dim + n
        else:
            at, dim = at + (type(k) is slice), dim + 1
    if strides == list(out.strides):
        return out
    return np.lib.stride_tricks.as_strided(
        out, out.shape, strides, writeable=bool(out.flags.writeable)
    )


_GETITEM = {
    kind: Structural(
        "getitem",
        _getitem_forward,
        _getitem_vjp,
        backward=name,
        kernel=_getitem_kernel,
        jvp="linear",
        text=getitem_text,
        batch="getitem",
        numeric_vjp=None if kind == "advanced" else index_gradient,
        shows=kind in ("select", "slice"),  # (select's and narrow's dim as given)
    )
    for kind, name in (
        ("select", "SelectBackward0"),
        ("slice", "SliceBackward0"),
        ("unsqueeze", "UnsqueezeBackward0"),
        ("alias", "AliasBackward0"),
        ("advanced", "IndexBackward0"),
    )
}


def getitem(input: Tensor, key: Any) -> Tensor:
    """``input[key]`` with ints, slices, None, ``...``, integer tensors and boolean masks."""
    plain = None if batching.STATE.depth else keys.plain_key(key, input._data.shape)
    if plain is not None:  # ints and slices in range (x[i], x[:, j], x[a:b]): no probing
        return _one_node(input, plain[1], plain[0], key)
    key = pytorch_key(key)
    if batching.STATE.depth and batched_key(key):  # inside vmap: each element its own tensors
        return batched_getitem(input, key)
    check_key_device(input, key)
    key = one_ellipsis(key, input.shape)
    given, key = key, normalize_key(key, input.shape)
    if type(given) is not tuple and type(given) is not bool:
        # one entry, one node; a slice alone is a slice node even when whole (PyTorch's)
        return _one_node(input, "slice" if type(given) is slice else _kind(key), key, given)
    kind, steps = index_steps(key, given, input.shape)
    if kind is not None:
        return _one_node(input, kind, key, given)
    for kind, step in steps:
        input = getitem(input, step) if kind == "advanced" else _GETITEM[kind](input, key=step)
    return input


def slice_along(input: Tensor, dim: int, start: int, stop: int, shown: tuple = ()) -> Tensor:
    """``input``'s elements ``start:stop`` along ``dim`` as PyTorch's ``slice`` (and
    ``narrow``) records them: ``SliceBackward0``, even for the whole dimension (where
    Python's ``x[:, 0:n]`` records ``AliasBackward0``); ``shown``: the node's ``saved_as``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.ones(2, 3, requires_grad=True)
    >>> slice_along(x, 1, 0, 3).grad_fn.name()
    'SliceBackward0'
    """
    key = (slice(None),) * dim + (slice(start, stop),)
    return _one_node(input, "slice", normalize_key(key, input.shape), key, shown)


def select_along(input: Tensor, dim: int, index: int, shown: tuple = ()) -> Tensor:
    """``input[..., index]`` at ``dim`` as PyTorch's ``select`` records it
    (``SelectBackward0``, showing ``shown``)."""
    key = (slice(None),) * dim + (index,)
    return _one_node(input, "select", normalize_key(key, input.shape), key, shown)


def _one_node(input: Tensor, kind: str, key: Any, given: Any, shown: tuple = ()) -> Tensor:
    result = _GETITEM[kind](input, key=key, **({"saved_as": shown} if shown else {}))
    if kind == "advanced" or TRACE.log is not None:
        _reads_key(result, given, input.shape)
    return result


def _reads_key(result: Tensor, key: Any, shape: tuple, check: Any = None) -> None:
    """The node of ``result`` reads the index tensors of ``key`` (masks, indices) in its
    backward pass: an in-place change of one before it is PyTorch's error. While
    ``symgrad.compile`` traces, they are read afresh at every call and ``check(normalized
    key)`` run on them (a write, ``put``'s value must fit; else ``result`` holds the elements
    selected, as many as a mask holds)."""
    items = key if isinstance(key, tuple) else (key,)
    tensors = [k for k in items if isinstance(k, Tensor)]
    if not tensors:
        return
    watch_indices(result, *tensors)
    if TRACE.log is None:
        return

    def params(*arrays: np.ndarray) -> dict:
        given = iter(arrays)
        new = tuple(next(given) if isinstance(k, Tensor) else k for k in items)
        found = normalize_key(new if isinstance(key, tuple) else new[0], shape)
        if check is not None:
            check(found)
        return {"key": found}

    masks = any(t._data.dtype == np.bool_ for t in tensors)
    data_params(result, params, *tensors, sized=check is None and masks)


_INDEX_PUT_ZEROS = Structural(
    "index_put_zeros",
    lambda xp, g, shape, key, unique, node: xp.index_put_zeros(shape, key, g, unique),
    lambda xp, g, c: (xp.getitem(g, c.params["key"]),),
    backward=lambda params, meta: (
        params.get("node") or _GRAD_NAMES[_kind(_as_tuple(params["key"]))]
    ),
    batch="index_put_zeros",
    # PyTorch's index_put and index_add of the gradient into zeros have an edge for the zeros
    edges=lambda node: (None, 0) if type(node).__name__ in _INTO_ZEROS else None,
)
_INTO_ZEROS = (
    "CopySlices",
    "IndexPutImplBackward0",
    "IndexAddBackward0",
    "MaskedScatterBackward0",
    "PutBackward0",
)
# PyTorch's names for the node of an indexing op's gradient (under create_graph)
_GRAD_NAMES = {
    "select": "SelectBackwardBackward0",
    "slice": "SliceBackwardBackward0",
    "advanced": "IndexPutImplBackward0",
    "unsqueeze": "SqueezeBackward1",
    "alias": "AliasBackward0",
}


def _as_tuple(key: Any) -> tuple:
    return key if isinstance(key, tuple) else (key,)


def xp_index_put_zeros(
    shape: tuple, key: Any, g: Tensor, unique: bool = False, node: Any = None
) -> Tensor:
    """Zeros of ``shape`` with ``g`` added at ``key`` (differentiable in ``g``); ``node``:
    the node's name, PyTorch's backward op where the indexing op has its own."""
    return _INDEX_PUT_ZEROS(g, shape=shape, key=key, unique=unique, node=node)


def xp_getitem(a: Tensor, key: Any) -> Tensor:
    """``a[key]`` for an already normalized key (used by VJP rules)."""
    return _GETITEM[_kind(key if isinstance(key, tuple) else (key,))](a, key=key)


def _mask(shape: tuple, key: Any) -> np.ndarray:
    mask = np.zeros(shape, dtype=np.bool_)
    mask[key] = True
    return mask


def _index_put_forward(xp: Any, a: Any, v: Any, key: Any) -> Any:
    out = np.array(a, copy=True)
    # a 0-d value array goes in as its element (an object array would store the array itself)
    out[key] = v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v
    return out


def _index_put_vjp(xp: Any, g: Any, c: Any) -> tuple:
    key = c.params["key"]
    gx = gv = None
    if xp is INTERPRETERS.tensor and type(g) is Tensor and is_basic(key):
        gx, gv = copy_slices_gradients(g, key, c.needs)
    elif c.needs[0]:
        hit = xp.constant(_mask(c.shapes[0], key))
        if _index_put_name(c.params, None) == "IndexPutBackward0":
            gx = xp.masked_fill(g, hit, 0.0, node="IndexPutBackward0")
        else:
            gx = xp.where(hit, 0.0, g)
    if c.needs[1]:
        gv = xp.sum_to_size(gv if gv is not None else xp.getitem(g, key), c.shapes[1])
        if c._meta is not None:  # a value of another dtype was converted as it was written
            gv = converted(xp, gv, c._meta[1][1])
    return gx, gv


def _index_put_name(params: dict, meta: Any) -> str:
    # PyTorch indexes the basic part first: writing into that view is CopySlices; indices
    # alone (after full slices) write into the tensor itself, IndexPutBackward0
    key = params["key"]
    basic = [k for k in key if not isinstance(k, np.ndarray)]
    whole = all(k is Ellipsis or k == slice(None) for k in basic)
    return "IndexPutBackward0" if whole and len(basic) < len(key) else "CopySlices"


_INDEX_PUT = Structural("index_put", _index_put_forward, _index_put_vjp, backward=_index_put_name)


def put(input: Tensor, key: Any, values: Any) -> Tensor:
    """A copy of ``input`` with ``values`` written at ``key``, any key ``x[key]`` takes (out
    of place; ``x[key] = values`` is this written into ``x``)."""
    check_key_device(input, key)
    values = as_operand(values, "setitem")
    if not isinstance(values, Tensor):
        from symgrad.creation import full

        values = full((), values, dtype=input.dtype)
    if batching.any_batched(input, values) or (batching.STATE.depth and batched_key(key)):
        return batched_put(input, key, values, False, _check_broadcasts_to)
    given = _skipped_whole(normalize_key(key, input.shape), input.shape)
    target = np.empty(input.shape, dtype=np.bool_)[given].shape
    lead = next((i for i, n in enumerate(values.shape) if n != 1), values.ndim)
    if lead and (advanced(given) or values.ndim > len(target)):
        # PyTorch views the leading 1s away (ViewBackward0); index_put_ broadcasts the rest
        values = values.view(values.shape[lead:])
    _check_broadcasts_to(values.shape, target)
    if values.dtype is not input.dtype and not _copied_across(values, input, given):
        values = values.to(input.dtype)
    result = _INDEX_PUT(input, values, key=given)
    shape = values.shape

    def check(found: Any) -> None:
        _check_broadcasts_to(shape, np.empty(input.shape, dtype=np.bool_)[found].shape)

    _reads_key(result, key, input.shape, check)
    return result


def _copied_across(values: Tensor, input: Tensor, key: Any) -> bool:
    """Whether PyTorch writes ``values`` of another floating dtype into ``input`` with the
    ``copy_`` into the view ``input[key]`` (a basic key), which converts them itself: the
    value's node is linked directly, with no ``ToCopyBackward0``, and its gradient converted
    back."""
    return (
        values.dtype.is_floating_point
        and input.dtype.is_floating_point
        and type(values._data) is np.ndarray
        and not advanced(key if isinstance(key, tuple) else (key,))
    )


def _skipped_whole(key: Any, shape: tuple) -> Any:
    """``key`` with each slice PyTorch skips (:func:`~symgrad.ops.index_keys.skipped_slice`)
    written ``:``, which names a write by index arrays IndexPutBackward0 where it stands."""
    if type(key) is not tuple or not advanced(key) or any(k is Ellipsis for k in key):
        return key
    out, at = [], 0
    for k in key:
        if type(k) is slice and at < len(shape) and keys.skipped_slice(k, shape[at]):
            k = slice(None)
        out.append(k)
        at += reads(k)
    return tuple(out)


def _check_broadcasts_to(shape: tuple, target: tuple) -> None:
    """PyTorch's rule for ``x[key] = v``: ``v``'s leading 1s are dropped, then it must
    broadcast to the indexing result without growing it."""
    lead = next((i for i, n in enumerate(shape) if n != 1), len(shape))
    try:
        fits = np.broadcast_shapes(shape[lead:], target) == target
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to "
            f"indexing result of shape {list(target)}; give the value that shape, or one whose "
            "sizes are 1 where they differ"
        )
