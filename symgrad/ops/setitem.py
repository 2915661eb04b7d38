"""``x[key] = value``: an in-place op, recorded as ``CopySlices``, written with ``fill_`` or
``copy_`` where PyTorch writes into a view, with ``index_put_`` at index tensors."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._meta import NO_DATA, MetaArray
from symgrad.autograd import grad_mode
from symgrad.ops import views
from symgrad.ops.inplace import _VIEW_OF_LEAF, copy_, fill_, inplace
from symgrad.prim import batching
from symgrad.prim.primitive import as_operand
from symgrad.tensor import Tensor

__all__ = ["setitem"]


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value`` as an in-place op (recorded as ``CopySlices``)."""
    from symgrad.ops.index_keys import check_uint8_fill, pytorch_key
    from symgrad.ops.indexing import put

    key = _bool_scalars(pytorch_key(key))
    check_uint8_fill(key, value, tuple(x.shape))
    if type(value) is int and not -(2**63) <= value < 2**63:
        raise ValueError(
            f"Overflow when unpacking long long: can't write {value!r:.30} into a tensor, it "
            "is outside int64's range [-2**63, 2**63 - 1]; write float(n) instead"
        )
    if isinstance(value, Tensor) and type(value._data) is not type(x._data):
        if type(value._data) is MetaArray:  # between devices: into meta, never out of it
            raise NotImplementedError(NO_DATA)
        if type(x._data) is MetaArray:
            value = value.to("meta")
    keys = key if isinstance(key, tuple) else (key,)
    split = _ints_first(keys, tuple(x.shape))
    if split is not None:  # PyTorch selects at the ints, then writes at the indices there
        setitem(x[split[0]], split[1], value)
        return
    tensors = [k for k in keys if isinstance(k, Tensor)]
    if isinstance(value, Tensor) and value.dtype is not x.dtype and _puts_at_indices(keys, value):
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{x.dtype.scalar_type} for the destination and {value.dtype.scalar_type} for the "
            "source."
        )
    if not tensors and type(x._data) is np.ndarray and views.has_overlap(x._data):
        # memory that several elements share (an expanded tensor): PyTorch writes into the
        # view x[key], which may itself hold each place once (e[0] = v of an expand)
        _write_view(x[key], value)
        return
    batched_key = batching.any_batched(*tensors)  # inside vmap, each element's own places
    if not batched_key and _covers_all(key, x.shape):  # PyTorch writes into x: fill_ or copy_
        _write_view(x, value)
        return
    # inside vmap PyTorch names a write at index tensors index_put_
    op = "index_put_" if tensors and batching.any_batched(x, value, *tensors) else "setitem"
    # (a 0-d integer tensor is an int to PyTorch)
    basic = not any(isinstance(k, (list, np.ndarray)) or _index_tensor(k) for k in keys)
    if basic and isinstance(value, Tensor) and type(x._data) is np.ndarray:
        try:  # a basic key: PyTorch copies the value into the view x[key]
            target = x._data[key]
            views.check_no_partial_overlap(target, (value._data,))
            value = _broadcast_source(value, target.shape)
        except IndexError:
            pass  # (put names the bad key)
    if (
        basic
        and type(x) is Tensor
        and x._requires_grad
        and x.grad_fn is None
        and grad_mode.recording()
    ):
        # PyTorch writes a basic key into the view x[key]: a view of the leaf
        raise RuntimeError(_VIEW_OF_LEAF.format(op=op))
    inplace(x, op, lambda t: put(t, key, value), value, *tensors)


