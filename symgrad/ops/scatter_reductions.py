"""``scatter_reduce``: the entries of ``src`` reduced into ``input`` along a dimension by an
index tensor, with ``sum``, ``prod``, ``mean``, ``amax`` or ``amin``, counting ``input``'s own
entry or not (``include_self``), and PyTorch's gradients (``ScatterReduceBackward0``):

- ``sum``: the incoming gradient to ``input``, and picked at the written places for ``src``;
- ``mean``: the same divided by the number of values each place averaged;
- ``prod``: for each factor the product of the other factors of its place, so it is exact
  where factors are zero (the factors of a place are laid out as a stack, one slot per
  factor, ``input``'s entry in slot 0; empty slots hold 1);
- ``amax``/``amin``: shared evenly by the values equal to the result (ties split it).

Without ``include_self``, ``input``'s entries at the written places get no gradient.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._data import _wrap_dim
from symgrad._tracing import TRACE, data_params
from symgrad.ops.scattering import _scatter_index
from symgrad.prim import batching as _batching
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["scatter_reduce"]

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
# PyTorch also takes the older names max and min forward, but has no gradient for them
_LEGACY = {"max": "amax", "min": "amin"}
_AT = {
    "sum": np.add,
    "mean": np.add,
    "prod": np.multiply,
    "amax": np.maximum,
    "amin": np.minimum,
}


class _Places:
    """Where each ``src`` entry lands in ``input`` (``target``, a NumPy index), its slot in
    the stack of factors of that place (its rank among the entries landing there, plus one),
    which places are written (``hit``) and by how many entries (``count``)."""

    def __init__(self, shape: tuple, dim: int, index: np.ndarray) -> None:
        grids = list(np.indices(index.shape))
        grids[dim] = index
        self.shape, self.dim, self.index = shape, dim, index
        self.target = tuple(grids)
        size = int(np.prod(shape))
        flat = np.ravel_multi_index(self.target, shape).reshape(-1) if index.size else []
        flat = np.asarray(flat, dtype=np.int64)
        self.count = np.bincount(flat, minlength=size).reshape(shape)
        self.hit = self.count > 0
        order = np.argsort(flat, kind="stable")
        ranks = np.empty(flat.size, dtype=np.int64)
        firsts = np.searchsorted(flat[order], flat[order], side="left")
        ranks[order] = np.arange(flat.size) - firsts
        self.slot = (ranks.reshape(index.shape) + 1,) + self.target
        self.depth = 1 + int(self.count.max(initial=0))
        occupied = np.zeros((self.depth,) + shape, dtype=bool)
        occupied[self.slot] = True
        self.occupied = occupied[1:]


def _first(xp: Any, a: Any, p: dict, fill: Any) -> Any:
    """``input``'s slot: its entries, or ``fill`` at the written places without
    ``include_self``."""
    if p["include_self"]:
        return a
    return xp.where(xp.constant(p["places"].hit), fill, a)


def _stack(xp: Any, a: Any, s: Any, p: dict, fill: Any) -> Any:
    """Every place's factors along a new first dimension (``fill`` in the empty slots)."""
    places = p["places"]
    first = xp.unsqueeze(_first(xp, a, p, fill), 0)
    if places.depth == 1:
        return first
    rest_shape = (places.depth - 1,) + places.shape
    key = (places.slot[0] - 1,) + places.slot[1:]
    placed = xp.index_put_zeros(rest_shape, key, s, True)
    return xp.cat([first, xp.where(xp.constant(places.occupied), placed, fill)], 0)


def _forward(xp: Any, a: Any, s: Any, **p: Any) -> Any:
    reduce, places = p["reduce"], p["places"]
    if reduce in ("sum", "mean"):
        total = _first(xp, a, p, 0.0) + xp.scatter_zeros(places.shape, places.dim, places.index, s)
        return total if reduce == "sum" else total / xp.constant(p["divisor"])
    stack = _stack(xp, a, s, p, 1.0 if reduce == "prod" else p["identity"])
    if reduce == "prod":
        return xp.getitem(stack * xp.prod_others(stack, (0,)), (0,))
    return xp.extremum(stack, (0,), False, np.argmax if reduce == "amax" else np.argmin)


