"""``slice_scatter``, ``select_scatter``, ``diagonal_scatter`` and ``as_strided_scatter``: a
copy of the input with ``src`` written where a view of it would lie.

Each is one node (``SliceScatterBackward0``, ...) that writes ``src`` at the flat positions of
the input its view holds, found by the view op itself applied to ``arange``, so the arguments
are checked as the view checks them. The input's gradient is ``g`` with zeros where ``src``
went; ``src``'s gradient is ``g`` read at those places.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad.ops.strided_views import _check_arguments, _strided
from symgrad.ops.view_copies import slice_key, view_positions
from symgrad.ops.views import _copy_slices_forward, _copy_slices_vjp
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.structural import Structural
from symgrad.prim.text import COPIES
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor, bind_methods

__all__ = ["slice_scatter", "select_scatter", "diagonal_scatter", "as_strided_scatter"]


def _write_forward(xp: Any, r: Any, v: Any, index: np.ndarray, node: str, view: Any) -> Any:
    shape = tuple(r.shape)
    mask = np.zeros(shape, dtype=np.bool_)
    mask.reshape(-1)[index.ravel()] = True
    size = int(np.prod(shape, dtype=np.int64))
    placed = xp.reshape(xp.index_put_zeros((size,), index, v, True), shape)
    return xp.where(xp.constant(mask), placed, r)


def _write_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """PyTorch's formulas under create_graph: the input's gradient is the op writing zeros
    into ``g`` (``g.select_scatter(zeros_like(src), dim, index)``), ``src``'s the view of
    ``g`` (``g.select(dim, index)``: ``SelectBackward0``)."""
    p = c.params
    if xp is not INTERPRETERS.tensor or type(g) is BatchedTensor or p["view"] is None:
        return _copy_slices_vjp(xp, g, c)
    gr = gv = None
    if c.needs[0]:
        mask = np.zeros(c.shapes[0], dtype=np.bool_)
        mask.reshape(-1)[p["index"].ravel()] = True
        gr = xp.masked_fill(g, xp.constant(mask), 0.0, node=p["node"])
    if c.needs[1]:
        gv = p["view"](g)
    return gr, gv


_write_vjp.__wrapped__ = _copy_slices_vjp  # type: ignore[attr-defined]  # (what compile calls)

_WRITE = Structural(
    "view_scatter",
    _write_forward,
    _write_vjp,
    kernel=lambda xp, r, v, index, node, view: _copy_slices_forward(xp, r, v, index),
    backward=lambda params, shapes: params["node"],
    jvp="linear",
    text=COPIES,
)


def _written(
    op: str, input: Any, src: Any, index: np.ndarray, node: str, view: Any = None
) -> Tensor:
    if tuple(src.shape) != index.shape:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.shape)}, slice size = {list(index.shape)}"
        )
    if src.dtype is not input.dtype:
        src = src.to(input.dtype)
    return _WRITE(input, src, index=index, node=node, view=view)


def _scatter(op: str, input: Any, src: Any, view: Callable, node: str) -> Tensor:
    _check_tensors(op, input, src)
    return _written(op, input, src, view_positions(input, view), node, view)


def _check_tensors(op: str, input: Any, src: Any) -> None:
    if type(input) is not Tensor:
        require_tensor(op, "input", 1, input)
    if type(src) is not Tensor:
        require_tensor(op, "src", 2, src)


def slice_scatter(
    input: Tensor, src: Tensor, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
) -> Tensor:
    """A copy of ``input`` with ``src`` in the slice ``start:end:step`` of dimension ``dim``
    (``SliceScatterBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.slice_scatter(symgrad.zeros(4), symgrad.ones(2), 0, 1, 3)
    tensor([0., 1., 1., 0.])
    """
    _check_tensors("slice_scatter", input, src)
    key = slice_key(input, dim, start, end, step)
    return _scatter("slice_scatter", input, src, lambda p: p[key], "SliceScatterBackward0")


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` in the slice ``index`` of dimension ``dim``
    (``SelectScatterBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.select_scatter(symgrad.zeros(2, 2), symgrad.ones(2), 1, 0)
    tensor([[1., 0.],
            [1., 0.]])
    """
    return _scatter(
        "select_scatter", input, src, lambda p: p.select(dim, index), "SelectScatterBackward0"
    )


def diagonal_scatter(
    input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> Tensor:
    """A copy of ``input`` with ``src`` on its ``offset``-th diagonal over ``dim1`` and ``dim2``
    (``DiagonalScatterBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.diagonal_scatter(symgrad.zeros(2, 3), symgrad.ones(2), 1)
    tensor([[0., 1., 0.],
            [0., 0., 1.]])
    """
    return _scatter(
        "diagonal_scatter",
        input,
        src,
        lambda p: p.diagonal(offset, dim1, dim2),
        "DiagonalScatterBackward0",
    )


def as_strided_scatter(
    input: Tensor, src: Tensor, size: Any, stride: Any, storage_offset: int | None = None
) -> Tensor:
    """A copy of ``input`` with ``src`` in the places ``input.as_strided(size, stride,
    storage_offset)`` would read (``AsStridedScatterBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.as_strided_scatter(symgrad.zeros(2, 2), symgrad.ones(2), (2,), (3,))
    tensor([[1., 0.],
            [0., 1.]])
    """
    _check_tensors("as_strided_scatter", input, src)
    _check_arguments("as_strided_scatter", input, size, stride)
    _, index = _strided(input, size, stride, storage_offset, index=True)
    index = np.asarray(index, dtype=np.int64)
    return _written("as_strided_scatter", input, src, index, "AsStridedScatterBackward0")


bind_methods(
    {
        "slice_scatter": slice_scatter,
        "select_scatter": select_scatter,
        "diagonal_scatter": diagonal_scatter,
        "as_strided_scatter": as_strided_scatter,
    }
)
