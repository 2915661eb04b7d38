"""Statistics of samples: ``cov`` and ``corrcoef`` (composed as PyTorch records them: a
centred ``mm`` over a ``DivBackward0``, then the ``ClampBackward1`` of the scaled matrix), and
the counts without gradients ``bincount``, ``histc``, ``bucketize`` and ``searchsorted``."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor, require_tensor_input
from symgrad._data import in_dtype
from symgrad.ops.linalg import matmul
from symgrad.tensor import Tensor

__all__ = ["cov", "corrcoef", "bincount", "histc", "bucketize", "searchsorted"]


def _weights(fweights: Any, aweights: Any, n: int) -> Any:
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is not None and (w.ndim > 1 or (w.ndim == 1 and w.shape[0] != n)):
            raise RuntimeError(
                f"cov(): expected {name} to have one element per observation ({n}), but got "
                f"shape {list(w.shape)}"
            )
    if fweights is not None and fweights.dtype.is_floating_point:
        raise RuntimeError(
            f"cov(): expected fweights to have integral dtype but got {fweights.dtype}"
        )
    if aweights is not None and not aweights.dtype.is_floating_point:
        raise RuntimeError(
            f"cov(): expected aweights to have floating point dtype but got {aweights.dtype}"
        )
    if fweights is not None and not fweights.is_meta and bool((fweights._data < 0).any()):
        raise RuntimeError("cov(): fweights cannot be negative")
    if aweights is not None and not aweights.is_meta and bool((aweights._data < 0).any()):
        raise RuntimeError("cov(): aweights cannot be negative")
    if fweights is None:
        return aweights
    return fweights if aweights is None else fweights * aweights


def cov(
    input: Tensor, *, correction: int = 1, fweights: Any = None, aweights: Any = None
) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in its
    columns; a vector is one variable), with frequency and reliability weights.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.cov(symgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]))
    tensor([[ 1.0000, -0.7500],
            [-0.7500,  0.5833]])
    """
    if type(input) is not Tensor:
        require_tensor("cov", "input", 1, input)
    if input.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with "
            f"{input.ndim} dimensions"
        )
    x = input.view(1, -1) if input.ndim < 2 else input
    n = x.shape[1]
    w = _weights(fweights, aweights, n)
    if w is None:
        # PyTorch divides by 0-d tensors: DivBackward0 nodes
        w_sum = Tensor._make(np.asarray(n, dtype=np.int64))
        avg = x.sum(1) / w_sum
        norm_factor = Tensor._make(np.asarray(n - correction, dtype=np.int64))
    else:
        w_sum = w.sum()
        if not w_sum._data.any():
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        avg = (x * w).sum(1) / w_sum
        if aweights is not None and correction != 0:
            norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
        else:
            norm_factor = w_sum - correction
    if norm_factor._data <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
            "number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm_factor = Tensor._make(np.zeros((), dtype=norm_factor._data.dtype))
    x = x - avg.unsqueeze(1)
    c = matmul(x, (x * w if w is not None else x).t())
    return (c / norm_factor).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in the rows of ``input``, clipped
    to ``[-1, 1]``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.corrcoef(symgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]]))
    tensor([[ 1.0000, -0.9820],
            [-0.9820,  1.0000]])
    """
    if type(input) is not Tensor:
        require_tensor("corrcoef", "input", 1, input)
    c = cov(input)
    if c.ndim == 0:
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clamp(-1, 1)


def bincount(input: Tensor, weights: Any = None, minlength: int = 0) -> Tensor:
    """How often each value ``0, 1, ..., max(input)`` occurs in the non-negative integers
    ``input`` (the sum of their ``weights`` when given); no gradient.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.bincount(symgrad.tensor([0, 2, 2, 3]))
    tensor([1, 0, 2, 1])
    """
    if type(input) is not Tensor:
        require_tensor("bincount", "input", 1, input)
    if input.dtype.is_floating_point or input.dtype.category == 0:
        raise NotImplementedError(
            f"\"bincount_cpu\" not implemented for '{input.dtype.scalar_type}'; bincount "
            "counts integers"
        )
    data = input._data
    if input.ndim != 1 or (data.size and data.min() < 0) or minlength < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is None:
        return Tensor._make(np.bincount(data, minlength=minlength).astype(np.int64))
    if tuple(weights.shape) != tuple(input.shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    d = weights.dtype if weights.dtype.is_floating_point else dtypes.float64
    counts = np.bincount(data, weights=weights._data.astype(np.float64), minlength=minlength)
    return Tensor._make(counts.astype(d.numpy))


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """The histogram of ``input`` over ``bins`` equal bins between ``min`` and ``max`` (the
    data's own range when both are 0); elements outside are left out. No gradient.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.histc(symgrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3)
    tensor([0., 2., 1., 0.])
    """
    if type(input) is not Tensor:
        require_tensor("histc", "input", 1, input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(
            f"\"histogram_cpu\" not implemented for '{input.dtype.scalar_type}'; convert the "
            "input with .float()"
        )
    if bins <= 0:
        raise RuntimeError(f"torch.histc: bins must be > 0, but got {bins} for dimension 0")
    data = input._data.reshape(-1)
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc: max must be larger than min, got min={lo} max={hi}")
    if not (math.isfinite(lo) and math.isfinite(hi)):  # (a nan or an infinity in the data)
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    counts, _ = np.histogram(data, bins=bins, range=(lo, hi))
    return Tensor._make(counts.astype(input._data.dtype))


def _as_values(values: Any) -> np.ndarray:
    return values._data if isinstance(values, Tensor) else np.asarray(values)


def searchsorted(
    sorted_sequence: Tensor,
    input: Any,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Any = None,
) -> Tensor:
    """Where each of ``input`` would go in ``sorted_sequence`` (along its last dimension, row
    by row when it has more) to keep it sorted: the first such place, the last when ``right``
    or ``side="right"``. No gradient.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.searchsorted(symgrad.tensor([1, 3, 5, 7]), symgrad.tensor([3, 6]))
    tensor([1, 3])
    """
    if type(sorted_sequence) is not Tensor:
        require_tensor_input("searchsorted", sorted_sequence, input)
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side of "
                "left while right was True"
            )
        right = side == "right"
    seq = sorted_sequence._data
    if sorter is not None:
        seq = np.take_along_axis(seq, _as_values(sorter), -1)
    values = _as_values(in_dtype(input, seq.dtype) if type(input) is int else input)
    how = "right" if right else "left"
    if seq.ndim <= 1:
        found = np.searchsorted(seq, values, side=how)
    else:
        if seq.shape[:-1] != values.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                "dimensions of boundaries tensor and input value tensor must match, but we got "
                f"boundaries tensor {list(seq.shape)} and input value tensor {list(values.shape)}"
            )
        rows_s = seq.reshape(-1, seq.shape[-1])
        rows_v = values.reshape(-1, values.shape[-1])
        found = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(rows_s, rows_v)])
        found = found.reshape(values.shape)
    return Tensor._make(np.asarray(found, dtype=np.int32 if out_int32 else np.int64))


def bucketize(
    input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
) -> Tensor:
    """The bucket of each element of ``input`` among the sorted 1-d ``boundaries``: the index
    ``i`` with ``boundaries[i-1] < x <= boundaries[i]`` (``<= x <`` when ``right``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.bucketize(symgrad.tensor([3, 6, 9]), symgrad.tensor([1, 3, 5, 7, 9]))
    tensor([1, 3, 4])
    """
    if not isinstance(boundaries, Tensor):
        require_tensor("bucketize", "boundaries", 2, boundaries)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
