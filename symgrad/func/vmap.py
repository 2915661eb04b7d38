"""``vmap``: a function mapped over a dimension of its inputs."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from symgrad import ops as _ops
from symgrad import random
from symgrad.func._checks import check_chunk_size as _check_chunk_size
from symgrad.func._checks import check_randomness as _check_randomness
from symgrad.prim import batching
from symgrad.tensor import Tensor

__all__ = ["vmap"]

_warned_loop = [False]


class _NoRandomness:
    """Stands for the random generator inside ``vmap(..., randomness="error")``."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use the "
            "'same' or 'different' randomness flags on vmap or perform the randomness operation "
            "out of vmap"
        )


def _map_tree(tree: Any, dims: Any, fn: Callable) -> Any:
    """``fn(tensor, dim)`` on each tensor of ``tree`` (tensors, tuples, lists, dicts), ``dims``
    an int or None for all of it, or a tree of the same structure."""
    if isinstance(tree, Tensor):
        return fn(tree, dims)
    if isinstance(tree, (tuple, list)):
        parts = dims if isinstance(dims, (tuple, list)) else [dims] * len(tree)
        return type(tree)(_map_tree(t, d, fn) for t, d in zip(tree, parts, strict=True))
    if isinstance(tree, dict):
        return {
            k: _map_tree(v, dims[k] if isinstance(dims, dict) else dims, fn)
            for k, v in tree.items()
        }
    return tree


def vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: Any = None,
) -> Callable:
    """``func`` mapped over a dimension of its inputs (``in_dims``: an int or None for every
    argument, or one per argument), its results stacked along ``out_dims``.

    ``func`` runs once on the whole batch: each primitive it reaches runs through its
    batching rule (element-wise ops, reductions, the softmax family, matmul, shape ops,
    joining, indexing, convolution, pooling, normalization, the losses, and the transforms
    of :mod:`symgrad.func`; the list is in docs/functional.md), or once per element where it
    has none yet (with a warning naming it). Where ``func`` reads a batched tensor's values,
    symgrad runs ``func`` once per batch element (a Python loop) and stacks the results, with
    the values and gradients of PyTorch's batching up to rounding (a batched product may add in
    another order); it says so once in a warning. ``out_dims=None`` returns an output that
    does not depend on the batch as it is.
    ``randomness`` is PyTorch's: ``"error"`` refuses random operations inside ``func``,
    ``"same"`` gives every element the same random numbers, ``"different"`` fresh ones.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> from symgrad.func import grad, vmap
    >>> loss = lambda w, x, y: ((x @ w - y) ** 2).sum()
    >>> w = symgrad.tensor([1.0, 2.0])
    >>> X, Y = symgrad.tensor([[1.0, 0.0], [0.0, 1.0]]), symgrad.tensor([0.0, 1.0])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     vmap(grad(loss), in_dims=(None, 0, 0))(w, X, Y)  # per-sample gradients
    tensor([[2., 0.],
            [0., 2.]])
    """
    _check_randomness(randomness)
    _check_chunk_size(chunk_size)
    fname = getattr(func, "__name__", "f")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        head = f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>)"
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(
                f"{head}: in_dims is not compatible with the structure of `inputs`: "
                f"{len(dims)} in_dims for {len(args)} inputs"
            )
        sizes = []

        def size_of(t: Tensor, d: Any) -> Tensor:
            if d is None:
                return t
            if not isinstance(d, int) or isinstance(d, bool):
                raise ValueError(f"{head}: in_dims must be int or None, got {d!r}")
            if not -t.ndim <= d < max(t.ndim, 0) or t.ndim == 0:
                raise ValueError(
                    f"{head}: Got in_dim={d} for some input, but that input is a Tensor of "
                    f"dimensionality {t.ndim} so expected in_dim to satisfy "
                    f"-{t.ndim} <= in_dim < {t.ndim}."
                )
            sizes.append(t.shape[d])
            return t

        _map_tree(list(args), list(dims), size_of)
        if not sizes:
            raise ValueError(f"{head}: vmap must have at least one non-None value in in_dims")
        if len(set(sizes)) != 1:
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, "
                f"got sizes {sizes} for the mapped dimension"
            )
        batched = _batched_run(func, args, dims, kwargs, sizes[0], out_dims, fname)
        if batched is not _LOOP:
            return batched
        if not _warned_loop[0]:
            _warned_loop[0] = True
            warnings.warn(
                f"vmap: {_why[0]}: symgrad runs the function once per batch element and stacks "
                "the results (PyTorch's batched values up to rounding, at a loop's speed)",
                UserWarning,
                stacklevel=2,
            )
        results = []
        saved = random.default_generator._rng
        state = saved.bit_generator.state if randomness == "same" else None
        try:
            for i in range(sizes[0]):
                if randomness == "error":
                    random.default_generator._rng = _NoRandomness()
                elif randomness == "same":
                    saved.bit_generator.state = state
                picked = _map_tree(list(args), list(dims), functools.partial(_select, i=i))
                results.append(func(*picked, **kwargs))
        finally:
            random.default_generator._rng = saved
        return _stack(results, out_dims, fname)

    return wrapper


