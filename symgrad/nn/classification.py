"""The classification losses of :mod:`symgrad.nn.functional`: ``nll_loss`` and
``cross_entropy``, with PyTorch's argument checks in its order and with its exception types
(a ValueError for the batch sizes, a RuntimeError for the target's rank and dtype, an
IndexError for a target out of range)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad import ops as _ops
from symgrad._arguments import int_value, require_floating, require_same_dtype, require_tensor
from symgrad._meta import check_devices, is_meta, meta_array
from symgrad._tracing import TRACE, data_params
from symgrad.autograd.modified import watch_indices
from symgrad.nn._arguments import _check_tensors, _reduction
from symgrad.ops import losses as _losses
from symgrad.ops.derivatives import _divided, _scaled, _shifted
from symgrad.ops.softmax_family import log_softmax
from symgrad.prim import batching as _batching
from symgrad.prim.keys import ClassKey
from symgrad.tensor import Tensor

__all__ = ["nll_loss", "cross_entropy"]


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of log-probabilities ``input`` (N, C, ...) at class indices
    ``target`` (N, ...); a 1-D ``input`` (C,) takes one class index.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> logp = symgrad.tensor([[-0.5, -1.0], [-2.0, -0.25]])
    >>> F.nll_loss(logp, symgrad.tensor([0, 1]), reduction="none")
    tensor([0.5000, 0.2500])
    """
    r = _reduction(reduction, size_average, reduce)
    _check_tensors("nll_loss", input=input, target=target)
    ignore_index = _class_options("nll_loss_nd", weight, ignore_index)
    return _nll_loss(input, target, weight, ignore_index, r)


def _shape(t: Tensor) -> tuple:
    """A tensor's shape as a tuple (a batched tensor's without its batch dimension)."""
    return t._data.shape if type(t) is Tensor else tuple(t.shape)


def _check_nll_shapes(input: Tensor, target: Tensor) -> None:
    """PyTorch's nll_loss_nd: the input's rank and the batch sizes (ValueError), then the
    target's shape (RuntimeError)."""
    shape, t_shape = _shape(input), _shape(target)  # (plain tuples: read at every call)
    ndim, t_ndim = len(shape), len(t_shape)
    if ndim < 1:
        raise ValueError(
            "Expected 1 or more dimensions (got 0)\n(nll_loss's input holds log-probabilities "
            "of shape (C,) or (N, C, ...))"
        )
    batch = t_shape[0] if t_ndim else 0
    if ndim != 1 and shape[0] != batch:
        raise ValueError(
            f"Expected input batch_size ({shape[0]}) to match target batch_size ({batch}).\n"
            f"(nll_loss: input of shape {list(shape)}, target of shape {list(t_shape)})"
        )
    if ndim <= 2:
        if t_ndim > 1:
            raise RuntimeError(
                "0D or 1D target tensor expected, multi-target not supported\n(nll_loss: target "
                f"of shape {list(t_shape)} for input of shape {list(shape)})"
            )
        return
    expected = [shape[0], *shape[2:]]
    if ndim == 4 and t_ndim != 3:
        raise RuntimeError(
            "only batches of spatial targets supported (3D tensors) but got targets of "
            f"dimension: {t_ndim}\n(nll_loss expected a target of shape {expected})"
        )
    if list(t_shape) != expected:
        raise RuntimeError(f"Expected target size {expected}, got {list(t_shape)}")


