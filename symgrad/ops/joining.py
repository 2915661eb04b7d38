"""Joining and splitting tensors: cat, stack, split, chunk, unbind, narrow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.ops.shape import _tensor, to_dtype
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.tensor import Tensor, _wrap_dim

__all__ = ["cat", "concat", "concatenate", "stack", "split", "chunk", "unbind", "narrow"]


# -- joining and splitting ----------------------------------------------------------------------
def _cat_vjp(xp: Any, g: Any, c: Any) -> tuple:
    dim, grads, start = c.params["dim"], [], 0
    for shape, need in zip(c.shapes, c.needs):
        stop = start + shape[dim]
        key = (slice(None),) * dim + (slice(start, stop),)
        grads.append(xp.getitem(g, key) if need else None)
        start = stop
    return tuple(grads)


_CAT = Structural(
    "cat", lambda xp, *arrays, dim: xp.cat(list(arrays), dim), _cat_vjp, jvp="linear", text=COPIES
)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension."""
    tensors = [_tensor(x, "cat") for x in tensors]
    if not tensors:
        raise RuntimeError("cat(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if x.ndim == 0:
            raise RuntimeError(
                f"zero-dimensional tensor (at position {i}) cannot be concatenated; "
                "unsqueeze it to shape [1] or use stack"
            )
    ref = tensors[0]
    d = _wrap_dim(dim, ref.ndim)
    for i, x in enumerate(tensors):
        if (
            x.ndim != ref.ndim
            or x.shape[:d] + x.shape[d + 1 :] != ref.shape[:d] + ref.shape[d + 1 :]
        ):
            raise RuntimeError(
                f"cat(): sizes of tensors must match except in dimension {d}: tensor 0 has "
                f"shape {list(ref.shape)} but tensor {i} has shape {list(x.shape)}"
            )
    common = dtypes.result_type(*tensors)
    return _CAT(*(to_dtype(x, common) for x in tensors), dim=d)


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of one shape along a new dimension."""
    tensors = [_tensor(x, "stack") for x in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(tensors):
        if x.shape != tensors[0].shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(tensors[0].shape)} "
                f"at entry 0 and {list(x.shape)} at entry {i}"
            )
    d = _wrap_dim(dim, tensors[0].ndim + 1)
    common = dtypes.result_type(*tensors)
    return _STACK(*(to_dtype(x, common) for x in tensors), dim=d)


def _stack_forward(xp: Any, *arrays: Any, dim: int) -> Any:
    return xp.cat([xp.unsqueeze(a, dim) for a in arrays], dim)


def _stack_vjp(xp: Any, g: Any, c: Any) -> tuple:
    lead = (slice(None),) * c.params["dim"]
    return tuple(xp.getitem(g, lead + (i,)) if need else None for i, need in enumerate(c.needs))


_STACK = Structural("stack", _stack_forward, _stack_vjp, jvp="linear")


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The slice ``start:start+length`` of dimension ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, input.ndim)
    size = input.shape[d]
    if not -size <= start <= size:
        raise IndexError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    start = start % size if start < 0 else start
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return input[(slice(None),) * d + (slice(start, start + length),)]


def _at_least_1d(input: Tensor, op: str) -> None:
    if input.ndim == 0:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Split into pieces of a given size (the last may be smaller), or of listed sizes."""
    _at_least_1d(tensor, "split")
    d = _wrap_dim(dim, tensor.ndim)
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0:
            raise RuntimeError(f"split expects split_size be positive, but got {step}")
        bounds = list(range(0, n, step)) + [n] if n else [0, 0]  # empty: one empty piece
    else:
        sections = list(split_size_or_sections)
        if sum(sections) != n:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's "
                f"size at dimension {d}), but got split_sizes={sections}"
            )
        bounds = list(np.cumsum([0] + sections))
    return tuple(narrow(tensor, d, int(a), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:]))


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """Split into ``chunks`` pieces of equal size (the last may be smaller)."""
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    _at_least_1d(input, "chunk")
    n = input.shape[_wrap_dim(dim, input.ndim)]
    if n == 0:  # PyTorch: `chunks` empty pieces
        return split(input, [0] * chunks, dim)
    return split(input, -(-n // chunks), dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along ``dim``, with that dimension removed."""
    d = _wrap_dim(dim, input.ndim)
    return tuple(input[(slice(None),) * d + (i,)] for i in range(input.shape[d]))
