"""``vmap``: a function mapped over a dimension of its inputs."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from symgrad import ops as _ops
from symgrad import random
from symgrad.autograd import transforms_running
from symgrad.func import printing  # noqa: F401  (tensors print as PyTorch's inside)
from symgrad.func._checks import check_chunk_size as _check_chunk_size
from symgrad.func._checks import check_randomness as _check_randomness
from symgrad.func._pytree import broadcast_prefix, tree_flatten, tree_unflatten
from symgrad.prim import batching
from symgrad.tensor import Tensor

__all__ = ["vmap"]

_warned_loop = [False]
_MODES: list = []  # the randomness of each running vmap, outermost first


class _NoRandomness:
    """Stands for the random generator inside ``vmap(..., randomness="error")``, and in the
    batched attempt, which notes that a random operation was called (``called``)."""

    called = False

    def __getattr__(self, name: str) -> Any:
        self.called = True
        raise RuntimeError(
            "vmap: called random operation while in randomness error mode. Please either use the "
            "'same' or 'different' randomness flags on vmap or perform the randomness operation "
            "out of vmap"
        )


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

    Inputs and outputs may be pytrees (tuples, lists, dicts and named tuples of tensors, nested).
    ``in_dims`` is an int or a tuple with one entry per argument, each entry an int, None (not
    mapped; any value, not only a tensor) or a pytree of them matching that argument's
    structure down to some depth, as in ``in_dims=({"w": 0, "b": None}, 0)``; ``out_dims`` is
    the same for the output. ``chunk_size`` maps that many elements at a time and joins the
    results.

    ``func`` runs once on the whole batch: each primitive it reaches runs through its
    batching rule (element-wise ops, reductions, the softmax family, matmul, shape ops,
    joining, indexing, gathering and scattering with each element's own indices, in-place
    writes into a batched tensor, sorting and scans, convolution, pooling, normalization, the
    losses, and the transforms of :mod:`symgrad.func`; the list is in docs/functional.md), or
    once per element where it has none yet (with a warning naming it). Where PyTorch refuses
    (a batch written in place into an unbatched tensor, a result whose shape depends on each
    element's values such as ``x[mask]`` or ``nonzero``; a batched value read as a Python
    object: ``.item()``, ``float()``, ``if`` on it, ``.tolist()``), symgrad raises PyTorch's
    error. Where an operation reads a batched tensor's array, symgrad runs ``func`` once per batch
    element (a Python loop) and stacks the results, with the values and gradients of
    PyTorch's batching up to rounding (a batched product may add in another order); it says
    so once in a warning. ``out_dims=None`` returns an output that
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
        leaves, spec, dims, size = _mapped_inputs(args, in_dims, fname)
        step = chunk_size or max(size, 1)
        rng = random.default_generator._rng
        same = rng.bit_generator.state if randomness == "same" else None
        parts = []
        transforms_running.enter("vmap")
        _MODES.append(randomness)
        try:
            for start in range(0, max(size, 1), step):  # an empty batch still runs once
                stop = min(size, start + step)
                if same is not None:  # every chunk's elements draw the same numbers
                    rng.bit_generator.state = same
                chunk = leaves
                if stop - start < size:
                    chunk = [_narrow(t, d, start, stop - start) for t, d in zip(leaves, dims)]
                inputs = (chunk, spec, dims, stop - start)
                parts.append(_run(func, inputs, kwargs, out_dims, randomness, fname))
        finally:
            transforms_running.leave()
            _MODES.pop()
        return parts[0] if len(parts) == 1 else join_chunks(parts, out_dims)

    return wrapper


def _mapped_inputs(args: tuple, in_dims: Any, fname: str) -> tuple:
    """``(leaves, spec, dims, size)``: the inputs flattened, each leaf's mapped dimension
    (None: not mapped) and the batch size, with PyTorch's errors for what does not fit."""
    head = f"vmap({fname}, in_dims={in_dims}, ...)(<inputs>)"
    if not args:
        raise ValueError(
            f"vmap({fname})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
            "trying to vmap over a function with no inputs. The latter is unsupported."
        )
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(
            f"{head}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
            f"structure of inputs, got: {type(in_dims)}."
        )
    leaves, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, spec)
    if dims is None:
        raise ValueError(
            f"{head}: in_dims is not compatible with the structure of `inputs`. in_dims has "
            f"structure {tree_flatten(in_dims)[1]} but inputs has structure {spec}."
        )
    sizes = []
    for t, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(
                f"{head}: Got in_dim={d} for an input but in_dim must be either an integer "
                "dimension or None."
            )
        if not isinstance(t, Tensor):
            raise ValueError(
                f"{head}: Got in_dim={d} for an input but the input is of type {type(t)}. We "
                "cannot vmap over non-Tensor arguments, please use None as the respective in_dim"
            )
        if not -t.ndim <= d < t.ndim:
            raise ValueError(
                f"{head}: Got in_dim={d} for some input, but that input is a Tensor of "
                f"dimensionality {t.ndim} so expected in_dim to satisfy "
                f"-{t.ndim} <= in_dim < {t.ndim}."
            )
        sizes.append(t.shape[d])
    if not sizes:
        raise ValueError(f"{head}: vmap must have at least one non-None value in in_dims")
    if len(set(sizes)) != 1:
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, "
            f"got sizes {sizes} for the mapped dimension"
        )
    return leaves, spec, [None if d is None else d % t.ndim for t, d in zip(leaves, dims)], sizes[0]


