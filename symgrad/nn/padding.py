"""``pad`` of :mod:`symgrad.nn.functional`: constant padding (negative pads crop), reflection,
replication and circular padding (one node each)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._tracing import TRACE
from symgrad.autograd import dual, grad_mode
from symgrad.ops.pooling import constant_pad, pick
from symgrad.prim import batching as _batching
from symgrad.tensor import Tensor

__all__ = ["pad"]


_NON_CONSTANT = {
    "reflect": "ReflectionPad{}DBackward0",
    "replicate": "ReplicationPad{}DBackward0",
    "circular": "CopySlices",
}


def _kept(lo: int, hi: int, n: int) -> tuple[int, int]:
    """The start and length of what negative pads leave of a dimension of size ``n``."""
    start = max(-lo, 0)
    return start, n - start - max(-hi, 0)


def _source(lo: int, hi: int, n: int, mode: str) -> np.ndarray:
    if mode == "circular":  # negative pads crop first, the wrapped parts come from what is left
        start, kept = _kept(lo, hi, n)
        return start + np.arange(-max(lo, 0), kept + max(hi, 0)) % max(kept, 1)
    j = np.arange(-lo, n + hi)
    if mode == "replicate":
        return np.clip(j, 0, n - 1)
    j = np.abs(j)
    return np.where(j > n - 1, 2 * (n - 1) - j, j)


def _check_cropped(mode: str, dims: int, n: int, lo: int, hi: int, shape: Any, dim: int) -> None:
    """PyTorch's errors for negative pads that crop a dimension away: reflect and replicate
    of one dimension keep at least one element, the others no fewer than none."""
    out = n + lo + hi
    if mode == "circular" and out < 0:
        raise RuntimeError(
            "Negative padding value is resulting in an empty dimension: padding "
            f"({lo}, {hi}) of dimension {dim} of size {n}"
        )
    if dims == 1 and mode != "circular" and out < 1:
        raise RuntimeError(f"input (W: {n}) is too small. Calculated output W: {out}")
    if out < 0:
        sizes = [*shape[:dim], out, *shape[dim + 1 :]]
        raise RuntimeError(f"Trying to create tensor with negative dimension {out}: {sizes}")


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (left, right)`` of the last one,
    then of the one before, ...; ``mode`` ``"constant"`` (with ``value``, negative pads
    crop), ``"reflect"``, ``"replicate"`` or ``"circular"``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> F.pad(symgrad.tensor([[1.0, 2.0, 3.0]]), (2, 1), mode="reflect")
    tensor([[3., 2., 1., 2., 3., 2.]])
    """
    pad = tuple(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    dims = len(pad) // 2
    if dims > input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {input.ndim}"
        )
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(dims)][::-1]  # first padded dim first
    if mode == "constant":
        return constant_pad(input, pairs, 0.0 if value is None else value)
    if mode not in _NON_CONSTANT:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value not in (None, 0):
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if input.ndim not in (dims + 1, dims + 2) or dims > 3:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor: "
            f"'{mode}' padding of {dims} dimension(s) takes a {dims + 1}D or {dims + 2}D input"
        )
    if mode != "circular" and input.dtype.scalar_type == "Bool":  # no bool kernels
        kind = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f"\"{kind}_pad{dims}d\" not implemented for 'Bool'")
    key: list = []
    lead = input.ndim - dims
    if mode == "replicate" and 0 in input.shape[lead:]:
        raise RuntimeError(
            f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch size "
            f"and other non-zero dimensions for input, but got: {list(input.shape)}"
        )
    for axis, ((lo, hi), n) in enumerate(zip(pairs, input.shape[lead:])):
        _check_cropped(mode, dims, n, lo, hi, input.shape, lead + axis)
        limit = _kept(lo, hi, n)[1] if mode == "circular" else math.inf
        if max(lo, hi) > limit or (mode == "reflect" and max(lo, hi) >= n):
            raise RuntimeError(
                f"Argument #{4 + 2 * (dims - 1 - axis)}: Padding size should be less than the "
                "corresponding input "
                f"dimension, but got: padding ({lo}, {hi}) at dimension {lead + axis} of input "
                f"{list(input.shape)}"
            )
        src = _source(lo, hi, n, mode)
        shape = [1] * dims
        shape[axis] = src.size
        key.append(src.reshape(shape))
    if mode == "circular" and _records(input):
        return _circular(input, pairs)
    if mode == "circular" and not input.requires_grad:  # PyTorch's result is row-major
        input = input.contiguous()
    name = _NON_CONSTANT[mode].format(dims)
    if mode == "circular":
        return pick(input, (Ellipsis, *key), name)
    shown = (("padding", tuple(p % 2**64 for p in pad)),)  # (negative pads as PyTorch shows them)
    return pick(input, (Ellipsis, *key), name, reads_input=True, shown=shown)


def _records(input: Tensor) -> bool:
    """Whether the pad records a graph (and no forward-mode or vmap batch rides on it, and
    ``symgrad.compile`` is not tracing, whose one node stands for the whole function): then its
    nodes are PyTorch's; otherwise one gather gives the same values."""
    return (
        input.requires_grad
        and grad_mode.is_grad_enabled()
        and TRACE.log is None
        and not dual.active()
        and not _batching.any_batched(input)
    )


def _circular(input: Tensor, pairs: list) -> Tensor:
    """Circular padding as PyTorch's ``_pad_circular`` writes it, so the graph has its nodes
    (``CopySlices`` reading ``SliceBackward0``): what negative pads leave copied into a new
    tensor, then each padded dimension's wrapped parts copied from inside it, the last
    dimension first."""
    lead = input.ndim - len(pairs)
    sizes = [n + lo + hi for (lo, hi), n in zip(pairs, input.shape[lead:])]
    out = input.new_empty((*input.shape[:lead], *sizes))
    into, source = out, input
    dims = range(input.ndim - 1, lead - 1, -1)
    for d in dims:
        (lo, hi), n, size = pairs[d - lead], input.shape[d], sizes[d - lead]
        into = into.narrow(d, max(lo, 0), size - max(lo, 0) - max(hi, 0))
        source = source.narrow(d, max(-lo, 0), n - max(-lo, 0) - max(-hi, 0))
    into.copy_(source)
    for d in dims:
        (lo, hi), size = pairs[d - lead], sizes[d - lead]
        if lo > 0:
            out.narrow(d, 0, lo).copy_(out.narrow(d, size - lo - max(hi, 0), lo))
        if hi > 0:
            out.narrow(d, size - hi, hi).copy_(out.narrow(d, max(lo, 0), hi))
    return out
