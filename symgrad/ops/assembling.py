"""Tensors assembled from others: ``block_diag`` (one ``BlockDiagBackward0`` node, as in
PyTorch), ``cartesian_prod`` and ``combinations`` (rows of a ``meshgrid``, stacked),
``chain_matmul``, ``vander``, ``fliplr``/``flipud``, and the index tables ``tril_indices`` and
``triu_indices``."""

from __future__ import annotations

import warnings
from itertools import accumulate
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor, require_tensor_sequence
from symgrad.ops.inplace import copy_
from symgrad.ops.joining import stack
from symgrad.ops.matrix_functions import multi_dot
from symgrad.ops.scans import cumprod
from symgrad.ops.shape import flip
from symgrad.ops.tiling import masked_select, meshgrid
from symgrad.prim import batching as _batching
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = [
    "block_diag",
    "cartesian_prod",
    "combinations",
    "chain_matmul",
    "vander",
    "fliplr",
    "flipud",
    "tril_indices",
    "triu_indices",
]


def _matrix_shape(shape: tuple) -> tuple:
    """A block's place on the diagonal: a number is 1 x 1, a vector one row."""
    return tuple(shape) if len(shape) == 2 else (1, shape[0] if shape else 1)


def _block_diag_forward(xp: Any, *blocks: Any) -> Any:
    """Each block's rows padded with zeros on both sides, the padded rows stacked."""
    shapes = [_matrix_shape(b.shape) for b in blocks]
    total = sum(w for _, w in shapes)
    rows, left = [], 0
    for b, (r, w) in zip(blocks, shapes):
        b = xp.reshape(b, (r, w))
        pieces = [xp.constant(np.zeros((r, left))), b, xp.constant(np.zeros((r, total - left - w)))]
        rows.append(xp.cat(pieces, 1))
        left += w
    return xp.cat(rows, 0)


def _block_diag_kernel(xp: Any, *blocks: Any) -> Any:
    shapes = [_matrix_shape(b.shape) for b in blocks]
    out = np.zeros((sum(s[0] for s in shapes), sum(s[1] for s in shapes)), np.result_type(*blocks))
    r = c = 0
    for b, (h, w) in zip(blocks, shapes):
        out[r : r + h, c : c + w] = b.reshape(h, w)
        r, c = r + h, c + w
    return out


def _block_diag_vjp(xp: Any, g: Any, c: Any) -> tuple:
    shapes = [_matrix_shape(s) for s in c.shapes]
    rows = [0, *accumulate(s[0] for s in shapes)]
    cols = [0, *accumulate(s[1] for s in shapes)]
    return tuple(
        xp.reshape(
            xp.getitem(g, (slice(rows[k], rows[k + 1]), slice(cols[k], cols[k + 1]))),
            tuple(c.shapes[k]),
        )
        if c.needs[k]
        else None
        for k in range(len(c.shapes))
    )


_BLOCK_DIAG = Structural(
    "block_diag",
    _block_diag_forward,
    _block_diag_vjp,
    backward="BlockDiagBackward0",
    kernel=_block_diag_kernel,
    jvp="linear",
)


def block_diag(*tensors: Tensor) -> Tensor:
    """The block-diagonal matrix with ``tensors`` on its diagonal (a number is a 1 x 1 block, a
    vector a row).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.block_diag(symgrad.tensor([[1.0, 2.0]]), symgrad.tensor(3.0))
    tensor([[1., 2., 0.],
            [0., 0., 3.]])
    """
    require_tensor_sequence(tensors)
    for k, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(
                f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {k} "
                f"has {t.ndim} dimensions"
            )
    if not tensors:
        return Tensor._make(np.zeros((1, 0), dtype=dtypes.get_default_dtype().numpy))
    d = tensors[0].dtype
    for t in tensors[1:]:
        d = dtypes.promote_types(d, t.dtype)
    return _BLOCK_DIAG(*[t.to(d) for t in tensors])


