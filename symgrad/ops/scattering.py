"""Writing along a dimension by an index tensor: ``scatter`` (of a tensor or a value),
``scatter_add``, ``index_add``, ``index_copy`` and ``index_fill``, with PyTorch's node
names. Each is the input with entries replaced or added: the input's gradient is the incoming
one (zero where entries were replaced), the source's is the incoming gradient picked at the
written places."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad._data import _wrap_dim, check_fill
from symgrad.autograd.modified import watch_indices
from symgrad.ops.elementwise import WHERE
from symgrad.ops.gathering import _check_integer, _index_tensor, _spread
from symgrad.ops.index_keys import warn_at_user
from symgrad.ops.scatter_places import _Along, _Filled, _LastRows, _Rows
from symgrad.prim import batching as _batching
from symgrad.prim.structural import Structural
from symgrad.prim.tangents import not_differentiable
from symgrad.tensor import Tensor

__all__ = ["scatter", "scatter_add", "index_add", "index_copy", "index_fill"]


def _keep_forward(
    xp: Any,
    a: Any,
    *src: Any,
    hit: np.ndarray,
    put: Any,
    value: Any,
    take: Any,
    saved_as: tuple = (),
) -> Any:
    """``a`` where ``hit`` is False; elsewhere the scattered source (or ``value``)."""
    if src:
        placed = put(xp, src[0])
    else:  # the value in a's dtype, as PyTorch (a float into a float32 tensor stays float32)
        dtype = getattr(a, "dtype", None)
        dtype = getattr(dtype, "numpy", dtype)
        if dtype is not None and np.dtype(dtype).kind == "O":
            dtype = None  # SymPy arrays: the number itself, made exact by the interpreter
        placed = xp.constant(np.full(hit.shape, value, dtype=dtype))
    return xp.where(xp.constant(hit), placed, a)


def _keep_vjp(zeroed: str) -> Any:
    """The VJP of a write: the input's gradient is the incoming one with zeros where entries
    were replaced (recorded as ``zeroed``, the op of PyTorch's formula)."""

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        p = c.params
        hit = xp.constant(p["hit"])
        grads = [xp.masked_fill(g, hit, 0.0, node=zeroed) if c.needs[0] else None]
        if len(c.needs) > 1:
            grads.append(p["take"](xp, g) if c.needs[1] else None)
        return tuple(grads)

    return vjp


def _add_forward(
    xp: Any, a: Any, src: Any, *, put: Any, take: Any, alpha: Any, saved_as: tuple = ()
) -> Any:
    placed = put(xp, src)
    return a + (placed if alpha == 1 else placed * alpha)


def _add_vjp(xp: Any, g: Any, c: Any) -> tuple:
    alpha = c.params["alpha"]
    picked = c.params["take"](xp, g) if c.needs[1] else None
    if picked is not None and alpha != 1:  # (mul.Scalar in PyTorch's formula: MulBackward1)
        picked = xp.mul_scalar(picked, alpha)
    return (g if c.needs[0] else None, picked)


_SHOWS_SOURCE = ("index_add", "index_copy")
# the op recording the input's gradient, as PyTorch's formula writes it: grad.scatter(dim,
# index, 0), grad.index_fill(dim, index, 0), grad.masked_fill(mask, 0), grad.put(index,
# zeros_like(source))
_ZEROED_AS = {
    "scatter": "ScatterBackward1",
    "index_fill": "IndexFillBackward0",
    "index_copy": "IndexFillBackward0",
    "masked_scatter": "MaskedFillBackward0",
    "put": "PutBackward0",
}


def _prims(name: str, backward: str, kind: str) -> Structural:
    # PyTorch's index_add and index_copy save the source where it needs a gradient (only to
    # show it: its gradient reads none of its values)
    saves = {"saves": (1,), "reads": {0: (), 1: (1,)}} if name in _SHOWS_SOURCE else {}
    if kind == "add":
        return Structural(name, _add_forward, _add_vjp, backward=backward, jvp="linear", **saves)
    # PyTorch fills a copy laid out as the input; the others write a row-major result
    keep = name == "index_fill"
    # written from a tensor: the op on the tangents (where an entry repeats, the last one
    # written wins, as in the forward; the transposed gradient would add them up)
    jvp = "linear" if kind == "keep_tensor" else None
    vjp = _keep_vjp(_ZEROED_AS[name])
    return Structural(
        name, _keep_forward, vjp, backward=backward, like_input=keep, jvp=jvp, **saves
    )


_SCATTER = _prims("scatter", "ScatterBackward0", "keep_tensor")
_SCATTER_VALUE = _prims("scatter", "ScatterBackward1", "keep")
_SCATTER_ADD = _prims("scatter_add", "ScatterAddBackward0", "add")
_INDEX_ADD = _prims("index_add", "IndexAddBackward0", "add")
_INDEX_COPY = _prims("index_copy", "IndexCopyBackward0", "keep_tensor")
_INDEX_FILL = _prims("index_fill", "IndexFillBackward0", "keep")
_INDEX_FILL_TENSOR = _prims("index_fill", "IndexFillBackward1", "keep_tensor")


def _scatter_index(input: Tensor, dim: int, index: Tensor, src: Any, op: str) -> tuple:
    index = _index_tensor(index, op)
    _check_integer(index, op)
    d = _wrap_dim(dim, max(input.ndim, 1))
    if max(index.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError(
            f"Index tensor must have the same number of dimensions as self tensor: index "
            f"{list(index.shape)}, self {list(input.shape)}"
        )
    idx = index._data.astype(np.int64)
    size = input.shape[d] if input.ndim else 1
    if idx.size and ((idx < 0) | (idx >= size)).any():
        bad = idx[(idx < 0) | (idx >= size)].flat[0]
        raise RuntimeError(
            f"{op}(): index {bad} is out of bounds for dimension {d} with size {size}"
        )
    if isinstance(src, Tensor) and src.dtype is not input.dtype:
        raise RuntimeError(
            f"scatter(): Expected self.dtype to be equal to src.dtype (self {input.dtype!r}, "
            f"src {src.dtype!r}); convert src with .to(input.dtype)"
        )
    if isinstance(src, Tensor) and src.ndim != input.ndim:
        raise RuntimeError(
            f"{op}(): Index tensor must have the same number of dimensions as src tensor: "
            f"index {list(index.shape)}, src {list(src.shape)}"
        )
    # PyTorch's shape check: the index fits in self (but along dim) and in src
    fits = all(n <= m for k, (n, m) in enumerate(zip(index.shape, input.shape)) if k != d)
    is_src = isinstance(src, Tensor)
    if is_src:
        fits = fits and all(n <= m for n, m in zip(index.shape, src.shape))
    if not fits:
        also = f" and to be no larger size than src {list(src.shape)}" if is_src else ""
        raise RuntimeError(
            f"Expected index {list(index.shape)} to be no larger than self {list(input.shape)} "
            f"apart from dimension {d}{also}"
        )
    return d, idx


def _no_derivative(xp: Any, g: Any, c: Any) -> tuple:
    raise RuntimeError("derivative for aten::scatter is not implemented")


_SCATTER_REDUCED = Structural(
    "scatter",
    lambda xp, *tensors, out: xp.constant(out),
    _no_derivative,
    backward="NotImplemented",
    jvp=not_differentiable("scatter"),
)
_REDUCERS = {"add": np.add, "multiply": np.multiply}


def _reduced(input: Tensor, dim: int, index: Tensor, src: Any, value: Any, reduce: str) -> Tensor:
    """PyTorch's deprecated ``scatter(..., reduce='add' | 'multiply')``: the source combined
    into the input where the index points (repeats combine too); no derivative, as in
    PyTorch."""
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    if src is not None:
        warn_at_user(  # the function's caller, or the method's (in place, through inplace())
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be "
            "removed in a future PyTorch release. Use torch.scatter_reduce instead for more "
            "reduction options."
        )
    if reduce not in _REDUCERS:
        raise RuntimeError("reduce argument must be either add or multiply.")
    d, idx = _scatter_index(input, dim, index, src, "scatter")
    out = np.array(input._data, copy=True).reshape(input.shape or (1,))
    where = list(np.indices(idx.reshape(idx.shape or (1,)).shape))
    where[d] = idx.reshape(where[d].shape)
    if src is None:
        values = np.full(where[d].shape, value, dtype=out.dtype)
    else:
        values = src._data.reshape(src.shape or (1,))[tuple(slice(0, n) for n in where[d].shape)]
    _REDUCERS[reduce].at(out, tuple(where), values.astype(out.dtype, copy=False))
    tensors = (input,) if src is None else (input, src)
    return _SCATTER_REDUCED(*tensors, out=out.reshape(input.shape))


def _last_writer(shape: tuple, dim: int, idx: np.ndarray) -> tuple:
    """Where a scatter writes (``hit``) and which source entries are the last to write to
    their place (duplicates: the last one wins)."""
    hit = np.zeros(shape, dtype=bool)
    winner = np.zeros(idx.shape, dtype=bool)
    grid = np.indices(idx.shape) if idx.ndim else np.zeros((0,), np.int64)
    seen: dict = {}
    for pos in zip(*(g.reshape(-1) for g in grid)) if idx.ndim else [()]:
        target = list(pos)
        if idx.ndim:
            target[dim] = idx[pos]
        seen[tuple(target)] = pos
    for target, pos in seen.items():
        hit[target] = True
        winner[pos] = True
    return hit, winner


def scatter(
    input: Tensor,
    dim: int,
    index: Tensor,
    src: Any = None,
    *,
    value: Any = None,
    reduce: str | None = None,
) -> Tensor:
    """``input`` with ``out[index[i][j]][j] = src[i][j]`` along ``dim`` (``dim=0`` here), or
    ``value`` there; where an index repeats, the last write wins. PyTorch's deprecated
    ``reduce='add'`` or ``'multiply'`` combines the source with the entries instead (no
    derivative, as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.zeros(3).scatter(0, symgrad.tensor([2, 0]), symgrad.tensor([5.0, 7.0]))
    tensor([7., 0., 5.])
    """
    if reduce is not None:
        return _reduced(input, dim, index, src, value, reduce)
    if src is None and value is None:
        raise TypeError("scatter() missing the source: give src (a tensor) or value")
    if src is not None and not isinstance(src, Tensor):
        src, value = None, src
    if src is None and not isinstance(value, Tensor):
        value = check_fill(value, input.dtype, "scatter")
    if _batching.any_batched(input, index, src) and input.ndim:  # inside vmap: once
        d = _wrap_dim(dim, input.ndim) + 1
        if src is None:
            return _batching.per_batch(lambda a, i: scatter(a, d, i, value=value), input, index)
        return _batching.per_batch(lambda a, i, s: scatter(a, d, i, s), input, index, src)
    d, idx = _scatter_index(input, dim, index, src, "scatter")
    hit, winner = _last_writer(tuple(input.shape), d, idx)
    along = _Along(tuple(input.shape), d, idx, winner.astype(input._data.dtype))
    if src is None:
        result = _SCATTER_VALUE(input, hit=hit, put=along.put, value=value, take=along.take)
        return _watched(result, index)
    src_part = src[tuple(slice(0, n) for n in idx.shape)] if src.shape != idx.shape else src
    result = _SCATTER(input, src_part, hit=hit, put=along.put, value=None, take=along.take)
    return _watched(result, index)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``input`` plus ``src`` added at ``index`` along ``dim`` (repeats accumulate).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.zeros(3).scatter_add(0, symgrad.tensor([2, 2]), symgrad.tensor([5.0, 7.0]))
    tensor([ 0.,  0., 12.])
    """
    require_tensor("scatter_add", "src", 3, src)
    if _batching.any_batched(input, index, src) and input.ndim:  # inside vmap: once
        d = _wrap_dim(dim, input.ndim) + 1
        return _batching.per_batch(lambda a, i, s: scatter_add(a, d, i, s), input, index, src)
    d, idx = _scatter_index(input, dim, index, src, "scatter_add")
    src_part = src[tuple(slice(0, n) for n in idx.shape)] if src.shape != idx.shape else src
    along = _Along(tuple(input.shape), d, idx)
    result = _SCATTER_ADD(input, src_part, put=along.put, take=along.take, alpha=1)
    return _watched(result, index) if src._requires_grad else result  # (src's reads it)


def _check_source_dtype(input: Tensor, source: Tensor, op: str) -> None:
    if source.dtype is input.dtype:
        return
    mine, theirs = input.dtype.scalar_type, source.dtype.scalar_type
    if op == "index_add":
        raise RuntimeError(
            f"index_add_(): self ({mine}) and source ({theirs}) must have the same scalar type"
        )
    raise RuntimeError(
        f"{op}_(): self and source expected to have the same dtype, but got (self) {mine} and "
        f"(source) {theirs}"
    )


def _rows(input: Tensor, dim: int, index: Tensor, op: str, source: Any = None) -> tuple:
    index = _index_tensor(index, op)
    if op != "index_add" and index.dtype.scalar_type != "Long":  # (index_add takes int32 too)
        kind = index.dtype.scalar_type
        if op == "index_fill":
            raise IndexError(
                f"index_fill_(): Expected dtype int64 for index, got {kind}; convert the "
                "indices with .long()"
            )
        raise RuntimeError(
            f"{op}_(): Expected a long tensor for index, but got {kind}; convert the indices "
            "with .long()"
        )
    _check_integer(index, op)
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector, got {index.ndim}-D")
    d = _wrap_dim(dim, max(input.ndim, 1))
    idx = index._data.astype(np.int64).reshape(-1)
    if source is not None:
        _check_source_dtype(input, source, op)
        n = source.shape[d] if source.ndim else 1
        if idx.size != n:
            raise RuntimeError(
                f"{op}_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                f"({n}), for dim: {d}"
            )
        other = [k for k in range(input.ndim) if k != d]
        if source.ndim != input.ndim or any(source.shape[k] != input.shape[k] for k in other):
            raise RuntimeError(
                "source tensor shape must match self tensor shape, excluding the specified "
                f"dimension. Got self.shape = {list(input.shape)} source.shape = "
                f"{list(source.shape)}"
            )
    size = input.shape[d] if input.ndim else 1
    outside = (idx < 0) | (idx >= size)
    if outside.any():
        # PyTorch: RuntimeError from index_add, IndexError from the others
        error = RuntimeError if op == "index_add" else IndexError
        prefix = f"{op}_(): " if op == "index_copy" else ""
        raise error(
            f"{prefix}index {idx[outside][0]} is out of bounds for dimension {d} with size {size}"
        )
    return d, idx


def _alpha_as(input: Tensor, alpha: Any) -> Any:
    """``alpha`` in ``input``'s dtype, as PyTorch's kernel reads it: an integer tensor's
    truncated toward zero (1.5 adds the source once), a bool tensor's as a bool."""
    if input.dtype.is_floating_point or isinstance(alpha, Tensor):
        return alpha
    try:
        return bool(alpha) if input.dtype is dtypes.bool_ else int(alpha)
    except TypeError:  # (a complex number: the add's own error)
        return alpha


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """``input`` plus ``alpha * source`` added at the entries ``index`` along ``dim``."""
    require_tensor("index_add", "source", 3, source)
    alpha = _alpha_as(input, alpha)
    if _batching.any_batched(input, index, source) and input.ndim:
        d = _wrap_dim(dim, input.ndim)
        picks = _spread(index.reshape(-1), tuple(source.shape), d)
        return scatter_add(input, d, picks, source if alpha == 1 else source * alpha)
    d, idx = _rows(input, dim, index, "index_add", source)
    rows = _Rows(tuple(input.shape), d, idx)
    shown = (("dim", dim % 2**64),)  # (as given: a negative one as PyTorch shows it)
    result = _INDEX_ADD(input, source, put=rows.put, take=rows.take, alpha=alpha, saved_as=shown)
    return _watched(result, index) if source._requires_grad else result  # (source's reads it)


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with the entries ``index`` along ``dim`` replaced by ``source``'s."""
    require_tensor("index_copy", "source", 3, source)
    if _batching.any_batched(input, index, source) and input.ndim:
        d = _wrap_dim(dim, input.ndim)
        return scatter(input, d, _spread(index.reshape(-1), tuple(source.shape), d), source)
    d, idx = _rows(input, dim, index, "index_copy", source)
    rows = _LastRows(tuple(input.shape), d, idx)
    hit = np.zeros(input.shape, dtype=bool)
    hit[rows.key] = True
    shown = (("dim", dim % 2**64),)  # (as given: a negative one as PyTorch shows it)
    result = _INDEX_COPY(
        input, source, hit=hit, put=rows.put, value=None, take=rows.take, saved_as=shown
    )
    return _watched(result, index)


def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``input`` with the entries ``index`` along ``dim`` set to ``value``."""
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value.ndim} dimension(s)."
        )
    if not isinstance(value, Tensor):
        value = check_fill(value, input.dtype, "index_fill")
    if _batching.any_batched(input, index, value) and input.ndim:
        d = _wrap_dim(dim, input.ndim)
        picks = _spread(index.reshape(-1), tuple(input.shape), d)
        if isinstance(value, Tensor):  # the places marked, so each gives the value one gradient
            marks = scatter(Tensor._make(np.zeros(tuple(input.shape), bool)), d, picks, value=True)
            return WHERE(marks, value.to(input.dtype), input)
        return scatter(input, d, picks, value=value)
    d, idx = _rows(input, dim, index, "index_fill")
    hit = np.zeros(input.shape, dtype=bool)
    hit[(slice(None),) * d + (idx,) if input.ndim else Ellipsis] = idx.size > 0
    shown = (("dim", dim % 2**64),)  # (as given: a negative one as PyTorch shows it)
    if isinstance(value, Tensor):  # an input of its own, which gets a gradient
        filled = _Filled(hit)
        value = value.to(input.dtype)
        fill = {"put": filled.put, "value": None, "take": filled.take, "saved_as": shown}
        return _watched(_INDEX_FILL_TENSOR(input, value, hit=hit, **fill), index)
    fill = {"put": None, "value": value, "take": None, "saved_as": shown}
    return _watched(_INDEX_FILL(input, hit=hit, **fill), index)


def _watched(result: Tensor, index: Tensor) -> Tensor:
    """``result``, its node reading ``index`` in the backward pass (see ``watch_indices``)."""
    watch_indices(result, index)
    return result