def _kernel(xp: Any, a: np.ndarray, s: np.ndarray, **p: Any) -> np.ndarray:
    """The reduction as PyTorch's kernel does it: ``input``'s entries (or the reduction's
    identity), then each ``src`` entry folded in, in index order."""
    reduce, places = p["reduce"], p["places"]
    out = np.array(a, copy=True)
    if not p["include_self"]:
        out[places.hit] = p["identity"]
    _AT[reduce].at(out, places.target, s)
    if reduce == "mean":
        divide = np.floor_divide if out.dtype.kind in "iu" else np.true_divide
        out = divide(out, p["divisor"]).astype(out.dtype)
    return out


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = c.params
    reduce, places = p["reduce"], p["places"]
    if p["asked"] != reduce:
        raise RuntimeError(
            "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got "
            f"{p['asked']}."
        )
    if reduce == "sum":
        g_self, g_src = g, xp.gather(g, places.dim, places.index)
    elif reduce == "mean":  # (the source's: the gathered gradient over the gathered counts)
        divisor = np.broadcast_to(p["divisor"], tuple(g.shape))
        g_self = g / xp.constant(divisor)
        picked = np.take_along_axis(divisor, places.index, places.dim)
        g_src = xp.gather(g, places.dim, places.index) / xp.constant(picked)
    elif reduce == "prod":
        g_self, g_src = _prod_vjp(xp, g, c)
    else:  # ties share: PyTorch's count includes input's entry even without include_self
        share = g / xp.constant(p["ties"])
        g_self = xp.constant(p["self_is"]) * share
        g_src = xp.constant(p["src_is"]) * xp.gather(share, places.dim, places.index)
    if not p["include_self"]:
        # (grad.scatter(dim, index, 0) in PyTorch's formula: ScatterBackward1)
        g_self = xp.masked_fill(g_self, xp.constant(places.hit), 0.0, node="ScatterBackward1")
    return (g_self if c.needs[0] else None, g_src if c.needs[1] else None)


def _prod_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """PyTorch's rule: ``g * result / x`` for each factor ``x``, where the zeros are kept out
    of the division: ``input``'s by replacing them with 1 in the product, a lone zero of
    ``src`` at its place by the product of the others (two or more make the product 0)."""
    a, s = c.inputs
    p = c.params
    places = p["places"]
    self_zero, lone_zero, src_zero = (xp.constant(p[k]) for k in ("self_zero", "lone", "src_zero"))
    masked_self = xp.where(self_zero, 1.0, a)
    g_self = g * _forward(xp, masked_self, s, **p) / masked_self
    if xp is INTERPRETERS.tensor and p["zeros_together"]:
        raise RuntimeError(
            "scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
            "scattered to the same position in self"
        )
    others = _forward(xp, a, xp.where(lone_zero, 1.0, s), **p)
    g_lone = xp.gather(g * others, places.dim, places.index)
    g_rest = xp.gather(g * c.out, places.dim, places.index) / xp.where(src_zero, 1.0, s)
    return g_self, xp.where(lone_zero, g_lone, g_rest)


def _extremum_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    """PyTorch's forward rule for amax and amin: the mean of the tangents of the entries equal
    to the result (input's counted only where it takes part, unlike the gradient's split)."""
    p = c.params
    places = p["places"]
    self_t, src_t = (
        xp.constant(np.zeros(shape)) if t is None else t for t, shape in zip(tangents, c.shapes)
    )
    first = p["self_is"] if p["include_self"] else np.where(places.hit, 0, p["self_is"])
    count = np.array(first, copy=True)
    np.add.at(count, places.target, p["src_is"])
    src_t = xp.constant(p["src_is"]) * src_t
    total = _first(xp, xp.constant(p["self_is"]) * self_t, p, 0.0) + xp.scatter_zeros(
        places.shape, places.dim, places.index, src_t
    )
    return total / xp.constant(count)


def _prod_masks(a: np.ndarray, s: np.ndarray, places: _Places) -> dict:
    src_zero = s == 0
    zeros = np.zeros(places.shape, dtype=np.int64)
    np.add.at(zeros, places.target, src_zero.astype(np.int64))
    return {
        "self_zero": a == 0,
        "src_zero": src_zero,
        "lone": src_zero & (zeros[places.target] == 1),
        "zeros_together": bool((zeros > 1).any()),
    }


_JVPS = {"amax": _extremum_jvp, "amin": _extremum_jvp}


def reduce_prims(name: str, backward: str) -> dict:
    """One primitive per reduction, named ``name`` with PyTorch's node ``backward``."""
    return {reduce: _prim(reduce, name, backward) for reduce in _REDUCTIONS}


def _prim(reduce: str, name: str, backward: str) -> Structural:
    return Structural(
        name,
        _forward,
        _vjp,
        saves=(0, 1) if reduce == "prod" else (),
        saves_out=reduce == "prod",
        backward=backward,
        kernel=_kernel,
        jvp="linear" if reduce in ("sum", "mean") else _JVPS.get(reduce),
    )


_PRIMS = reduce_prims("scatter_reduce", "ScatterReduceBackward0")