def _check_vector(t: Tensor) -> None:
    if t.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each vector, one per row.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.cartesian_prod(symgrad.tensor([1, 2]), symgrad.tensor([5, 6]))
    tensor([[1, 5],
            [1, 6],
            [2, 5],
            [2, 6]])
    """
    require_tensor_sequence(tensors)
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The ``r``-element combinations of the elements of vector ``input`` (in order), one per
    row, as Python's ``itertools.combinations`` (``combinations_with_replacement``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.combinations(symgrad.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    if type(input) is not Tensor:
        require_tensor("combinations", "input", 1, input)
    _check_vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.zeros(0, dtype=input._data.dtype))
    n = input.shape[0]
    grids = meshgrid(*([input] * r), indexing="ij")
    index = np.indices((n,) * r)
    keep = np.ones((n,) * r, dtype=bool)
    for a, b in zip(index[:-1], index[1:]):
        keep &= (a <= b) if with_replacement else (a < b)
    mask = Tensor._make(keep)
    return stack([masked_select(g, mask) for g in grids], 1)


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The product of the matrices, in the cheapest order (PyTorch's deprecated name of
    ``linalg.multi_dot``).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.chain_matmul(symgrad.eye(2), symgrad.ones(2, 3)).shape
    symgrad.Size([2, 3])
    """
    require_tensor_sequence(matrices)
    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather "
        "than multiple parameters.",
        UserWarning,
        stacklevel=2,
    )
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for k, m in enumerate(matrices):
        if m.ndim != 2:
            raise RuntimeError(
                f"Tensor dimension is {m.ndim}, expected 2 instead. (chain_matmul: matrix {k})"
            )
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(list(matrices))


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of vector ``x``: its columns the powers ``x ** (N - 1)`` down to
    ``x ** 0`` (up from ``x ** 0`` when ``increasing``); integers and bools give int64.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.vander(symgrad.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    if type(x) is not Tensor:
        require_tensor("vander", "x", 1, x)
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    d = x.dtype if x.dtype.is_floating_point else dtypes.int64
    x = x.to(d)
    if n > 1 and _batching.any_batched(x):  # inside vmap, where nothing is written in place
        from symgrad.ops.joining import cat

        powers = cumprod(x.unsqueeze(1).expand(x.shape[0], n - 1), 1)
        out = cat([x.new_ones((x.shape[0], 1)), powers], 1)
    else:
        out = x.new_ones((x.shape[0], n))
        if n > 1:  # PyTorch's steps and graph: the column written, then its running product
            copy_(out[:, 1:], x.unsqueeze(1))  # (ATen's copy_, broadcasting inside)
            out[:, 1:] = cumprod(_copy_of(out[:, 1:]), 1)
    return out if increasing or n == 0 else flip(out, (1,))


def _copy_of(view: Tensor) -> Tensor:
    """``view``'s values and history on memory of their own: PyTorch's cumprod reads the columns
    it then overwrites, so its backward raises; this one reads a copy."""
    from symgrad.ops.inplace import snapshot

    copy = snapshot(view)
    copy._data = view._data.copy()
    return copy


def fliplr(input: Tensor) -> Tensor:
    """The columns in reverse order (dimension 1).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.fliplr(symgrad.tensor([[1, 2], [3, 4]]))
    tensor([[2, 1],
            [4, 3]])
    """
    if type(input) is not Tensor:
        require_tensor("fliplr", "input", 1, input)
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """The rows in reverse order (dimension 0).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.flipud(symgrad.tensor([1, 2, 3]))
    tensor([3, 2, 1])
    """
    if type(input) is not Tensor:
        require_tensor("flipud", "input", 1, input)
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def _indices(row: int, col: int, rows_cols: tuple, dtype: Any) -> Tensor:
    if row < 0 or col < 0:
        raise RuntimeError(
            f"row must be non-negative, got {row}"
            if row < 0
            else f"col must be non-negative, got {col}"
        )
    d = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    return Tensor._make(np.stack(rows_cols).astype(d.numpy).reshape(2, -1))


def tril_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = None,
    layout: Any = None,
) -> Tensor:
    """The ``(2, K)`` row and column indices of the lower triangle of a ``row x col`` matrix
    (diagonal ``offset`` included), row by row.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.tril_indices(3, 3)
    tensor([[0, 1, 1, 2, 2, 2],
            [0, 0, 1, 0, 1, 2]])
    """
    return _indices(row, col, np.tril_indices(row, offset, col), dtype)


def triu_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: Any = None,
    device: Any = None,
    layout: Any = None,
) -> Tensor:
    """The ``(2, K)`` row and column indices of the upper triangle of a ``row x col`` matrix
    (diagonal ``offset`` included), row by row.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.triu_indices(2, 3, 1)
    tensor([[0, 0, 1],
            [1, 2, 2]])
    """
    return _indices(row, col, np.triu_indices(row, offset, col), dtype)
