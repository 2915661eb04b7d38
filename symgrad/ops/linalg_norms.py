"""The norms of ``torch.linalg``: ``vector_norm``, ``matrix_norm`` (Frobenius, nuclear and
operator norms) and ``norm``, which picks one of them as PyTorch does."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._data import _wrap_dim
from symgrad.ops.decompositions import svdvals
from symgrad.ops.norms import in_dtype, norm_dtype, vector
from symgrad.tensor import Tensor

__all__: list = []  # public as symgrad.linalg.vector_norm, matrix_norm, norm


def vector_norm(
    x: Tensor, ord: Any = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """The vector ``ord``-norm over ``dim`` (every element by default).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.vector_norm(symgrad.tensor([3.0, -4.0]), ord=1)
    tensor(7.)
    """
    converts = norm_dtype("linalg.vector_norm", x, dtype)
    if isinstance(ord, str):
        raise RuntimeError(f"linalg.vector_norm: ord must be a number, got '{ord}'")
    return vector(x, ord, dim, keepdim, converts)


def matrix_norm(
    A: Tensor,
    ord: Any = "fro",
    dim: Any = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """The Frobenius ('fro'), nuclear ('nuc') or operator (1, -1, 2, -2, inf, -inf) norm of
    each matrix over the two dimensions ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.matrix_norm(symgrad.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1)
    tensor(6.)
    """
    half = A.dtype.itemsize < 4 if A.dtype.is_floating_point else False
    converts = norm_dtype("linalg.matrix_norm", A, dtype)
    if A.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    if len(dim) != 2:  # (PyTorch prints the dims apart by spaces)
        raise RuntimeError(
            f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}"
        )
    d0, d1 = (_wrap_dim(d, A.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if ord == "fro":
        return vector(A, 2, (d0, d1), keepdim, converts)
    if ord == "nuc" or ord in (2, -2):
        if half:  # (PyTorch checks before dtype)
            raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
        A = in_dtype("linalg.matrix_norm", A, dtype)  # (a recorded conversion, as PyTorch's)
        # PyTorch's steps (and node names): the matrices moved last, then reduced
        order = [d for d in range(A.ndim) if d not in (d0, d1)] + [d0, d1]
        s = svdvals(A.permute(order))
        if ord == 2 and s.shape[-1] == 0:
            return _empty_maximum(A, (d0, d1), keepdim)
        if ord == "nuc":
            out = s.sum(-1, keepdim=keepdim)
        else:
            out = s.amax(-1, keepdim=keepdim) if ord == 2 else s.amin(-1, keepdim=keepdim)
        if keepdim:
            out = out.unsqueeze(-1).permute([order.index(d) for d in range(A.ndim)])
        return out
    if ord in (1, -1, math.inf, -math.inf):
        matrix_dims = (d0, d1)
        if math.isinf(ord):
            d0, d1 = d1, d0
        if not keepdim and d0 < d1:
            d1 -= 1
        sums = vector(A, 1, d0, keepdim, converts)
        if ord > 0 and sums.shape[d1] == 0:
            return _empty_maximum(A, matrix_dims, keepdim, converts)
        return sums.amax(d1, keepdim=keepdim) if ord > 0 else sums.amin(d1, keepdim=keepdim)
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def linalg_norm(
    A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """``vector_norm`` or ``matrix_norm``, chosen as PyTorch does: a matrix norm when ``dim``
    has two entries, or when ``ord`` is given for a 2-D input without ``dim``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.norm(symgrad.tensor([[3.0, 0.0], [0.0, 4.0]]))
    tensor(5.)
    """
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
        )
    if dim is None and ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
            f"{A.ndim}D."
        )
    if isinstance(ord, str):  # a named norm is a matrix norm, whatever the input or dim
        return matrix_norm(A, ord, (0, 1) if dim is None else dim, keepdim, dtype=dtype)
    if dim is not None:
        if len(dim) == 1:
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is not None and A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, None, keepdim, dtype=dtype)


def _empty_maximum(A: Tensor, dims: tuple, keepdim: bool, dtype: Any = None) -> Tensor:
    """PyTorch's value for a largest column or row sum (or singular value) of matrices with
    none: 0, with no gradient."""
    shape = [1 if d in dims else n for d, n in enumerate(A.shape)]
    if not keepdim:
        shape = [n for d, n in enumerate(A.shape) if d not in dims]
    return Tensor._make(np.zeros(shape, A._data.dtype if dtype is None else dtype))
