"""Batching rules: how a primitive runs on a batch of inputs at once, for ``vmap``.

Inside ``vmap`` a mapped input is a :class:`BatchedTensor`: a *logical* tensor (the one the
mapped function sees, one element of the batch) held by a *physical* tensor whose dimension 0
runs over the batch. The function's Python code sees the logical shape; when it reaches a
primitive that declares a batching rule, the rule rewrites the call for the physical tensors
(an element-wise op aligns them, a reduction shifts its ``dim``, ``matmul`` lifts vectors to
matrices) and runs the primitive once on the whole batch, recording the graph on the physical
tensors as usual. A primitive without a rule runs once per element of the batch (and says so
once); reading a batched tensor's array raises :class:`Unbatchable`, and ``vmap`` then runs the
whole function once per element instead.

Levels: each running ``vmap`` has a level (1 for the outermost). A nested ``vmap`` wraps
batched tensors in batched tensors, the inner level outside, so the physical array of a
tensor batched at levels 1 and 2 has the batch of level 1 first; each level's rule calls the
primitive on the level below. :func:`unwrap_level` and :func:`wrap_level` move one level's
batch between the batched form and a plain leading dimension: the differentiating transforms
use them to run on the physical tensors, where a batch of gradients is one gradient.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad._data import Size
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = [
    "BatchedTensor",
    "Unbatchable",
    "STATE",
    "batched_call",
    "broadcasting_op",
    "physical",
    "unwrap_level",
    "wrap_level",
    "storage",
    "on_storage",
]


class Unbatchable(Exception):
    """An operation inside ``vmap`` that has no batching rule (the caller loops instead)."""


class _State:
    __slots__ = ("depth",)

    def __init__(self) -> None:
        self.depth = 0


STATE = _State()
_DATA = Tensor.__dict__["_data"]  # the slot of the physical array, bypassing the refusal


class _LogicalArray:
    """What a batched tensor shows as its array: the logical ``shape``, ``ndim``, ``size`` and
    ``dtype`` that op wrappers check; its values are refused (:class:`Unbatchable`)."""

    __slots__ = ("_physical",)

    def __init__(self, physical: Any) -> None:
        self._physical = physical

    @property
    def shape(self) -> tuple:
        return tuple(self._physical.shape)[1:]

    @property
    def ndim(self) -> int:
        return self._physical.ndim - 1

    @property
    def size(self) -> int:
        return Size(self.shape).numel()

    @property
    def dtype(self) -> Any:
        return _DATA.__get__(_innermost(self._physical)).dtype

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise Unbatchable("an operation read the values of a batched tensor")

    def __getattr__(self, name: str) -> Any:
        raise Unbatchable(f"an operation read the array attribute {name!r} of a batched tensor")


def storage(t: Any) -> tuple:
    """``(array, batch sizes)``: the array holding a tensor's values, and the sizes of the
    batch dimensions in front of its logical ones (none for a plain tensor)."""
    depth = 0
    while isinstance(t, BatchedTensor):
        t, depth = t._physical, depth + 1
    array = _DATA.__get__(t)
    return array, tuple(array.shape[:depth])


def on_storage(t: Any, fn: Any) -> Any:
    """``fn`` of the plain tensor holding a batched tensor's values (its batch dimensions in
    front, see :func:`storage`), whose results have the same batch dimensions in front: those
    results batched again as ``t`` is. For an op whose key is found from the values (max
    pooling), computed once for the whole batch."""
    if not isinstance(t, BatchedTensor):
        return fn(t)
    out = on_storage(t._physical, fn)
    if isinstance(out, tuple):
        return tuple(BatchedTensor(o, t._level) for o in out)
    return BatchedTensor(out, t._level)


def _innermost(t: Any) -> Any:
    while isinstance(t, BatchedTensor):
        t = t._physical
    return t


def _refuse(self: Any) -> Any:
    return _LogicalArray(self._physical)


class BatchedTensor(Tensor):
    """One element of a batch, standing for ``physical[i]`` for every ``i`` at once.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import vmap
    >>> vmap(lambda x: (x * x).sum())(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([ 5., 25.])
    """

    __slots__ = ("_physical", "_level")

    _data = property(_refuse)  # type: ignore[assignment]

    def __init__(self, physical: Tensor, level: int) -> None:  # noqa: D107
        self._physical = physical
        self._level = level
        self._requires_grad = physical.requires_grad
        self.grad_fn = None
        self._output_nr = 0
        self._name = None
        self._origin = None
        self._fw = None

    @property
    def shape(self) -> Size:
        return Size(tuple(self._physical.shape)[1:])

    def size(self, dim: int | None = None) -> Any:
        return self.shape if dim is None else self.shape[dim]

    @property
    def ndim(self) -> int:
        return self._physical.ndim - 1

    def dim(self) -> int:
        return self.ndim

    def numel(self) -> int:
        return self.shape.numel()

    @property
    def dtype(self) -> Any:
        return self._physical.dtype

    @property
    def requires_grad(self) -> bool:
        return self._physical.requires_grad

    def detach(self) -> BatchedTensor:
        """The batch cut from the graph."""
        return BatchedTensor(self._physical.detach(), self._level)

    def __repr__(self) -> str:
        return f"BatchedTensor(level={self._level}, logical shape={list(self.shape)})"


def physical(t: Any, level: int) -> Any:
    """The physical tensor of a batched tensor of ``level`` (anything else as it is)."""
    if isinstance(t, BatchedTensor) and t._level == level:
        return t._physical
    return t


def unwrap_level(t: Any, level: int, size: int) -> Any:
    """``t`` with the batch of ``level`` as a plain leading dimension of its logical shape (the
    tensor as the levels below ``level`` see it); a tensor not batched at ``level`` is
    repeated ``size`` times."""
    if isinstance(t, BatchedTensor) and t._level >= level:
        if t._level == level:
            return t._physical
        inner = unwrap_level(t._physical, level, size)  # logical (size, t's batch, ...)
        return BatchedTensor(inner.transpose(0, 1), t._level)
    if not isinstance(t, Tensor):
        return t
    return t.unsqueeze(0).expand((size,) + tuple(t.shape))


def wrap_level(t: Any, level: int) -> Any:
    """The inverse of :func:`unwrap_level`: ``t``'s leading dimension becomes the batch of
    ``level`` (inside the batches of the levels above it)."""
    if isinstance(t, BatchedTensor) and t._level > level:
        return BatchedTensor(wrap_level(t._physical.transpose(0, 1), level), t._level)
    if not isinstance(t, Tensor):
        return t
    return BatchedTensor(t, level)


def _top_level(args: tuple) -> int | None:
    levels = [a._level for a in args if isinstance(a, BatchedTensor)]
    return max(levels) if levels else None


def batched_call(prim: Any, args: tuple, params: Any, kind: str) -> Any:
    """``prim`` applied to ``args`` of which some are batched: the rule ``prim.batch`` (a
    function, or the name of one of the shared rules below; ``kind`` tells the calling
    convention: "elementwise" takes ``params`` as a tuple), else once per batch element."""
    level = _top_level(args)
    rule = prim.batch if callable(prim.batch) else _RULES.get(prim.batch)
    size = batch_size(args, level)
    if rule is None:
        out = _each_element(prim, args, params, level, kind, size)
    else:
        out = rule(prim, args, params, level, kind)
    if isinstance(out, tuple):
        return tuple(BatchedTensor(o, level) for o in out)
    if out.shape[:1] != (size,):
        raise Unbatchable(f"{prim.name}'s batching rule lost the batch")  # pragma: no cover
    return BatchedTensor(out, level)


def batch_size(args: Any, level: int) -> int:
    """The batch size of ``level``, from the first of ``args`` batched there."""
    return next(a._physical.shape[0] for a in args if is_batched(a, level))


def is_batched(t: Any, level: int) -> bool:
    """Whether ``t`` is a batched tensor of ``level``."""
    return isinstance(t, BatchedTensor) and t._level == level


_warned: set = set()


def _each_element(prim: Any, args: tuple, params: Any, level: int, kind: str, size: int) -> Any:
    """The fallback for a primitive without a rule: once per element, results stacked."""
    if prim.name not in _warned:
        _warned.add(prim.name)
        warnings.warn(
            f"vmap: {prim.name} has no batching rule yet: it runs once per batch element",
            UserWarning,
            stacklevel=4,
        )
    xp = INTERPRETERS.tensor
    results = []
    for i in range(size):
        picked = [a._physical[i] if is_batched(a, level) else a for a in args]
        one = prim(*picked, params=params) if kind == "elementwise" else prim(*picked, **params)
        results.append(one)
    if isinstance(results[0], tuple):
        return tuple(xp.cat([xp.unsqueeze(r, 0) for r in rs], 0) for rs in zip(*results))
    return xp.cat([xp.unsqueeze(r, 0) for r in results], 0)


def broadcasting_op(fn: Any, args: tuple) -> Any:
    """``fn(*args)`` for a function that broadcasts element by element (a comparison), with
    some ``args`` batched: ``fn`` of the aligned physical operands, batched again."""
    level = _top_level(args)
    return BatchedTensor(fn(*_aligned(args, level)), level)


def _logical_ndim(a: Any, level: int) -> int:
    if isinstance(a, BatchedTensor) and a._level == level:
        return a._physical.ndim - 1
    return a.ndim if isinstance(a, Tensor) else 0


def _aligned(args: tuple, level: int) -> list:
    """Physical operands that broadcast as the logical ones do: a batched operand gets size-1
    dimensions after its batch dimension up to the result's number of dimensions."""
    n = max(_logical_ndim(a, level) for a in args)
    out = []
    for a in args:
        if isinstance(a, BatchedTensor) and a._level == level:
            p = a._physical
            k = p.ndim - 1
            if k < n:
                p = p.reshape((p.shape[0],) + (1,) * (n - k) + tuple(p.shape[1:]))
            out.append(p)
        else:
            out.append(a)
    return out


def _elementwise(prim: Any, args: tuple, params: Any, level: int, kind: str) -> Any:
    phys = _aligned(args, level)
    if kind == "elementwise":
        return prim(*phys, params=params)
    return prim(*phys, **params)


def _shift(d: Any, n: int) -> Any:
    if d is None:
        return tuple(range(1, n + 1))
    if isinstance(d, tuple):
        return tuple(k + 1 for k in d)
    return d + 1


def _reduction(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """An op of one batched input whose dimension parameters count logical dimensions."""
    (a,) = args
    if not (isinstance(a, BatchedTensor) and a._level == level):
        raise Unbatchable(f"{prim.name} of an unbatched input")  # pragma: no cover
    n = a._physical.ndim - 1
    new = dict(params)
    for key in ("dim", "dim0", "dim1"):
        if key in new:
            new[key] = _shift(new[key], n)
    if "dims" in new:
        new["dims"] = (0,) + _shift(tuple(new["dims"]), n)
    if "shape" in new:
        new["shape"] = (a._physical.shape[0],) + tuple(new["shape"])
    return prim(a._physical, **new)


def _flip(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    return prim(args[0]._physical, dims=tuple(d + 1 for d in params["dims"]))


def _expand(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """``expand``: the new leading dimensions go after the batch."""
    p, shape = args[0]._physical, tuple(params["shape"])
    new = len(shape) - (p.ndim - 1)
    if new > 0:
        p = p.reshape((p.shape[0],) + (1,) * new + tuple(p.shape[1:]))
    return prim(p, shape=(p.shape[0],) + shape)


def _sum_to_size(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """``sum_to_size``: the extra leading dimensions, after the batch, summed first."""
    p, shape = args[0]._physical, tuple(params["shape"])
    extra = p.ndim - 1 - len(shape)
    if extra > 0:
        p = p.sum(tuple(range(1, extra + 1)))
    target = (p.shape[0],) + shape
    return p if tuple(p.shape) == target else prim(p, shape=target)


def _physical_key(key: Any) -> tuple:
    """``(the key for the physical tensor, where its result holds the batch)``: a full slice
    in front, and NumPy's rule that index arrays apart from each other put their dimensions
    first, before the batch."""
    items = key if isinstance(key, tuple) else (key,)
    phys = (slice(None),) + tuple(items)
    if not any(isinstance(k, np.ndarray) for k in items):
        return phys, 0
    adv = [i for i, k in enumerate(items) if isinstance(k, (np.ndarray, int, np.integer))]
    if adv == list(range(adv[0], adv[-1] + 1)):
        return phys, 0
    shapes = [
        (int(k.sum()),) if k.dtype == np.bool_ else k.shape
        for k in items
        if isinstance(k, np.ndarray)
    ]
    return phys, len(np.broadcast_shapes(*shapes))


def _getitem(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """``x[key]`` (and ``index_select``) of a batch, with any key of unbatched indices."""
    key, at = _physical_key(params["key"])
    out = prim(args[0]._physical, key=key)
    return out.movedim(at, 0) if at else out


def _index_put_zeros(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """Zeros with a batch of gradients placed at ``key`` (the VJP of indexing)."""
    key, at = _physical_key(params["key"])
    g = args[0]._physical
    g = g.movedim(0, at) if at else g
    shape = (g.shape[at],) + tuple(params["shape"])
    return prim(g, shape=shape, key=key, unique=params["unique"])


def _along_index(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """``gather`` and its VJP ``scatter_zeros``: the index repeated over the batch."""
    p = args[0]._physical
    index = params["index"]
    new = dict(params, dim=params["dim"] + 1)
    new["index"] = np.broadcast_to(index[None], (p.shape[0],) + index.shape)
    if "shape" in params:
        new["shape"] = (p.shape[0],) + tuple(params["shape"])
    return prim(p, **new)


def _join(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """``cat`` and ``stack``: every operand batched (an unbatched one repeated)."""
    size = batch_size(args, level)
    phys = [unwrap_level(a, level, size) for a in args]
    return prim(*phys, **dict(params, dim=params["dim"] + 1))


def _trailing(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """An op on the trailing dimensions of its one input (average pooling): the batch is one
    more leading dimension."""
    return prim(args[0]._physical, **params)


def _matmul(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """``a @ b`` for each element: vectors become matrices, batch dimensions are padded to
    line up after the batch, and the padding is dropped from the result."""
    a, b = args
    a_vec, b_vec = _logical_ndim(a, level) == 1, _logical_ndim(b, level) == 1
    pa, pb = physical(a, level), physical(b, level)
    a_batched, b_batched = pa is not a, pb is not b
    if a_batched and not b_batched and b.ndim <= 2:
        # the batch (and any batch dimensions of a) folded into a's rows: one matrix product,
        # the one a stacked input would get outside vmap (so the same rounding)
        rows = pa.reshape((-1, pa.shape[-1]))
        out = prim(rows, pb)
        return out.reshape(tuple(pa.shape[:-1]) + tuple(out.shape[1:]))
    if a_vec:
        pa = pa.unsqueeze(-2)
    if b_vec:
        pb = pb.unsqueeze(-1)
    # the logical batch dimensions of each (after lifting vectors), padded to the same count
    ka = pa.ndim - 2 - a_batched
    kb = pb.ndim - 2 - b_batched
    k = max(ka, kb)
    if a_batched and ka < k:
        pa = pa.reshape((pa.shape[0],) + (1,) * (k - ka) + tuple(pa.shape[1:]))
    if b_batched and kb < k:
        pb = pb.reshape((pb.shape[0],) + (1,) * (k - kb) + tuple(pb.shape[1:]))
    if not a_batched:  # the batch is b's first dimension: a broadcasts against it
        pa = pa.reshape((1,) * (k - ka + 1) + tuple(pa.shape))
    if not b_batched:
        pb = pb.reshape((1,) * (k - kb + 1) + tuple(pb.shape))
    out = prim(pa, pb)
    if b_vec:
        out = out.squeeze(-1)
    if a_vec:
        out = out.squeeze(-1 if b_vec else -2)
    return out


def _loss(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """A fused loss: its unreduced values for the whole batch, then each element's own sum
    or mean."""
    phys = _aligned(args, level)
    size = next(p.shape[0] for a, p in zip(args, phys) if p is not a)
    shape = tuple(params["shape"])
    loss = prim(*phys, **dict(params, shape=(size,) + shape, reduction="none"))
    if params["reduction"] == "none":
        return loss
    total = loss.sum(tuple(range(1, len(shape) + 1))) if shape else loss
    if params["reduction"] != "mean":
        return total
    n = Size(shape).numel()
    return total / n if n else total * float("nan")


_RULES = {
    "loss": _loss,
    "elementwise": _elementwise,
    "reduction": _reduction,
    "getitem": _getitem,
    "index_put_zeros": _index_put_zeros,
    "along_index": _along_index,
    "join": _join,
    "trailing": _trailing,
    "expand": _expand,
    "flip": _flip,
    "sum_to_size": _sum_to_size,
    "matmul": _matmul,
}