def _narrow(t: Any, dim: Any, start: int, length: int) -> Any:
    return t if dim is None else t.narrow(dim, start, length)


def join_chunks(parts: list, out_dims: Any) -> Any:
    """The results of ``vmap`` over consecutive chunks of a batch, joined along ``out_dims``
    (a leaf with out_dim None is the same in every chunk: the first is kept)."""
    flat = [tree_flatten(p) for p in parts]
    spec = flat[0][1]
    dims = broadcast_prefix(out_dims, spec)
    groups = zip(*(leaves for leaves, _ in flat))
    return tree_unflatten(
        [g[0] if d is None else _ops.cat(list(g), d) for g, d in zip(groups, dims)], spec
    )


def _run(
    func: Callable, inputs: tuple, kwargs: dict, out_dims: Any, randomness: str, fname: str
) -> Any:
    """``func`` on one batch: batched where it can, else once per element (with a warning)."""
    batched = _batched_run(func, inputs, kwargs, out_dims, fname)
    if batched is not _LOOP:
        return batched
    if not _warned_loop[0]:
        _warned_loop[0] = True
        warnings.warn(
            f"vmap: {_why[0]}: symgrad runs the function once per batch element and stacks "
            "the results (PyTorch's batched values up to rounding, at a loop's speed)",
            UserWarning,
            stacklevel=3,
        )
    leaves, spec, dims, size = inputs
    results = []
    saved = random.default_generator._rng
    state = saved.bit_generator.state if randomness == "same" else None
    try:
        for i in range(size):
            if randomness == "error":
                random.default_generator._rng = _NoRandomness()
            elif randomness == "same":
                saved.bit_generator.state = state
            picked = [_select(t, d, i) for t, d in zip(leaves, dims)]
            results.append(func(*tree_unflatten(picked, spec), **kwargs))
    finally:
        random.default_generator._rng = saved
    try:
        return _stack(results, out_dims, fname)
    except _OutputError as exc:
        raise exc.kind(str(exc)) from None


_LOOP = object()  # the batched run could not be done: loop instead
_why = ["an operation has no batching rule"]


def _batched_run(func: Callable, inputs: tuple, kwargs: dict, out_dims: Any, fname: str) -> Any:
    """``func`` run once on the whole batch through the primitives' batching rules, or
    ``_LOOP`` where one is missing (nothing of the attempt is kept, random state included);
    a random operation under ``randomness="error"`` (of any running vmap) is PyTorch's error at
    once."""
    leaves, spec, dims, size = inputs
    batching.STATE.depth += 1
    level = batching.STATE.depth
    batching.STATE.levels.append(transforms_running.RUNNING[0])
    saved = random.default_generator._rng
    guard = random.default_generator._rng = _NoRandomness()  # a random op: loop, as randomness says
    try:
        mapped = [_batch(t, d, level) for t, d in zip(leaves, dims)]
        out = func(*tree_unflatten(mapped, spec), **kwargs)
        return _unbatch(out, out_dims, level, size, fname)
    except _OutputError as exc:
        raise exc.kind(str(exc)) from None
    except batching.Refused as exc:  # PyTorch's refusal, not a reason to loop
        raise _refusal(exc) from None
    except Exception as exc:  # noqa: BLE001 - any failure of the attempt: the loop decides
        if guard.called and "error" in _MODES:  # (this vmap's or an enclosing one's)
            raise _refusal(exc) from None
        _why[0] = str(exc) if isinstance(exc, batching.Unbatchable) else type(exc).__name__
        if guard.called:  # each element draws its own numbers, or the same ones
            _why[0] = "a random operation"
        return _LOOP
    finally:
        random.default_generator._rng = saved
        batching.STATE.depth -= 1
        batching.STATE.levels.pop()


