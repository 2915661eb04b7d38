"""``embedding_bag`` of :mod:`symgrad.nn.functional`: sums, means or maxima of bags of rows of
a table, one node (PyTorch's ``EmbeddingBagBackward0``).

The public function turns the indices and offsets into a flat list of rows and the bag each
belongs to (padding entries dropped, as PyTorch leaves them out of the reduction); the rule
then reads as a derivative handout: the rows picked (``getitem``), scaled by the per-sample
weights and ``1 / bag size`` for ``mean``, added into their bags (``index_put_zeros``). For
``max`` the rows holding each maximum are found once, so the rule picks single elements.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _tracing, dtypes
from symgrad.nn.sparse import _renorm, frequencies
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.numpy_xp import NP
from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural, without_derivative
from symgrad.prim.tangents import no_forward_rule
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["embedding_bag"]


def _scaled(xp: Any, rows: Any, coef: Any) -> Any:
    """``rows`` times ``keep / size`` per row (integers, so closed forms stay exact)."""
    if coef is None:
        return rows
    keep, sizes = coef
    rows = rows * xp.constant(keep[:, None])
    return rows if sizes is None else rows / xp.constant(sizes[:, None])


def _forward(
    xp: Any,
    w: Any,
    *psw: Any,
    mode: str,
    rows: Any,
    bags: Any,
    coef: Any,
    out: tuple,
    freq: Any = None,
) -> Any:
    if mode == "max":  # rows: (bags, dim) row of each maximum; coef: 1 for a non-empty bag
        picked = xp.getitem(w, (rows, np.arange(out[1])))
        return picked * xp.constant(coef)
    picked = _scaled(xp, xp.getitem(w, (rows,)), coef)
    if psw:
        picked = picked * xp.reshape(psw[0], (rows.shape[0], 1))
    return xp.index_put_zeros(out, (bags,), picked)


def _vjp(xp: Any, g: Any, c: Any) -> tuple:
    p = c.params
    rows, bags, coef = p["rows"], p["bags"], p["coef"]
    if p["mode"] == "max":
        gw = xp.index_put_zeros(c.shapes[0], (rows, np.arange(p["out"][1])), g * xp.constant(coef))
        return (gw,)
    per_row = _scaled(xp, xp.getitem(g, (bags,)), coef)
    grads: list = [None] * len(c.needs)
    if len(c.needs) > 1 and c.needs[1]:
        scales = xp.sum(per_row * xp.getitem(c.inputs[0], (rows,)), (1,), False)
        grads[1] = xp.reshape(scales, c.shapes[1])
    if c.needs[0]:
        if len(c.needs) > 1:
            per_row = per_row * xp.reshape(c.inputs[1], (rows.shape[0], 1))
        if p.get("freq") is not None:  # scale_grad_by_freq: the weight's gradient only
            per_row = per_row / xp.constant(p["freq"][:, None])
        grads[0] = xp.index_put_zeros(c.shapes[0], (rows,), per_row)
    return tuple(grads)


# PyTorch's gradients under create_graph: _embedding_bag_backward's node, whose derivative
# formula is not_implemented (edges: the incoming gradient, the per-sample weights), and
# _embedding_bag_per_sample_weights_backward's, which has none (the gradient, the weight)
_WEIGHT_GRAD = without_derivative(
    "_embedding_bag_backward",
    "EmbeddingBagBackwardBackward0",
    NotImplementedError("the derivative for '_embedding_bag_backward' is not implemented."),
    edges=lambda node: (0, None) if len(node._meta) == 1 else None,
)
_WEIGHTS_GRAD = without_derivative("_embedding_bag_per_sample_weights_backward")


def _recorded_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """The gradients as PyTorch records them under create_graph: values of :func:`_vjp`, on
    nodes that refuse a second derivative."""
    if xp is not INTERPRETERS.tensor or any(type(t) is BatchedTensor for t in (g, *c.inputs)):
        return _vjp(xp, g, c)
    arrays = Ctx(tuple(t._data for t in c.inputs), None, c.shapes, c.needs, c.params)
    values = _vjp(NP, g._data, arrays)
    grads: list = [None] * len(values)
    if values[0] is not None:
        grads[0] = _WEIGHT_GRAD(g, *c.inputs[1:], values=values[0])
    if len(values) > 1 and values[1] is not None:
        grads[1] = _WEIGHTS_GRAD(g, c.inputs[0], values=values[1])
    return tuple(grads)


_recorded_vjp.__wrapped__ = _vjp  # type: ignore[attr-defined]  # (what symgrad.compile calls)
_EMBEDDING_BAG = Structural(
    "embedding_bag",
    _forward,
    _recorded_vjp,
    saves=(0, 1),
    backward="EmbeddingBagBackward0",
    jvp=no_forward_rule("_embedding_bag"),
    # PyTorch's edges (weight, per_sample_weights): the second None when there are none
    edges=lambda node: (0, None) if len(node._meta) == 1 else None,
)


def _bags_of(input: Tensor, offsets: Tensor | None) -> None:
    """Refuse an input or offsets of the wrong number of dimensions (PyTorch's errors)."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                f"of fixed length sequences. However, found offsets of type {type(offsets)}"
            )
        return
    if input.ndim != 1:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}"
        )
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")


