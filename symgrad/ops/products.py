"""Products built from ``matmul`` and broadcasting: ``kron`` and ``tensordot`` (composed of
recorded ops, so closed forms come from their parts)."""

from __future__ import annotations

import math
from typing import Any

from symgrad._arguments import require_tensors
from symgrad._data import _wrap_dim
from symgrad.ops.fused_inplace import IN_PLACE_METHODS  # noqa: F401 (bound by methods)
from symgrad.ops.fused_products import addbmm, addmm, addmv, addr, baddbmm  # noqa: F401 (methods)
from symgrad.ops.linalg import _unsafe_view, dot, matmul
from symgrad.ops.shape import permute, reshape
from symgrad.tensor import Tensor

__all__ = ["kron", "tensordot", "inner"]


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: every element of ``input`` times all of ``other``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.kron(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 10.0]))
    tensor([ 1., 10.,  2., 20.])
    """
    if type(input) is not Tensor or type(other) is not Tensor:
        require_tensors("kron", input, "other", other)
    # PyTorch's graph: each input's _unsafe_view into interleaved dimensions, one product,
    # the _unsafe_view of the product (UnsafeViewBackward0 three times)
    n = max(input.ndim, other.ndim)
    sa = (1,) * (n - input.ndim) + tuple(input.shape)
    sb = (1,) * (n - other.ndim) + tuple(other.shape)
    a = _unsafe_view(input, tuple(s for k in sa for s in (k, 1)))
    b = _unsafe_view(other, tuple(s for k in sb for s in (1, k)))
    return _unsafe_view(a * b, tuple(x * y for x, y in zip(sa, sb)))


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """The sum of products over the last ``dims`` dimensions of ``a`` and the first of ``b``,
    or over the paired dimensions ``dims = (dims_a, dims_b)``."""
    dims = _dims_of(dims)
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(
                f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims} for tensors "
                f"of {a.ndim} and {b.ndim} dimensions"
            )
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = dims
        da, db = [_wrap_dim(d, a.ndim) for d in da], [_wrap_dim(d, b.ndim) for d in db]
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {a.shape[i]} in dim "
                f"{i} and second has size {b.shape[j]} in dim {j}"
            )
    ra = [i for i in range(a.ndim) if i not in da]
    rb = [j for j in range(b.ndim) if j not in db]
    k = math.prod(a.shape[i] for i in da)
    if not ra and not rb:  # everything contracted: PyTorch takes the dot product of two vectors
        a1, b1 = permute(a, tuple(da)), permute(b, tuple(db))
        a1 = a1 if a1.ndim == 1 else reshape(a1, (k,))  # (a vector is not viewed again)
        b1 = b1 if b1.ndim == 1 else reshape(b1, (k,))
        return reshape(dot(a1, b1), ())
    a2 = reshape(permute(a, tuple(ra + da)), (math.prod(a.shape[i] for i in ra), k))
    b2 = reshape(permute(b, tuple(db + rb)), (k, math.prod(b.shape[j] for j in rb)))
    return reshape(matmul(a2, b2), tuple(a.shape[i] for i in ra) + tuple(b.shape[j] for j in rb))


def _dims_of(dims: Any) -> Any:
    """``tensordot``'s ``dims`` as PyTorch reads it: a count (an int, or a one-element
    tensor), or two lists of dimensions (a pair of int sequences, or a tensor of two rows)."""
    if isinstance(dims, Tensor):
        if dims.numel() == 1:
            return int(dims.item())
        if dims.shape[0] != 2:
            raise AssertionError(
                f"dims tensor must have size 2 in first dimension, got {dims.shape[0]}"
            )
        return dims[0].tolist(), dims[1].tolist()
    if isinstance(dims, int):
        return int(dims)
    if not isinstance(dims, (tuple, list)):
        raise RuntimeError(
            "tensordot expects dims to be int or tuple[list[int], list[int]] or "
            f"list[list[int]] containing two lists, but got dims={dims}"
        )
    da, db = dims
    for name, position, d in (("dims_self", 3, da), ("dims_other", 4, db)):
        if not isinstance(d, (tuple, list)):
            raise TypeError(
                f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, "
                f"not {type(d).__name__}"
            )
        for i, k in enumerate(d):
            if isinstance(k, (bool, float)) or not hasattr(type(k), "__index__"):
                raise TypeError(
                    f"tensordot(): argument '{name}' (position {position}) must be tuple of "
                    f"ints, but found element of type {type(k).__name__} at pos {i}"
                )
    return [k.__index__() for k in da], [k.__index__() for k in db]


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The sums of products over the last dimension of both: ``tensordot`` over dimensions
    ``-1`` and ``-1`` (a product when one is 0-d), the result of shape
    ``input.shape[:-1] + other.shape[:-1]``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.inner(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]), symgrad.tensor([1.0, 10.0]))
    tensor([21., 43.])
    """
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(
            "inner(): arguments 'input' and 'other' must be Tensors, got "
            f"{type(input).__name__} and {type(other).__name__}"
        )
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    return tensordot(input, other, dims=([-1], [-1]))