def _ints_first(keys: tuple, shape: tuple) -> tuple | None:
    """For a key of ints and index tensors (or lists): the basic key PyTorch views ``x`` with
    first (the ints, slices and Nones, a whole slice for each dimension an index reads) and
    the key of the indices it then writes into that view; None for any other key. NumPy
    would take the ints as indices, moving the indices' dimensions to the front when a
    slice stands between them and an int."""
    from symgrad.ops.index_steps import _reads
    from symgrad.ops.indexing import normalize_key, one_ellipsis

    if batching.STATE.depth or not any(
        type(k) is int or isinstance(k, (np.integer, Tensor)) for k in keys
    ):
        return None
    keys = one_ellipsis(keys, shape)
    found = normalize_key(keys, shape)
    if len(found) != len(keys) or any(type(k) is bool for k in keys):
        return None
    if not any(type(k) is int for k in found) or not any(isinstance(k, np.ndarray) for k in found):
        return None
    view: list = []
    index: list = []
    for given, k in zip(keys, found):
        if type(k) is int:
            view.append(given)
        elif isinstance(k, np.ndarray):
            view += [slice(None)] * _reads(k)
            index.append(given)
        else:  # a slice, None or ...: the view keeps the dimension it makes
            view.append(given)
            index.append(Ellipsis if k is Ellipsis else slice(None))
    return tuple(view), tuple(index)


def _puts_at_indices(keys: tuple, value: Tensor) -> bool:
    """Whether PyTorch writes ``value`` with ``index_put_``, which takes no other dtype: for
    index tensors or lists in the key, but not a 0-d value at one mask (a ``masked_fill``)."""
    indices = [k for k in keys if isinstance(k, (list, np.ndarray)) or _index_tensor(k)]
    masked = len(indices) == 1 and _index_tensor(indices[0]) and indices[0].dtype.category == 0
    return bool(indices) and not (masked and value.ndim == 0)


def _index_tensor(key: Any) -> bool:
    # a 0-d integer tensor in a key is a plain int to PyTorch
    return isinstance(key, Tensor) and (key.ndim > 0 or key._data.dtype == np.bool_)


def _write_view(view: Tensor, value: Any) -> None:
    """``view[...] = value``: copy_ of a tensor with dimensions, else fill_ (a number or a
    0-d tensor), as PyTorch writes ``x[key] = value`` for a key without index tensors."""
    if isinstance(value, Tensor) and value.ndim:
        copy_(view, _broadcast_source(value, tuple(view.shape)))
        return
    if not isinstance(value, Tensor):
        from symgrad.creation import full

        value = full((), as_operand(value, "setitem"), dtype=view.dtype)
    fill_(view, value)


def _broadcast_source(value: Tensor, shape: tuple) -> Tensor:
    """A value of dimensions copied into a place of another ``shape`` as PyTorch's
    ``copy_to`` makes it: viewed without its leading ones (``ViewBackward0``), then expanded
    (``ExpandBackward0``), which raises ``expand``'s error where it does not fit."""
    if not value.ndim or tuple(value.shape) == tuple(shape):
        return value
    dims = list(value.shape)
    while dims and dims[0] == 1:
        dims.pop(0)
    value = value.view(dims)  # (PyTorch views the value even when it has no leading 1s)
    return value if tuple(value.shape) == tuple(shape) else value.expand(shape)


def _covers_all(key: Any, shape: tuple) -> bool:
    """Whether ``key`` is slices and ``...`` only, each slice one PyTorch skips (from 0 as
    written, to the end or past it, by 1): it writes into the tensor itself."""
    from symgrad.ops.index_keys import skipped_slice
    from symgrad.ops.indexing import normalize_key

    items = normalize_key(key, shape)
    if not all(k is Ellipsis or isinstance(k, slice) for k in items) or len(items) > len(shape):
        return False
    dots = next((i for i, k in enumerate(items) if k is Ellipsis), len(items))
    dims = [*range(dots), *range(len(shape) - len(items) + dots + 1, len(shape))]
    slices = [k for k in items if k is not Ellipsis]
    return all(skipped_slice(k, shape[d]) for k, d in zip(slices, dims))


def _bool_scalars(key: Any) -> Any:
    """``key`` with each 0-d bool tensor read as the bool it holds: PyTorch writes at
    ``x[torch.tensor(True)]`` through the view ``x[True]`` (``CopySlices``), not as a mask."""
    if isinstance(key, tuple):
        return tuple(_bool_scalar(k) for k in key)
    return _bool_scalar(key)


def _bool_scalar(k: Any) -> Any:
    if (
        isinstance(k, Tensor)
        and type(k._data) is np.ndarray
        and k._data.ndim == 0
        and k._data.dtype == np.bool_
        and not batching.any_batched(k)
    ):
        return bool(k._data)
    return k
