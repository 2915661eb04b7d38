"""A compiled closed form over Dask arrays: evaluated chunk by chunk, in parallel and out of
core.

Calling a :class:`~symgrad.symbolic.compiled.CompiledFunction` with any Dask array among its
arguments builds a Dask graph instead of computing: one task per chunk of the samples (or of
the leading batch dimensions) runs the generated NumPy function on that chunk, and the results
are lazy Dask arrays. Per-sample results (element-wise outputs, ``reduction="none"``) keep the
chunks of the arguments; the gradient of the mean or the sum over samples is a Dask reduction
of per-chunk partial sums, so no chunk ever holds more than its own samples. Evaluate with
``.compute()``, or ``dask.compute(*grads)`` to share the chunks' work among several results;
any Dask scheduler runs the graph (threads, processes, ``dask.distributed``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["evaluate_dask"]

_FLAT = "out"  # the output's last index: every output's elements side by side


def require_dask() -> Any:
    """``dask.array``, or an ImportError saying how to install Dask."""
    try:
        import dask.array as da
    except ImportError as exc:
        raise ImportError(
            "evaluating a compiled gradient over Dask arrays needs Dask, which is not "
            "installed: pip install 'symgrad[dask]' (or pip install 'dask[array]')"
        ) from exc
    return da


def evaluate_dask(f: Any, arrays: tuple, dtype: Any) -> Any:
    """``f(*arrays)`` as lazy Dask arrays of ``dtype``, one task per chunk (see the module's
    text); what calling ``f`` with a Dask argument does.

    Examples
    --------
    >>> import pytest
    >>> da = pytest.importorskip("dask.array")  # the example needs Dask installed
    >>> import symgrad
    >>> from symgrad.symbolic import compile_gradient
    >>> w = symgrad.tensor(1.0, requires_grad=True, name="w")
    >>> x = symgrad.tensor(0.0, name="x")
    >>> f = compile_gradient((w * x - 1) ** 2, w, batch=[x])  # mean of 2 (w x - 1) x
    >>> xs = da.arange(4.0, chunks=2)  # two chunks
    >>> grad = f(1.0, xs)  # calls evaluate_dask(f, (1.0, xs), float64)
    >>> type(grad).__name__, float(grad.compute())
    ('Array', 4.0)
    """
    da = require_dask()
    data = [a._data if isinstance(a, Tensor) else a for a in arrays]
    data = [a if hasattr(a, "chunks") else da.asarray(np.asarray(a)) for a in data]
    leads, batch = [], ()
    for k, (a, (_, shape)) in enumerate(zip(data, f._leaves)):
        if any(math.isnan(d) for d in a.shape):
            raise ValueError(
                f"argument {k} has unknown chunk sizes (shape {a.shape}): call "
                "compute_chunk_sizes() on it first"
            )
        lead = f._leading(k, a, shape)
        batch = joined_batch(batch, lead, k)
        leads.append(lead)
    pairs = []
    for k, (a, lead) in enumerate(zip(data, leads)):
        if lead and lead != batch[len(batch) - len(lead) :]:  # a dimension of 1 broadcasts
            lead = batch
            a = da.broadcast_to(a, batch + a.shape[a.ndim - len(f._leaves[k][1]) :])
        trailing = range(len(lead), a.ndim)
        if any(len(a.chunks[d]) > 1 for d in trailing):
            a = a.rechunk({d: -1 for d in trailing})  # one sample's values in one chunk
        index = tuple(f"b{d}" for d in range(len(batch) - len(lead), len(batch)))
        index += tuple(f"arg{k}_{d}" for d in trailing)
        pairs += [a, index]
    sizes = [math.prod(shape) for shape in f._shapes]
    flat = da.blockwise(
        _chunk_function(f),
        tuple(f"b{d}" for d in range(len(batch))) + (_FLAT,),
        *pairs,
        new_axes={_FLAT: sum(sizes)},
        concatenate=True,
        dtype=np.float64,
        meta=np.empty((0,) * (len(batch) + 1), np.float64),
    )
    results, start = [], 0
    for j, (shape, n) in enumerate(zip(f._shapes, sizes)):
        part = flat[..., start : start + n].reshape(batch + shape)
        start += n
        if f.reduction in ("mean", "sum"):
            if f._per_sample_outputs[j]:
                part = part / batch[0] if f.reduction == "mean" else part
            else:
                part = part.mean(axis=0) if f.reduction == "mean" else part.sum(axis=0)
        results.append(part.astype(dtype))
    return results[0] if f._single else results


def _chunk_function(f: Any) -> Any:
    """The task of one chunk: the generated function on the chunk's arrays, every output
    flattened side by side (one array per chunk, sliced into the outputs afterwards)."""

    def chunk(*blocks: np.ndarray) -> np.ndarray:
        results, batch = f._evaluate([np.asarray(b) for b in blocks])
        if not results:
            return np.zeros(batch + (0,))
        return np.concatenate([r.reshape(batch + (-1,)) for r in results], axis=-1)

    return chunk


def joined_batch(batch: tuple, lead: tuple, k: int) -> tuple:
    """The batch shape of the arguments so far (``batch``) and argument ``k``'s leading
    dimensions ``lead``, broadcast; a clear ValueError where they don't broadcast."""
    try:
        return np.broadcast_shapes(batch, lead)
    except ValueError:
        raise ValueError(
            f"argument {k}'s leading dimensions {list(lead)} don't broadcast with the "
            f"other arguments' {list(batch)}"
        ) from None
