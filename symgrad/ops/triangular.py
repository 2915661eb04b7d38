"""Triangles and diagonals of matrices (the last two dimensions, or ``dim1``/``dim2``):
``tril``, ``triu``, ``diagonal`` (a view, as in PyTorch), ``diag``, ``diag_embed`` and
``trace``. Each is a mask, a gather or a scatter of fixed positions, so its rule runs on
every interpreter."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from symgrad._arguments import require_int, require_tensor
from symgrad._data import _wrap_dim
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["tril", "triu", "diagonal", "diag", "diag_embed", "trace"]


# -- tril, triu -----------------------------------------------------------------------------------
def _mask_forward(xp: Any, a: Any, keep: np.ndarray, dtype: np.dtype, saved_as: tuple = ()) -> Any:
    return xp.where(xp.constant(keep), a, xp.constant(np.zeros(keep.shape, dtype=dtype)))


def _mask_vjp(name: str) -> Any:
    # PyTorch's formula is the op on the gradient (grad.tril(diagonal)): its node again
    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        return (xp.masked_fill(g, xp.constant(~c.params["keep"]), 0.0, node=name),)

    return vjp


_TRIL = Structural(
    "tril", _mask_forward, _mask_vjp("TrilBackward0"), backward="TrilBackward0", jvp="linear"
)
_TRIU = Structural(
    "triu", _mask_forward, _mask_vjp("TriuBackward0"), backward="TriuBackward0", jvp="linear"
)


def _triangle(input: Tensor, diagonal: int, lower: bool) -> Tensor:
    op = "tril" if lower else "triu"
    if input.ndim < 2:
        raise RuntimeError(f"{op}: input tensor must have at least 2 dimensions")
    rows, cols = input.shape[-2:]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offset <= diagonal if lower else offset >= diagonal
    keep = np.broadcast_to(keep, input.shape)
    shown = (("diagonal", diagonal % 2**64),)  # (a negative int as PyTorch shows it)
    return (_TRIL if lower else _TRIU)(input, keep=keep, dtype=input._data.dtype, saved_as=shown)


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (on and below the ``diagonal``-th diagonal); zeros elsewhere.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(3, 3).tril()
    tensor([[1., 0., 0.],
            [1., 1., 0.],
            [1., 1., 1.]])
    """
    if type(input) is not Tensor:
        require_tensor("tril", "input", 1, input)
    if type(diagonal) is not int:
        require_int("tril", "diagonal", diagonal)
        diagonal = operator.index(diagonal)
    return _triangle(input, diagonal, True)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (on and above the ``diagonal``-th diagonal); zeros elsewhere."""
    if type(input) is not Tensor:
        require_tensor("triu", "input", 1, input)
    if type(diagonal) is not int:
        require_int("triu", "diagonal", diagonal)
        diagonal = operator.index(diagonal)
    return _triangle(input, diagonal, False)


# -- diagonals ------------------------------------------------------------------------------------
def _take(xp: Any, a: Any, key: tuple, saved_as: tuple = ()) -> Any:
    return xp.getitem(a, key)


def _take_vjp(xp: Any, g: Any, c: Any) -> tuple:
    # PyTorch's formula: diagonal_backward(grad, sizes, offset, dim1, dim2)
    node = "DiagonalBackwardBackward0"
    return (xp.index_put_zeros(c.shapes[0], c.params["key"], g, True, node=node),)


def _diagonal_kernel(
    xp: Any, a: np.ndarray, key: tuple, view: tuple, saved_as: tuple = ()
) -> np.ndarray:
    """The diagonal as a writable strided view of ``a`` (so writes reach ``a``)."""
    shape, strides, start = view
    base = a[start] if start else a
    if not a.flags.writeable:  # (a meta array) a read-only view of its own type: linked too
        return np.lib.stride_tricks.as_strided(base, shape, strides, subok=True, writeable=False)
    return np.lib.stride_tricks.as_strided(base, shape, strides, writeable=True)


def _diagonal_forward(xp: Any, a: Any, key: tuple, view: tuple, saved_as: tuple = ()) -> Any:
    return xp.getitem(a, key)


_DIAGONAL = Structural(
    "diagonal",
    _diagonal_forward,
    _take_vjp,
    backward="DiagonalBackward0",
    kernel=_diagonal_kernel,
    jvp="linear",
)
_DIAG_COPY = Structural("diag", _take, _take_vjp, backward="DiagonalBackward0_copy", jvp="linear")


def _diagonal_key(shape: tuple, offset: int, d1: int, d2: int) -> tuple:
    """The advanced key giving the diagonal at the end, as ``torch.diagonal`` lays it out."""
    n1, n2 = shape[d1], shape[d2]
    size = max(0, min(n1 + min(offset, 0), n2 - max(offset, 0)))
    i = np.arange(size) - min(offset, 0)
    j = np.arange(size) + max(offset, 0)
    rest = [k for k in range(len(shape)) if k not in (d1, d2)]
    grids = np.meshgrid(*[np.arange(shape[k]) for k in rest], np.arange(size), indexing="ij")
    key: list = [None] * len(shape)
    for k, grid in zip(rest, grids[:-1]):
        key[k] = grid
    key[d1], key[d2] = i[grids[-1]], j[grids[-1]]
    return tuple(key)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset``-th diagonal of the matrices in dimensions ``dim1``, ``dim2``, as a new
    last dimension; a view of ``input``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.arange(9.0).reshape(3, 3).diagonal(1)
    tensor([1., 5.])
    """
    d1, d2, key = _diagonal_args("diagonal", input, offset, dim1, dim2)
    n = input.ndim
    a = input._data
    size = key[d1].shape[-1] if key[d1].ndim else 0
    rest = [k for k in range(n) if k not in (d1, d2)]
    strides = tuple(a.strides[k] for k in rest) + (a.strides[d1] + a.strides[d2],)
    shape = tuple(a.shape[k] for k in rest) + (size,)
    start: tuple = ()
    if size:
        first = [0] * n
        first[d1], first[d2] = -min(offset, 0), max(offset, 0)
        start = tuple(slice(f, None) for f in first)
    view = (shape, strides, start)
    return _DIAGONAL(input, key=key, view=view, saved_as=_shown(offset, dim1, dim2))


