"""PyTorch's errors for operands of a matrix product that can't be multiplied: their shapes
(worded after the kernel PyTorch runs for their ranks) and their dtypes."""

from __future__ import annotations

import math

import numpy as np

from symgrad import dtypes
from symgrad.tensor import Tensor


def _check(sa: tuple, sb: tuple) -> None:
    """PyTorch's errors for operands of shapes ``sa`` and ``sb`` that can't be multiplied,
    worded after the kernel PyTorch runs for their ranks."""
    na, nb = len(sa), len(sb)
    shapes = f"the shapes are {list(sa)} and {list(sb)}"
    if not na or not nb:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D"
            f"\n(both need at least 1 dimension; {shapes})"
        )
    if na > 2 or nb > 2:
        _check_batches(sa[:-2], sb[:-2] if nb > 1 else (), shapes)
    k = sa[-1]
    n = sb[0] if nb == 1 else sb[-2]
    if k == n:
        return
    rows = math.prod(sa[:-1])
    if na == 1 and nb == 1:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{k}] and src [{n}] to have the same "
            f"number of elements, but got {k} and {n} elements respectively\n({shapes})"
        )
    if nb == 1:
        raise RuntimeError(
            f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({n})\n({shapes})"
        )
    if nb == 2:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({max(rows, 1)}x{k} and {n}x{sb[-1]})"
            f"\n({shapes})"
        )
    batch = math.prod(np.broadcast_shapes(sa[:-2], sb[:-2]))
    raise RuntimeError(
        f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {k}] but "
        f"got: [{batch}, {n}].\n({shapes})"
    )


def _check_batches(sa: tuple, sb: tuple, shapes: str) -> None:
    """PyTorch's broadcasting error for batch shapes that don't broadcast."""
    width = max(len(sa), len(sb))
    for i in range(1, width + 1):
        x = sa[-i] if i <= len(sa) else 1
        y = sb[-i] if i <= len(sb) else 1
        if x != y and 1 not in (x, y):
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {width - i}\n(the batch dimensions don't broadcast: "
                f"{shapes})"
            )


def _check_dtypes(a: Tensor, b: Tensor) -> None:
    """PyTorch's error for a product of two dtypes, worded after the kernel it would run."""
    if a.dtype is b.dtype:
        return
    na, nb = a.ndim, b.ndim
    if na == 1 and nb == 1:
        message = "dot : expected both vectors to have same dtype, but found {} and {}"
    elif nb == 1:
        message = "addmv input tensors must have the same dtype, but got {1}, {0}, and {1}"
    elif nb > 2:
        message = "expected scalar type {} but found {}"
    else:
        message = "expected m1 and m2 to have the same dtype, but got: {2} != {3}"
    names = (a.dtype.scalar_type, b.dtype.scalar_type)
    raise RuntimeError(
        message.format(*names, *map(dtypes.cpp_name, (a.dtype, b.dtype)))
        + f"\n(the dtypes are {a.dtype!r} and {b.dtype!r}: convert one with .to(dtype))"
    )