def _bags(idx: np.ndarray, starts: np.ndarray | None, include_last: bool) -> tuple:
    """The flat indices and, for each, its bag; and the number of bags (``starts`` None: the
    rows of a 2-D input are the bags)."""
    idx = idx.astype(np.int64)
    if starts is None:
        n, length = idx.shape
        return idx.reshape(-1), np.repeat(np.arange(n), length), n
    starts = starts.astype(np.int64)
    if starts.size and starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
            f"from position 0. However, got {starts[0]}"
        )
    if starts.size and starts[-1] > idx.size:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {idx.size} but got "
            f"offsets[-1] of {starts[-1]}"
        )
    if np.any(np.diff(starts) < 0):
        raise RuntimeError(f"offsets must be non-decreasing, got {starts.tolist()}")
    count = max(starts.size - 1, 0) if include_last else starts.size
    if not count:
        return idx[:0], idx[:0], 0
    # the last bag runs to the end of the input (with include_last_offset too, as PyTorch's)
    sizes = np.append(starts[1:count], idx.size) - starts[:count]
    return idx[starts[0] :], np.repeat(np.arange(count), sizes), count


def _maxima(w: np.ndarray, rows: np.ndarray, bags: np.ndarray, count: int) -> tuple:
    """For each bag and column, the row holding the maximum (the first one), and 1 where the
    bag is not empty."""
    picked = w[rows]
    best = np.zeros((count, w.shape[1]), dtype=np.int64)
    present = np.zeros((count, 1), dtype=w.dtype)
    for b in np.unique(bags):
        where = np.flatnonzero(bags == b)
        best[b] = rows[where[np.argmax(picked[where], axis=0)]]
        present[b] = 1
    return best, np.broadcast_to(present, best.shape).copy()


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """The sum, mean or maximum of each bag of rows of ``weight``: bags are the rows of a 2-D
    ``input``, or the runs of a 1-D ``input`` starting at ``offsets``; ``per_sample_weights``
    (``mode="sum"`` only) scale each row; entries equal to ``padding_idx`` are left out; an
    empty bag gives zeros; ``scale_grad_by_freq`` divides the weight's gradient for each index
    by how often it occurs in ``input``. One ``EmbeddingBagBackward0`` node.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> table = symgrad.tensor([[1.0, 0.0], [2.0, 4.0], [0.0, 6.0]])
    >>> F.embedding_bag(symgrad.tensor([0, 1, 2, 1]), table, symgrad.tensor([0, 3]))
    tensor([[1.0000, 3.3333],
            [2.0000, 4.0000]])
    >>> F.embedding_bag(symgrad.tensor([[0, 2]]), table, mode="max")
    tensor([[1., 6.]])
    """
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
            "GitHub."
        )
    if per_sample_weights is not None and per_sample_weights.shape != input.shape:
        raise ValueError(
            f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, "
            f"then it must have the same shape as the input ({input.shape})"
        )
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.type()} instead (while checking arguments for "
            "embedding_bag)"
        )
    if not weight.dtype.is_floating_point:
        raise RuntimeError(
            "Expected tensor for argument #1 'weight' to have one of the following scalar "
            f"types: Half, BFloat16, Float, Double; but got {weight.dtype!r} instead (while "
            "checking arguments for embedding_bag)"
        )
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    _bags_of(input, offsets)
    if per_sample_weights is not None and input.ndim == 2:  # flattened with the bags, as PyTorch
        per_sample_weights = per_sample_weights.reshape(-1)
    inputs = (weight,) if per_sample_weights is None else (weight, per_sample_weights)
    read = [input, weight] if offsets is None else [input, offsets, weight]

    def params(idx: np.ndarray, *rest: np.ndarray) -> dict:
        # from the values of the indices, offsets and weight: at every call of a compiled one
        starts = None if offsets is None else rest[0]
        found = _params(idx, starts, rest[-1], mode, include_last_offset, padding_idx)
        if scale_grad_by_freq:
            found["freq"] = frequencies(found["rows"], rest[-1].shape[0]).astype(rest[-1].dtype)
        return found

    if max_norm is not None:  # (the indices checked first, as PyTorch does)
        starts = None if offsets is None else offsets._data
        rows = _rows(input._data, starts, weight.shape[0], include_last_offset)[0]
        _renorm(weight, rows, max_norm, norm_type)
    result = _EMBEDDING_BAG(*inputs, **params(*[t._data for t in read]))
    _tracing.data_params(result, params, *read)
    return result


def _rows(idx: np.ndarray, starts: Any, n: int, include_last: bool) -> tuple:
    """``_bags``, with the indices checked against the ``n`` rows of the weight."""
    rows, bags, count = _bags(idx, starts, include_last)
    bad = np.flatnonzero((rows < 0) | (rows >= n))
    if bad.size:
        raise RuntimeError(
            f"Index {bad[0]} of input takes value {rows[bad[0]]} which is not in the valid "
            f"range [0, {n})"
        )
    return rows, bags, count


def _params(
    idx: np.ndarray, starts: Any, w: np.ndarray, mode: str, include_last: bool, padding_idx: Any
) -> dict:
    """The rows each bag reads (for ``max``, the row of each maximum), and their coefficients."""
    n = w.shape[0]
    rows, bags, count = _rows(idx, starts, n, include_last)
    keep = np.ones(rows.shape, dtype=bool)
    if padding_idx is not None:
        keep = rows != (padding_idx % n if padding_idx < 0 else padding_idx)
    out = (count, w.shape[1])
    if mode == "max":
        best, present = _maxima(w, rows[keep], bags[keep], count)
        return dict(mode=mode, rows=best, bags=None, coef=present, out=out)
    coef, dtype = None, w.dtype
    if mode == "mean":  # padding entries do not count
        sizes = np.maximum(np.bincount(bags[keep], minlength=count), 1)[bags]
        coef = (keep.astype(dtype), sizes.astype(dtype))
    elif padding_idx is not None:
        coef = (keep.astype(dtype), None)
    return dict(mode=mode, rows=rows, bags=bags, coef=coef, out=out)