def _refusal(exc: Exception) -> RuntimeError:
    """PyTorch's error, raised as it is: inside another ``vmap`` as :class:`Refused`, so that
    the enclosing one does not loop either."""
    nested = batching.STATE.depth > 1
    return (batching.Refused if nested else RuntimeError)(str(exc))


class _OutputError(Exception):
    """An output that ``out_dims`` can't place: the user's error, whichever way ``vmap`` runs,
    raised as ``kind`` (PyTorch's type: ValueError, IndexError for a dimension out of range)."""

    def __init__(self, message: str, kind: type = ValueError) -> None:
        super().__init__(message)
        self.kind = kind


def _batch(t: Tensor, dim: Any, level: int) -> Tensor:
    if dim is None:
        return t
    return batching.BatchedTensor(_moved(t, dim, 0), level)


def _moved(t: Tensor, source: int, destination: int) -> Tensor:
    """``t`` with dimension ``source`` moved to ``destination``: ``t`` itself where that
    changes nothing, so no node is recorded (PyTorch's results keep their own ``grad_fn``)."""
    return t if source == destination else _ops.movedim(t, source, destination)


def _out_dims(out: Any, out_dims: Any, fname: str) -> tuple:
    """``(leaves, spec, dims)`` of the outputs, one out_dim per leaf."""
    leaves, spec = tree_flatten(out)
    if isinstance(out, Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        out_dims = out_dims[0]  # PyTorch takes (d,) for a single tensor too
    dims = broadcast_prefix(out_dims, spec)
    if dims is None:
        raise _OutputError(
            f"vmap({fname}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
            f"the structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but "
            f"outputs has structure {spec}."
        )
    for leaf, d in zip(leaves, dims):
        if d is not None and not isinstance(leaf, Tensor):
            raise _OutputError(
                f"vmap({fname}, ...): `{fname}` must only return Tensors, got type "
                f"{type(leaf)}. Did you mean to set out_dims= to None for output?"
            )
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise _OutputError(
                f"vmap({fname}, ...): out_dims must be an int or None for each output, got {d!r}"
            )
        if d is not None and not -leaf.ndim - 1 <= d <= leaf.ndim:
            raise _OutputError(
                f"Dimension out of range (expected to be in range of [{-leaf.ndim - 1}, "
                f"{leaf.ndim}], but got {d})",
                IndexError,
            )
    return leaves, spec, dims


def _unbatch(out: Any, out_dims: Any, level: int, size: int, fname: str) -> Any:
    """The function's results with the batch moved to ``out_dims`` (a result that does not
    depend on the batch is repeated along it, as PyTorch does)."""
    leaves, spec, dims = _out_dims(out, out_dims, fname)
    moved = []
    for leaf, d in zip(leaves, dims):
        if d is None:
            if batching.is_batched(leaf, level):
                raise _OutputError(_NONE_BATCHED.format(fname=fname))
            moved.append(leaf)
            continue
        if batching.is_batched(leaf, level):
            p = leaf._physical
        else:  # the same for every element (or batched by an outer vmap only): repeated
            p = leaf.unsqueeze(0).expand((size,) + tuple(leaf.shape))
        moved.append(_moved(p, 0, d % p.ndim))
    return tree_unflatten(moved, spec)


_NONE_BATCHED = "vmap({fname}, ...): `{fname}` can not return a BatchedTensor when out_dim is None"


def _select(t: Tensor, dim: Any, i: int) -> Tensor:
    """Element ``i`` of ``t`` along ``dim`` (None: ``t`` itself, not mapped)."""
    if dim is None:
        return t
    return t[(slice(None),) * dim + (i,)]


def _stack(results: list, out_dims: Any, fname: str) -> Any:
    """The elements' results stacked along ``out_dims``; an out_dim None takes the first
    element's result, which must then be the same for every element."""
    leaves, spec, dims = _out_dims(results[0], out_dims, fname)
    rows = [leaves]
    for r in results[1:]:
        row, row_spec = tree_flatten(r)
        if row_spec != spec:
            raise ValueError(
                f"vmap({fname}, ...): `{fname}` returned outputs of different structures for "
                f"different batch elements: {spec} and {row_spec}"
            )
        rows.append(row)
    stacked = []
    for k, d in enumerate(dims):
        group = [row[k] for row in rows]
        if d is not None:
            stacked.append(_ops.stack(group, dim=d))
        elif isinstance(group[0], Tensor) and any(not _ops.equal(group[0], g) for g in group[1:]):
            raise ValueError(_NONE_BATCHED.format(fname=fname))
        else:
            stacked.append(group[0])
    return tree_unflatten(stacked, spec)
