"""The batching rules shared by many primitives, and the dispatch of a primitive called with
batched tensors (see :mod:`symgrad.prim.batching`): a primitive names one of these rules by
its ``batch`` declaration, or gives its own rule function there (convolution, normalization).
A rule takes ``(prim, args, params, level, kind)`` and returns the physical result."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad._data import Size
from symgrad.prim.batching import (
    BatchedTensor,
    Unbatchable,
    _aligned,
    _logical_ndim,
    _top_level,
    batch_size,
    is_batched,
    physical,
    unwrap_level,
)
from symgrad.prim.vocab import INTERPRETERS

__all__ = ["batched_call", "aligned_reduction", "physical_key"]


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


def aligned_reduction(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """An op of several operands that broadcast element-wise, with dimension parameters
    counting logical dimensions (a softmax's gradient in its gradient and output)."""
    phys = _aligned(args, level)
    n = max(_logical_ndim(a, level) for a in args)
    dim = params["dim"]
    dims = tuple(d % n if n else d for d in (dim if isinstance(dim, tuple) else (dim,)))
    shifted = tuple(d + 1 for d in dims)
    return prim(*phys, **dict(params, dim=shifted if isinstance(dim, tuple) else shifted[0]))


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


def physical_key(key: Any) -> tuple:
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
    key, at = physical_key(params["key"])
    out = prim(args[0]._physical, key=key)
    return out.movedim(at, 0) if at else out


def _index_put_zeros(prim: Any, args: tuple, params: dict, level: int, kind: str) -> Any:
    """Zeros with a batch of gradients placed at ``key`` (the VJP of indexing)."""
    key, at = physical_key(params["key"])
    g = args[0]._physical
    g = g.movedim(0, at) if at else g
    shape = (g.shape[at],) + tuple(params["shape"])
    return prim(g, shape=shape, key=key, unique=params["unique"], node=params.get("node"))


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
