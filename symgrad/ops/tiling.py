"""Repeating, rolling and broadcasting: ``repeat``, ``tile``, ``repeat_interleave``,
``roll``, ``rot90``, ``unflatten``, ``broadcast_tensors``, ``meshgrid``, ``take_along_dim``,
``masked_select`` and ``nonzero``, with PyTorch's node names (``RepeatBackward0``,
``RollBackward0``, ...)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import (
    OMITTED,
    require_int,
    require_ints,
    require_tensor,
    require_tensor_input,
    require_tensor_sequence,
)
from symgrad._data import (
    _wrap_dim,
    broadcast_mismatch,
    check_broadcast,
    keyword_sizes,
    sizes,
    wrap_dim_of_dims,
)
from symgrad._memory_format import contiguous_format
from symgrad._tracing import TRACE, data_params, data_value
from symgrad.autograd.modified import watch_indices
from symgrad.ops.gathering import gather, index_select
from symgrad.ops.interleave_counts import check_counts, repeated_indices
from symgrad.ops.pooling import pick
from symgrad.ops.shape import expand
from symgrad.prim import batching as _batching
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["tile", "repeat_interleave", "roll", "rot90", "unflatten", "broadcast_tensors"]
__all__ += ["meshgrid", "take_along_dim", "masked_select", "nonzero"]


# -- repeat ---------------------------------------------------------------------------------------
def _repeat_forward(xp: Any, a: Any, repeats: tuple) -> Any:
    lead = len(repeats) - a.ndim
    shape = (1,) * lead + tuple(a.shape)
    split = tuple(x for r, s in zip(repeats, shape) for x in (1, s))
    spread = tuple(x for r, s in zip(repeats, shape) for x in (r, s))
    tiled = xp.expand(xp.reshape(a, split), spread)
    return xp.reshape(tiled, tuple(r * s for r, s in zip(repeats, shape)))


def _repeat_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # PyTorch's repeat_backward: the leading dimensions summed one by one, then one reshape
    # that splits each repeated dimension into (repeat, size) and one sum over the repeats
    repeats, shape = c.params["repeats"], tuple(c.shapes[0])
    lead = len(repeats) - len(shape)
    for _ in range(lead):
        g = xp.sum(g, (0,), False)
    pairs = [(r, s) if r != 1 else (s,) for r, s in zip(repeats[lead:], shape)]
    starts = np.cumsum([0] + [len(p) for p in pairs])
    repeated = tuple(int(i) for i, p in zip(starts, pairs) if len(p) == 2)
    return (xp.sum(xp.reshape(g, sum(pairs, ())), repeated, False) if repeated else g,)


_REPEAT = Structural(
    "repeat", _repeat_forward, _repeat_vjp, backward="RepeatBackward0", jvp="linear", rows=True
)


def repeat(input: Tensor, *repeats: Any, **keyword: Any) -> Tensor:
    """``input`` tiled ``repeats[i]`` times along each dimension (leading ones added when
    ``repeats`` is longer).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0, 2.0]).repeat(2, 2)
    tensor([[1., 2., 1., 2.],
            [1., 2., 1., 2.]])
    """
    if not repeats and not keyword:  # PyTorch's TypeError, even where () would fit
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    if keyword:
        repeats = keyword_sizes("repeat", repeats, keyword, "repeats")
    reps = sizes(repeats, "repeat")
    if len(reps) < input.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            f"of tensor\n(repeat dims {list(reps)} for a tensor of shape {list(input.shape)})"
        )
    if any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension: repeats {list(reps)}")
    return _REPEAT(input, repeats=tuple(reps))


def tile(input: Tensor, dims: Any) -> Tensor:
    """:func:`repeat`, with ``dims`` padded with leading ones to ``input.ndim``."""
    if type(input) is not Tensor:
        require_tensor("tile", "input", 1, input)
    if isinstance(dims, bool):
        raise TypeError("tile(): argument 'dims' (position 2) must be tuple of ints, not bool")
    dims = tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def repeat_interleave(
    input: Tensor, repeats: Any = OMITTED, dim: int | None = None, *, output_size: int | None = None
) -> Tensor:
    """Each element repeated ``repeats`` times (a number, or one count per element along
    ``dim``); over the flattened input when ``dim`` is None.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1.0, 2.0]).repeat_interleave(2)
    tensor([1., 1., 2., 2.])
    """
    if type(input) is not Tensor:
        if repeats is OMITTED and dim is None:
            require_tensor("repeat_interleave", "repeats", 1, input)
        require_tensor_input("repeat_interleave", input, repeats, dim)
    if isinstance(repeats, bool) or repeats is None:
        raise TypeError(
            "repeat_interleave() received an invalid combination of arguments - got (Tensor, "
            f"{type(repeats).__name__}), but expected (Tensor input, Tensor repeats, int dim = "
            "None) or (Tensor input, int repeats, int dim = None)"
        )
    if repeats is OMITTED:  # repeat_interleave(counts): indices repeated by their counts
        check_counts(input)
        return _found(lambda c: repeated_indices(c, output_size), input)
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else _wrap_dim(dim, x.ndim)
    if x.ndim == 0:  # PyTorch's unsqueeze(dim + 1) of a 0-d tensor: out of range
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-1, 0], but got {d + 1})"
        )
    n = x.shape[d]
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError(
                "repeats must be 0-dim or 1-dim tensor, got one of shape "
                f"{list(repeats.shape)}: give one count per element along dim, or a single one"
            )
        check_counts(repeats.reshape(-1))

        def find(repeats: np.ndarray) -> np.ndarray:
            counts = repeats.reshape(-1)
            if counts.size == 1:
                counts = np.full(n, counts[0])
            if counts.size != n:
                raise RuntimeError(
                    "repeats must have the same size as input along dim, but got "
                    f"repeats.size(0) = {counts.size} and input.size({d}) = {n}"
                )
            return repeated_indices(counts, output_size)

        return index_select(x, d, _found(find, repeats))
    if repeats < 0:
        raise RuntimeError(f"Repeats must be non-negative, got {repeats}")
    if output_size is not None and output_size != n * repeats:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {n * repeats} but got {output_size}"
        )
    # PyTorch: unsqueeze, expand, a contiguous clone, then a view (ViewBackward0)
    moved = x.unsqueeze(d + 1)
    shape = list(moved.shape)
    shape[d + 1] = repeats
    out_shape = list(x.shape)
    out_shape[d] = n * repeats
    cloned = expand(moved, tuple(shape)).clone(memory_format=contiguous_format)
    return cloned.view(tuple(out_shape))


def repeat_interleave_method(
    self: Tensor, repeats: Any = OMITTED, dim: int | None = None, *, output_size: Any = None
) -> Tensor:
    """:func:`repeat_interleave` of ``self``; the method takes no counts-only form.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tensor([1, 2]).repeat_interleave(symgrad.tensor([1, 2]))
    tensor([1, 2, 2])
    """
    if repeats is OMITTED:
        raise TypeError(
            "repeat_interleave() received an invalid combination of arguments - got (), but "
            "expected (Tensor repeats, int dim = None) or (int repeats, int dim = None)"
        )
    return repeat_interleave(self, repeats, dim, output_size=output_size)


# -- roll, rot90 ----------------------------------------------------------------------------------


def roll(input: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    """Elements shifted cyclically by ``shifts`` along ``dims`` (over the flattened tensor
    when ``dims`` is None).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.roll(symgrad.tensor([1.0, 2.0, 3.0]), 1)
    tensor([3., 1., 2.])
    """
    if type(input) is not Tensor:
        require_tensor("roll", "input", 1, input)
    if type(shifts) is not int:
        require_ints("roll", "shifts", shifts)
    shifts = tuple(shifts) if isinstance(shifts, (list, tuple)) else (shifts,)
    if not shifts:
        raise RuntimeError("`shifts` required: roll takes one shift or more, got none")
    flat_roll = dims is None or (isinstance(dims, (list, tuple)) and not dims)
    dims = () if flat_roll else tuple(dims) if isinstance(dims, (list, tuple)) else (dims,)
    if len(shifts) != (len(dims) or 1):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shifts)}, dims: {len(dims)}"
        )
    if input.numel() == 0:  # PyTorch copies it without looking at the dims, as RollBackward0
        grids = np.meshgrid(*[np.arange(n) for n in input.shape], indexing="ij")
        return pick(input, tuple(grids), "RollBackward0", shown=_shown_roll(shifts, dims))
    if flat_roll:
        flat = np.roll(np.arange(input.numel()), shifts[0]).reshape(input.shape)
        key = np.unravel_index(flat, input.shape) if input.ndim else ()
        return pick(input, tuple(key), "RollBackward0", shown=_shown_roll(shifts, ()))
    grids = list(np.meshgrid(*[np.arange(n) for n in input.shape], indexing="ij"))
    for s, d in zip(shifts, dims):
        d = wrap_dim_of_dims(d, input.ndim)
        n = input.shape[d]
        grids[d] = (grids[d] - s) % n if n else grids[d]
    return pick(input, tuple(grids), "RollBackward0", shown=_shown_roll(shifts, dims))


def _shown_roll(shifts: tuple, dims: tuple) -> tuple:
    """roll's arguments as its node shows them: negative ints as the unsigned 64-bit number
    of the same bits, as PyTorch."""
    return (
        ("shifts", tuple(int(s) % 2**64 for s in shifts)),
        ("dims", tuple(int(d) % 2**64 for d in dims)),
    )


def rot90(input: Tensor, k: int = 1, dims: Any = (0, 1)) -> Tensor:
    """``input`` rotated by 90 degrees ``k`` times, from the first of ``dims`` toward the
    second."""
    if type(input) is not Tensor:
        require_tensor("rot90", "input", 1, input)
    if type(k) is not int:
        require_int("rot90", "k", k)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (_wrap_dim(d, input.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(
            f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}"
        )
    grid = np.arange(input.numel()).reshape(input.shape)
    turned = np.rot90(grid, k, axes=(d0, d1))
    return pick(input, np.unravel_index(turned, input.shape), "Rot90Backward0")


# -- shapes ---------------------------------------------------------------------------------------
def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """Dimension ``dim`` split into ``sizes`` (one may be -1)."""
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    d = _wrap_dim(dim, input.ndim)  # (a 0-d tensor: in range [-1, 0], then refused)
    wrap_dim_of_dims(d, input.ndim, RuntimeError)
    n = input.shape[d]
    if -1 in sizes:
        known = math.prod(s for s in sizes if s != -1)
        sizes = tuple(n // known if s == -1 else s for s in sizes)
    if math.prod(sizes) != n:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
            f"({n}) in the input tensor"
        )
    return input.view((*input.shape[:d], *sizes, *input.shape[d + 1 :]))


def broadcast_tensors(*tensors: Tensor) -> tuple:
    """The tensors broadcast to their common shape (each unchanged if already of it)."""
    require_tensor_sequence(tensors)
    shapes = [tuple(t.shape) for t in tensors]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        # PyTorch's RuntimeError naming the dimension, not NumPy's message
        check_broadcast("broadcast_tensors", [np.broadcast_to(0, s) for s in shapes])
        raise
    return tuple(t if tuple(t.shape) == shape else expand(t, shape) for t in tensors)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-D tensors: ``indexing="ij"`` (matrix) or ``"xy"``
    (Cartesian); without ``indexing`` PyTorch's default ``"ij"``, with its warning."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    require_tensor_sequence(tensors)
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}D"
            )
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    grids = []
    for i, t in enumerate(order):
        view = [1] * len(order)
        view[i] = -1
        grids.append(expand(t.reshape(tuple(view)), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """``gather`` with ``indices`` broadcast against ``input`` (over the flattened input
    when ``dim`` is None)."""
    if type(input) is not Tensor or type(indices) is not Tensor:
        require_tensor("take_along_dim", "input", 1, input)
        require_tensor("take_along_dim", "indices", 2, indices)
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
            "dimensions for indices"
        )
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{indices.dtype.scalar_type}; convert them with .long()"
        )
    d = wrap_dim_of_dims(dim, input.ndim)
    in_shape, idx_shape = list(input.shape), list(indices.shape)
    in_shape[d], idx_shape[d] = 1, 1
    try:
        common = np.broadcast_shapes(tuple(in_shape), tuple(idx_shape))
    except ValueError:
        raise RuntimeError(
            f"take_along_dim: input of shape {list(input.shape)} and indices of shape "
            f"{list(indices.shape)} don't broadcast outside dim {d}"
            f"{broadcast_mismatch([in_shape, idx_shape])}"
        ) from None
    target_in = list(common)
    target_in[d] = input.shape[d]
    target_idx = list(common)
    target_idx[d] = indices.shape[d]
    x = expand(input, tuple(target_in))  # (even to its own shape: PyTorch's ExpandBackward0)
    if _batching.any_batched(indices):  # inside vmap: each element's own indices
        idx = indices if tuple(indices.shape) == tuple(target_idx) else indices.expand(target_idx)
    else:
        idx = Tensor._make(np.broadcast_to(indices._data, tuple(target_idx)).copy())
    return gather(x, d, idx)  # (a copy of the indices: PyTorch's broadcast copy too)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements of ``input`` where ``mask`` (broadcast against it) holds, as a vector."""
    if type(input) is not Tensor or type(mask) is not Tensor:
        require_tensor("masked_select", "input", 1, input)
        require_tensor("masked_select", "mask", 2, mask)
    if mask.dtype != dtypes.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {mask.dtype}")
    if _batching.any_batched(mask):  # each element would pick its own number of entries
        raise _batching.Refused(
            "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot "
            "support this because for each batch this would return a differently shaped "
            "Tensor. Please file an issue at https://github.com/pytorch/pytorch/issues if you "
            "need this feature."
        )
    shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    x = input if tuple(input.shape) == shape else expand(input, shape)
    if not shape:  # a 0-d input: one element, picked or not
        x, shape = x.reshape(1), (1,)
    key = np.nonzero(np.broadcast_to(mask._data, shape))
    result = pick(x, tuple(key), "MaskedSelectBackward0")
    watch_indices(result, mask)
    if TRACE.log is not None:  # symgrad.compile: the mask is read afresh at every call
        key_of = lambda m: {"key": np.nonzero(np.broadcast_to(m, shape))}  # noqa: E731
        data_params(result, key_of, mask, sized=True)
    return result


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of the non-zero elements: one row per element (``(n, ndim)``), or one
    index tensor per dimension with ``as_tuple``."""
    if type(input) is not Tensor:
        require_tensor("nonzero", "input", 1, input)
    if type(as_tuple) is not bool:
        raise TypeError(
            f"nonzero(): argument 'as_tuple' must be bool, not {type(as_tuple).__name__}"
        )
    if _batching.any_batched(input):  # as many indices as each element has non-zeros
        if as_tuple:
            raise _batching.Refused(
                "Batching rule not implemented for aten::nonzero_numpy. We could not generate a "
                "fallback."
            )
        _batching.refuse_dynamic_shape("aten::nonzero")
    if as_tuple:
        n = max(input.ndim, 1)
        return tuple(_found(lambda a, i=i: _nonzero(a, True)[i], input) for i in range(n))
    return _found(lambda a: _nonzero(a, False), input)


def _nonzero(a: np.ndarray, as_tuple: bool) -> Any:
    found = np.nonzero(a) if a.ndim else np.nonzero(a.reshape(1))
    if as_tuple:  # rows of one (ndim, n) block, each contiguous, as PyTorch's
        return tuple(np.stack(found).astype(np.int64))
    if not a.ndim:
        return np.zeros((int(bool(a)), 0), np.int64)
    # one column per dimension, each column's indices together, as PyTorch lays them out
    return np.stack(found).astype(np.int64).T


def _found(find: Any, input: Tensor) -> Tensor:
    """The tensor ``find(input's values)``, found afresh at every call of a compiled program."""
    result = Tensor._make(find(input._data))
    if TRACE.log is not None:
        data_value(result, find, input, sized=True)
    return result
