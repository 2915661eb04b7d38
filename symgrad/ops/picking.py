"""Values picked along a dimension at indices found from the input's numbers (a maximum's,
a sort's, a median's): the primitives' shared forward and reverse rules, and the values and
indices of a pick."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._meta import is_meta, meta_result, stand_in
from symgrad._tracing import TRACE, data_params, data_value
from symgrad.ops.shown import shown
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["picked", "picked_itself"]


def _pick_forward(
    xp: Any, a: Any, dim: int, index: np.ndarray, keepdim: bool, saved_as: tuple = ()
) -> Any:
    values = xp.gather(a, dim, index)
    return values if keepdim else xp.squeeze(values, dim)


def _pick_vjp(xp: Any, g: Any, c: Any) -> tuple:
    dim = c.params["dim"]
    g = g if c.params["keepdim"] else xp.unsqueeze(g, dim)
    if not len(c.shapes[0]):  # a 0-d input's element, as from a row of one (vmap's scatter)
        row = xp.scatter_zeros((1,), 0, c.params["index"].reshape(1), xp.reshape(g, (1,)), True)
        return (xp.reshape(row, ()),)
    return (xp.scatter_zeros(c.shapes[0], dim, c.params["index"], g, unique=True),)


def picked(
    prim: Structural, x: Tensor, dim: int, keepdim: bool, find: Any, given: Any = None
) -> tuple:
    """``prim``'s values of ``x`` picked along ``dim`` at the index ``find(x's values)`` gives
    (int64, ``dim`` kept as size 1), and the indices tensor (``dim`` dropped unless
    ``keepdim``); ``given``: ``dim`` as the user gave it, as the node shows it. While
    ``symgrad.compile`` traces, both are said to come from ``x``'s values, so that a compiled
    program finds the index afresh at every call."""
    index = prim.laid_out(find(stand_in(x._data)), x._data)  # as the values are
    indices = index if keepdim else np.squeeze(index, dim)
    indices = Tensor._make(meta_result(indices) if is_meta(x._data) else indices)
    shows = {} if given is None else {"saved_as": shown(dim=given)}
    if TRACE.log is None:
        return prim(x, dim=dim, index=index, keepdim=keepdim, **shows), indices

    def found(a: np.ndarray) -> np.ndarray:
        i = find(a)
        return i if keepdim else np.squeeze(i, dim)

    def params(i: np.ndarray) -> dict:
        return {"dim": dim, "index": i if keepdim else np.expand_dims(i, dim), "keepdim": keepdim}

    data_value(indices, found, x)
    values = prim(x, dim=dim, index=index, keepdim=keepdim, **shows)
    data_params(values, params, indices)
    return values, indices


def picked_itself(prim: Structural, input: Tensor) -> tuple:
    """:func:`picked` of a 0-d ``input`` along its one implied dimension: the element itself
    and index 0, one node on ``input`` as PyTorch's (no reshape around it).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.ops.reductions import _MAX_DIM
    >>> value, index = picked_itself(_MAX_DIM, symgrad.tensor(2.0, requires_grad=True))
    >>> value.grad_fn.name(), index.item()
    ('MaxBackward0', 0)
    """
    index = np.zeros((), np.int64)
    return prim(input, dim=0, index=index, keepdim=True), Tensor._make(index)