def _diagonal_args(op: str, input: Any, offset: Any, dim1: Any, dim2: Any) -> tuple:
    """PyTorch's checks of a diagonal's arguments; the two dims wrapped, and the index key
    of the diagonal's elements."""
    if type(input) is not Tensor:
        require_tensor(op, "input", 1, input)
    if type(offset) is not int:
        require_int(op, "offset", offset)
    n = input.ndim
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2, _diagonal_key(tuple(input.shape), offset, d1, d2)


def _shown(offset: int, dim1: int, dim2: int) -> tuple:
    """A diagonal's arguments as its node shows them: as given, a negative one as PyTorch
    shows it (the unsigned 64-bit number of the same bits)."""
    return tuple((k, v % 2**64) for k, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)))


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The values of ``input.diagonal(offset, dim1, dim2)`` in new memory
    (``DiagonalBackward0_copy``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.diagonal_copy(symgrad.arange(9.0).reshape(3, 3), 1)
    tensor([1., 5.])
    """
    _, _, key = _diagonal_args("diagonal_copy", input, offset, dim1, dim2)
    return _DIAG_COPY(input, key=key, saved_as=_shown(offset, dim1, dim2))


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A vector's diagonal matrix, or a matrix's ``diagonal``-th diagonal (a copy).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.diag(symgrad.tensor([1.0, 2.0]))
    tensor([[1., 0.],
            [0., 2.]])
    """
    if type(input) is not Tensor:
        require_tensor("diag", "input", 1, input)
    if type(diagonal) is not int:
        require_int("diag", "diagonal", diagonal)
    if input.ndim == 1:
        return diag_embed(input, diagonal)  # (its node shows dims -2 and -1, as PyTorch's)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    key = _diagonal_key(tuple(input.shape), diagonal, 0, 1)
    return _DIAG_COPY(input, key=key, saved_as=_shown(diagonal, 0, 1))


def _embed_forward(
    xp: Any, a: Any, shape: tuple, key: tuple, dims: tuple, saved_as: tuple = ()
) -> Any:
    return xp.index_put_zeros(shape, key, a, True)


def _embed_vjp(xp: Any, g: Any, c: Any) -> tuple:
    dims = c.params["dims"]
    if xp is INTERPRETERS.tensor and type(g) is not BatchedTensor:
        return (diagonal(g, *dims),)  # PyTorch's formula: grad.diagonal(offset, dim1, dim2)
    return (xp.getitem(g, c.params["key"]),)


_DIAG_EMBED = Structural(
    "diag_embed", _embed_forward, _embed_vjp, backward="DiagEmbedBackward0", jvp="linear"
)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dimensions ``dim1``, ``dim2`` of the result) whose ``offset``-th
    diagonal is the last dimension of ``input``."""
    if type(input) is not Tensor:
        require_tensor("diag_embed", "input", 1, input)
    if type(offset) is not int:
        require_int("diag_embed", "offset", offset)
    n = input.ndim + 1
    d1, d2 = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    size = input.shape[-1] + abs(offset)
    lead = list(input.shape[:-1])
    shape = [0] * n
    rest = [k for k in range(n) if k not in (d1, d2)]
    for k, m in zip(rest, lead):
        shape[k] = m
    shape[d1] = shape[d2] = size
    key = _diagonal_key(tuple(shape), offset, d1, d2)
    shown = tuple((k, v % 2**64) for k, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)))
    dims = (offset, d1, d2)
    return _DIAG_EMBED(input, shape=tuple(shape), key=key, dims=dims, saved_as=shown)


def _trace_forward(xp: Any, a: Any, key: tuple) -> Any:
    return xp.sum(xp.getitem(a, key), None, False)


def _trace_vjp(xp: Any, g: Any, c: Any) -> tuple:
    key = c.params["key"]
    if xp is INTERPRETERS.tensor and type(g) is not BatchedTensor:
        # PyTorch's trace_backward: g filled into zeros at every (columns + 1)-th place
        rows, cols = c.shapes[0]
        flat = Tensor._make(np.zeros(rows * cols, g._data.dtype))
        places = Tensor._make(np.arange(0, rows * cols, cols + 1, dtype=np.int64))
        return (flat.index_fill_(0, places, g).view(rows, cols),)
    return (xp.index_put_zeros(c.shapes[0], key, xp.expand(g, key[0].shape), True),)


_TRACE = Structural("trace", _trace_forward, _trace_vjp, backward="TraceBackward0", jvp="linear")


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a matrix.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.trace(symgrad.arange(9.0).reshape(3, 3))
    tensor(12.)
    """
    if type(input) is not Tensor:
        require_tensor("trace", "input", 1, input)
    if input.dtype.scalar_type == "Bool":
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    out = _TRACE(input, key=_diagonal_key(tuple(input.shape), 0, 0, 1))
    return out if input.dtype.is_floating_point else out.long()