_LOOP = object()  # the batched run could not be done: loop instead
_why = ["an operation has no batching rule"]


def _batched_run(
    func: Callable, args: tuple, dims: Any, kwargs: dict, size: int, out_dims: Any, fname: str
) -> Any:
    """``func`` run once on the whole batch through the primitives' batching rules, or
    ``_LOOP`` where one is missing (nothing of the attempt is kept, random state included)."""
    batching.STATE.depth += 1
    level = batching.STATE.depth
    saved = random.default_generator._rng
    random.default_generator._rng = _NoRandomness()  # a random op: loop, as randomness says
    try:
        inputs = _map_tree(list(args), list(dims), functools.partial(_batch, level=level))
        out = func(*inputs, **kwargs)
        return _unbatch(out, out_dims, level, size, fname)
    except Exception as exc:  # noqa: BLE001 - any failure of the attempt: the loop decides
        _why[0] = str(exc) if isinstance(exc, batching.Unbatchable) else type(exc).__name__
        return _LOOP
    finally:
        random.default_generator._rng = saved
        batching.STATE.depth -= 1


def _batch(t: Tensor, dim: Any, level: int) -> Tensor:
    if dim is None:
        return t
    return batching.BatchedTensor(_ops.movedim(t, dim % t.ndim, 0), level)


def _unbatch(out: Any, out_dims: Any, level: int, size: int, fname: str) -> Any:
    """The function's results with the batch moved to ``out_dims`` (a result that does not
    depend on the batch is repeated along it, as PyTorch does)."""
    if isinstance(out, Tensor):
        if out_dims is None and not batching.is_batched(out, level):
            return out  # an output declared unbatched
        if not isinstance(out_dims, int):
            raise ValueError(
                f"vmap({fname}, ...): out_dims must be an int for a Tensor output, got {out_dims!r}"
            )
        if batching.is_batched(out, level):
            p = out._physical
        else:  # the same for every element (or batched by an outer vmap only): repeated
            p = out.unsqueeze(0).expand((size,) + tuple(out.shape)).clone()
        return _ops.movedim(p, 0, out_dims % p.ndim) if p.ndim else p
    if isinstance(out, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * len(out)
        return type(out)(_unbatch(o, d, level, size, fname) for o, d in zip(out, dims))
    if isinstance(out, dict):
        return {k: _unbatch(v, out_dims, level, size, fname) for k, v in out.items()}
    raise batching.Unbatchable("a result that is not a tensor")


def _select(t: Tensor, dim: Any, i: int) -> Tensor:
    """Element ``i`` of ``t`` along ``dim`` (None: ``t`` itself, not mapped)."""
    if dim is None:
        return t
    return t[(slice(None),) * (dim % t.ndim) + (i,)]


def _stack(results: list, out_dims: Any, fname: str) -> Any:
    first = results[0]
    if isinstance(first, Tensor):
        if out_dims is None:
            return first
        if not isinstance(out_dims, int):
            raise ValueError(
                f"vmap({fname}, ...): out_dims must be an int for a Tensor output, got {out_dims!r}"
            )
        return _ops.stack(results, dim=out_dims)
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * len(first)
        parts = [_stack([r[k] for r in results], dims[k], fname) for k in range(len(first))]
        return type(first)(parts)
    if isinstance(first, dict):
        return {k: _stack([r[k] for r in results], out_dims, fname) for k in first}
    raise ValueError(
        f"vmap({fname}, ...): `{fname}` must only return Tensors, got type {type(first)}. Did you "
        "mean to set out_dims= to None for output?"
    )