def _identity(reduce: str, dtype: np.dtype) -> Any:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _check(input: Tensor, src: Any, reduce: str) -> None:
    if reduce not in _REDUCTIONS and reduce not in _LEGACY:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    if not isinstance(src, Tensor):
        raise TypeError(
            f"scatter_reduce(): argument 'src' must be Tensor, not {type(src).__name__}"
        )
    if src.dtype is not input.dtype:
        raise RuntimeError(
            f"scatter(): Expected self.dtype to be equal to src.dtype (self {input.dtype!r}, "
            f"src {src.dtype!r}); convert src with .to(input.dtype)"
        )
    if reduce == "mean" and input.dtype.category == 0:
        raise NotImplementedError(
            "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'"
        )


def _check_sizes(input: Tensor, d: int, index: np.ndarray, src: Tensor) -> None:
    if not input.ndim:
        return
    too_big = any(
        index.shape[k] > src.shape[k] or (k != d and index.shape[k] > input.shape[k])
        for k in range(index.ndim)
    )
    if too_big:
        raise RuntimeError(
            f"Expected index {list(index.shape)} to be no larger than self "
            f"{list(input.shape)} apart from dimension {d} and to be no larger size than src "
            f"{list(src.shape)}"
        )


def _tie_masks(a: np.ndarray, s: np.ndarray, out: np.ndarray, places: _Places) -> dict:
    """PyTorch's even split among the values equal to the result."""
    value = out[places.target]
    self_is = (a == out).astype(out.dtype)
    src_is = (s == value).astype(out.dtype)
    ties = self_is.copy()
    np.add.at(ties, places.target, src_is)
    return {"self_is": self_is, "src_is": src_is, "ties": ties}


def scatter_reduce(
    input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
) -> Tensor:
    """``input`` with the entries of ``src`` reduced into it at ``index`` along ``dim``
    (``out[index[i]] = reduce(out[index[i]], src[i])`` for ``dim=0``): ``reduce`` is ``'sum'``,
    ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``; ``include_self=False`` leaves
    ``input``'s entries out of the places written to.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0, 3.0])
    >>> index = symgrad.tensor([0, 0, 2])
    >>> x.scatter_reduce(0, index, symgrad.tensor([5.0, 7.0, 1.0]), "amax")
    tensor([7., 2., 3.])
    >>> x.scatter_reduce(0, index, symgrad.tensor([5.0, 7.0, 1.0]), "mean", include_self=False)
    tensor([6., 2., 1.])
    """
    _check(input, src, reduce)
    if _batching.any_batched(input, index, src) and input.ndim:  # inside vmap: once
        d = _wrap_dim(dim, input.ndim) + 1
        return _batching.per_batch(
            lambda a, i, s: scatter_reduce(a, d, i, s, reduce, include_self=include_self),
            input,
            index,
            src,
        )
    d, idx = _scatter_index(input, dim, index, None, "scatter_reduce")
    if max(src.ndim, 1) != max(input.ndim, 1):
        raise RuntimeError(
            "scatter_reduce(): Index tensor must have the same number of dimensions as src "
            f"tensor: index {list(index.shape)}, src {list(src.shape)}"
        )
    _check_sizes(input, d, idx, src)
    x = input.reshape(1) if input.ndim == 0 else input
    src = src.reshape(1) if src.ndim == 0 else src
    idx = idx.reshape(1) if idx.ndim == 0 else idx
    src_part = src[tuple(slice(0, n) for n in idx.shape)] if src.shape != idx.shape else src
    result = reduce_into(x, d, idx, src_part, reduce, bool(include_self), _PRIMS)
    return result.reshape(()) if input.ndim == 0 else result


def reduce_into(
    x: Tensor, d: int, idx: np.ndarray, src: Tensor, reduce: str, include_self: bool, prims: dict
) -> Tensor:
    """``src`` reduced into ``x`` (both at least 1-d) at ``idx`` (``src``'s shape) along
    ``d``, recorded with the primitive of ``prims`` for the reduction."""
    places = _Places(tuple(x.shape), d, idx)
    kind = _LEGACY.get(reduce, reduce)
    params = {
        "reduce": kind,
        "asked": reduce,
        "places": places,
        "include_self": include_self,
        "identity": _identity(kind, x._data.dtype),
        "divisor": np.maximum(places.count + include_self, 1).astype(x._data.dtype),
    }
    prim = prims[kind]
    out = prim.numeric_forward(None, x._data, src._data, **params)

    def masked(a: np.ndarray, s: np.ndarray, out: Any = None) -> dict:
        """The parameters with the masks of ``a`` and ``s``'s values (ties, zeros)."""
        if kind in ("amax", "amin"):
            if out is None:
                out = prim.numeric_forward(None, a, s, **params)
            return {**params, **_tie_masks(a, s, out, places)}
        if kind == "prod":
            return {**params, **_prod_masks(a, s, places)}
        return params

    result = prim.record((x, src), masked(x._data, src._data, out), out)
    if TRACE.log is not None and kind in ("amax", "amin", "prod"):
        data_params(result, masked, x, src)
    return result