def _check_nll_target(input: Tensor, target: Tensor, weight: Any) -> None:
    """Then the target's dtype, a 1-D input's single target, and the weight (PyTorch's
    nll_loss)."""
    # PyTorch's kernel for an input of at most 2 dimensions reads uint8 class indices too
    byte = target.dtype is dtypes.uint8 and input.ndim <= 2
    if target.dtype is not dtypes.int64 and not byte:
        hint = (
            f"class probabilities must have the input's shape {list(input.shape)}"
            if target.dtype.is_floating_point
            else "convert the targets with .long()"
        )
        raise RuntimeError(
            "expected target dtype to be Long or Byte, but got "
            f"{target.dtype.scalar_type}\n(nll_loss takes class indices, not {target.dtype!r}: "
            f"{hint})"
        )
    shape, t_shape = _shape(input), _shape(target)
    if len(shape) == 1 and len(t_shape) == 1 and t_shape[0] != 1:
        raise ValueError(
            f"For 1D input, 1D target must have size 1, but got target size: {t_shape[0]}"
        )
    n_classes = shape[1] if len(shape) > 1 else shape[0]
    if weight is not None and tuple(weight.shape) != (n_classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or "
            f"no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    if input.dtype.is_floating_point:
        require_same_dtype(input, weight, "the weight")
    if not input.dtype.is_floating_point:
        kernel = "nll_loss2d_forward_out_frame" if len(shape) == 4 else "nll_loss_out_frame"
        require_floating(input, kernel)


def _class_options(op: str, weight: Any, ignore_index: Any) -> int:
    """PyTorch's TypeErrors for a class weight that is not a tensor (a list) and an
    ``ignore_index`` that is not an int (a float, a bool); the index as an int."""
    if weight is not None and not isinstance(weight, Tensor):
        require_tensor(op, "weight", 3, weight)
    return (
        ignore_index
        if type(ignore_index) is int
        else int_value(op, "ignore_index", ignore_index, 5)
    )


def _nll_loss(input: Tensor, target: Tensor, weight: Any, ignore_index: int, r: str) -> Tensor:
    """``nll_loss`` once its arguments are checked (``r`` the reduction's name)."""
    _check_nll_shapes(input, target)
    _check_nll_target(input, target, weight)
    if target.dtype is dtypes.uint8:  # read as the int64 class indices they are
        target = target.long()
    check_devices((target, input))
    if _batching.STATE.depth and (
        type(input) is _batching.BatchedTensor or type(target) is _batching.BatchedTensor
    ):
        return _batched_nll_loss(input, target, weight, ignore_index, r)
    shape = _shape(input)
    if len(shape) == 3 or len(shape) > 4:  # PyTorch's nll_loss_nd: a 4-D loss over views
        return _nll_loss_4d(input, target, weight, ignore_index, r)
    batched = len(shape) >= 2
    n_classes = shape[1] if batched else shape[0]

    def params(t: np.ndarray) -> dict:
        return _nll_params(
            t, target, batched, n_classes, ignore_index, weight, input._data.dtype, r
        )

    result = _losses.NLL_LOSS(input, **params(target._data))
    watch_indices(result, target)
    if TRACE.log is not None:
        data_params(result, params, target)
    return result


def _nll_loss_4d(input: Tensor, target: Tensor, weight: Any, ignore_index: int, r: str) -> Tensor:
    """The loss of an input of 3 or more than 4 dimensions as PyTorch computes it: its
    contiguous copy viewed as ``(N, C, 1, rest)`` (the target as ``(N, 1, rest)``), the
    unreduced losses viewed back to the target's shape."""
    shape = _shape(input)
    rest = math.prod(shape[2:])
    flat = input.contiguous().view(shape[0], shape[1], 1, rest)
    loss = _nll_loss(flat, target.contiguous().view(shape[0], 1, rest), weight, ignore_index, r)
    return loss.view(shape[0], *shape[2:]) if r == "none" else loss


def _nll_params(
    t: np.ndarray,
    target: Tensor,
    batched: bool,
    n_classes: int,
    ignore_index: int,
    weight: Any,
    dtype: np.dtype,
    r: str,
) -> dict:
    """The NLL_LOSS parameters for class indices ``t`` (the values of ``target``)."""
    t = t if batched else t.reshape(())
    safe, elem_w = _nll_targets(t, n_classes, ignore_index, weight, dtype)
    if batched:
        grids = np.indices(t.shape, sparse=True) if t.ndim > 1 else [_rows(t.shape[0])]
        key = (grids[0], safe, *grids[1:])  # input[n, target[n, ...], ...]
        if t.ndim == 1 and elem_w is None:  # rows of classes: matrix forms read it one-hot
            key = ClassKey(key, target)
    else:
        key = (safe,)  # input[target]: a 0-d index array, so the loss is 0-d
    denom = float(t.size if elem_w is None or is_meta(t) else elem_w.sum())
    # the arguments as the node shows them (PyTorch saves them for its backward)
    shown = (("ignore_index", ignore_index % 2**64), ("target", target), ("weight", weight))
    return {
        "key": key,
        "weight": elem_w,
        "denom": denom if denom else float("nan"),
        "reduction": r,
        "saved_as": shown,
    }


def _rows(n: int) -> np.ndarray:
    """``arange(n)``, read-only and made once per length (every step of a training loop
    indexes the same rows)."""
    rows = _ROWS.get(n)
    if rows is None:
        if len(_ROWS) >= 64:
            _ROWS.clear()
        rows = _ROWS[n] = np.arange(n)
        rows.setflags(write=False)
    return rows


_ROWS: dict = {}


def _batched_nll_loss(
    input: Tensor, target: Tensor, weight: Any, ignore_index: int, r: str
) -> Tensor:
    """Inside ``vmap``: the batch folded into the loss's own batch, the unreduced losses of
    all elements at once, then each element's sum, or mean over its weights."""
    level = max(t._level for t in (input, target) if type(t) is _batching.BatchedTensor)
    size = _batching.batch_size((input, target), level)
    x = _batching.unwrap_level(input, level, size)
    t = _batching.unwrap_level(target, level, size)
    if input.ndim >= 2:  # (B, N, C, ...) -> (B * N, C, ...)
        x = x.reshape((-1,) + tuple(x.shape[2:]))
        t = t.reshape((-1,) + tuple(t.shape[2:]))
    else:  # (B, C) with a target per element
        t = t.reshape((size,))
    losses = _nll_loss(x, t, weight, ignore_index, "none")
    if r != "none":
        losses = losses.reshape((size, -1)).sum(1)
    if r == "mean":  # each element's total weight: the loss of log-probabilities all -1
        minus_one = Tensor._make(np.full(tuple(x.shape), -1.0, dtype=input.dtype.numpy))
        weights = _nll_loss(minus_one, t, weight, ignore_index, "none")
        denom = weights.reshape((size, -1)).sum(1)
        # an element whose targets are all ignored: nan, with a gradient of 0, as PyTorch's
        safe = _ops.where(denom > 0, denom, 1.0)
        losses = _ops.where(denom > 0, losses / safe, float("nan"))
    elif r == "none":
        losses = losses.reshape((size,) + tuple(target.shape))
    return _batching.wrap_level(losses, level)


def _nll_targets(
    t: np.ndarray, n_classes: int, ignore_index: int, weight: Any, dtype: np.dtype
) -> tuple:
    """The targets made safe to index with, and the per-element weights (None for unit
    weights with nothing ignored, the fast common case)."""
    if is_meta(t):  # no values to check or to weigh: the loss is meta whatever they are
        return t, None if weight is None else meta_array(t.shape, dtype)
    # cheap test first, one pass: a negative index (int64, checked) read as uint64 is beyond
    # every class
    in_range = not t.size or int(np.maximum.reduce(t.view(np.uint64), axis=None)) < n_classes
    if not in_range:
        outside = (t != ignore_index) & ((t < 0) | (t >= n_classes))
        if outside.any():
            raise IndexError(
                f"Target {t[outside].flat[0]} is out of bounds.\n(there are {n_classes} classes)"
            )
    elif weight is None and not 0 <= ignore_index < n_classes:
        return t, None  # every target is a class: none can be the ignored index
    keep = t != ignore_index
    if weight is None and keep.all():
        return t, None
    safe = np.where(keep, t, 0)
    w = keep.astype(dtype) if weight is None else weight._data.astype(dtype)[safe] * keep
    return safe, w.astype(dtype, copy=False)


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy of logits ``input`` (N, C, ...) against class indices or, given a target
    of the input's shape, class probabilities ``target``, through a stable ``log_softmax``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.cross_entropy(symgrad.zeros(2, 4), symgrad.tensor([0, 3]))
    tensor(1.3863)
    """
    r = _reduction(reduction, size_average, reduce)
    _check_tensors("cross_entropy", input=input, target=target)
    ignore_index = _class_options("cross_entropy_loss", weight, ignore_index)
    # the classes run along dim 1, or dim 0 of a 1-D input (a 0-d input has no dim 1: IndexError)
    dim = 0 if input._data.ndim == 1 else 1
    smoothing = _smoothing(label_smoothing)
    if target._data.shape == input._data.shape:  # class probabilities
        if not target.dtype.is_floating_point:
            raise RuntimeError(
                "Expected floating point type for target with class probabilities, got "
                f"{target.dtype.scalar_type}\n(cross_entropy: a target of the input's shape "
                f"{list(input.shape)} holds probabilities, of {target.dtype!r} here; class "
                "indices have no class dim)"
            )
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _probabilities_loss(log_softmax(input, dim), target, weight, dim, smoothing, r)
    logp = log_softmax(input, dim)
    loss = _nll_loss(logp, target, weight, ignore_index, r)
    if smoothing:
        if weight is not None and target.dtype is dtypes.uint8:  # PyTorch's gather refuses it
            raise RuntimeError("gather(): Expected dtype int32/int64 for index")
        smooth = _smoothing_term(logp, target.long(), weight, ignore_index, dim, r)
        # Scalar products (MulBackward1), as PyTorch's composite writes them
        loss = _scaled(loss, 1 - smoothing) + _scaled(smooth, smoothing / input.shape[dim])
    return loss


def _smoothing(label_smoothing: float) -> float:
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    return label_smoothing if label_smoothing > 0.0 else 0.0  # PyTorch ignores a negative one


def _probabilities_loss(
    logp: Tensor, target: Tensor, weight: Any, dim: int, smoothing: float, r: str
) -> Tensor:
    n = logp.shape[dim]
    probs = target
    if smoothing:  # Scalar ops (MulBackward1, AddBackward1), as PyTorch's composite
        # no classes: PyTorch's 0 / 0 of the smoothing share is nan
        probs = _shifted(_scaled(target, 1 - smoothing), smoothing / n if n else math.nan)
    terms = logp * probs
    if weight is not None:
        terms = terms * weight.reshape((n,) + (1,) * (logp.ndim - dim - 1))
    if r == "none":
        return -terms.sum(dim)
    total = -terms.sum()  # PyTorch's graph: DivBackward1 <- NegBackward0 <- SumBackward0
    count = terms.numel() // n if n else 0
    if r == "mean":
        return _divided(total, count) if count else total * math.nan
    return total


def _batched_smoothing(
    smooth: Tensor, target: Tensor, weight: Any, ignore_index: int, reduction: str
) -> Tensor:
    """:func:`_smoothing_term`'s reduction inside ``vmap``, for each element's own targets:
    the kept targets found by tensor ops on the whole batch."""
    keep = (target != ignore_index).reshape(smooth.shape)
    smooth = _ops.where(keep, smooth, 0.0)
    if reduction == "none":
        return smooth
    if reduction == "sum":
        return smooth.sum()
    kept = keep.to(smooth.dtype)
    if weight is not None:
        kept = kept * weight[_ops.where(keep, target.reshape(smooth.shape), 0)]
    denom = kept.sum()
    # every target ignored: nan, with a gradient of 0, as PyTorch's
    safe = _ops.where(denom > 0, denom, 1.0)
    return _ops.where(denom > 0, smooth.sum() / safe, float("nan"))


def _smoothing_term(
    logp: Tensor, target: Tensor, weight: Any, ignore_index: int, dim: int, reduction: str
) -> Tensor:
    """``-sum_c w_c log p_c`` per sample, reduced as PyTorch does: ignored targets add
    nothing, and 'mean' divides by the weight of the kept targets, as ``nll_loss`` does."""
    n = logp.shape[dim]
    w = None if weight is None else weight.reshape((n,) + (1,) * (logp.ndim - dim - 1))
    smooth = -(logp if w is None else logp * w).sum(dim)
    if _batching.any_batched(target):
        return _batched_smoothing(smooth, target, weight, ignore_index, reduction)
    # the ignored targets' terms masked out (always: PyTorch's MaskedFillBackward0); with all
    # ignored, the mean is 0 / 0 (nan) and the mask gives every gradient 0, as PyTorch's
    ignored = (target == ignore_index).reshape(smooth.shape)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "none":
        return smooth
    total = smooth.sum()
    if reduction == "sum":
        return total
    kept = ignored.logical_not()
    if weight is None:  # the number of kept targets
        return total / kept.sum()
    return total / weight.gather(0, target.reshape(smooth.shape)[kept].flatten()).sum()
