"""In-place shape methods: ``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``,
``swapdims_``/``swapaxes_``, and ``_is_view``.

As in PyTorch, they change the tensor's shape (and strides) in place, keep its memory (so its
views and base still see its values), bump its version counter, and, when the change is
recorded, give it the in-place variant's node (``UnsqueezeBackward1``, ``SqueezeBackward3``
to ``5``, ``TBackward1``, ``TransposeBackward1``) over its previous history.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import OMITTED, no_overload
from symgrad._data import _wrap_dim
from symgrad.autograd import anomaly, dual
from symgrad.ops import dual_tangents
from symgrad.ops.diagonal_fill import fill_diagonal_
from symgrad.ops.inplace import check_leaf, check_view_change, snapshot
from symgrad.ops.shape import transpose
from symgrad.ops.shown import shown
from symgrad.ops.views import remake_view_histories
from symgrad.prim.primitive import recorded
from symgrad.prim.structural import Structural, reshaped_back
from symgrad.prim.text import COPIES
from symgrad.tensor import NAMES, Tensor, live_aliases

__all__ = ["swapdims"]

_anomaly_state = anomaly._state
_dual_state = dual.STATE

swapdims = transpose


def _declare(
    name: str, forward: Any, vjp: Any, backward: str, numeric_vjp: Any = None
) -> Structural:
    return Structural(
        name, forward, vjp, backward=backward, jvp="linear", text=COPIES, numeric_vjp=numeric_vjp
    )


def _transpose_forward(xp: Any, a: Any, dim0: int, dim1: int, saved_as: tuple = ()) -> Any:
    return xp.transpose(a, dim0, dim1)


def _transpose_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (xp.transpose(g, c.params["dim0"], c.params["dim1"]),)


def _squeeze(backward: str) -> Structural:
    return _declare(
        "squeeze",
        lambda xp, a, dim, saved_as=(): xp.squeeze(a, dim),
        lambda xp, g, c: (xp.reshape(g, c.shapes[0]),),
        backward,
        reshaped_back,
    )


_UNSQUEEZE_ = _declare(
    "unsqueeze",
    lambda xp, a, dim, saved_as=(): xp.unsqueeze(a, dim),
    lambda xp, g, c: (xp.squeeze(g, c.params["dim"]),),
    "UnsqueezeBackward1",
)
_SQUEEZE_ALL_, _SQUEEZE_DIM_, _SQUEEZE_DIMS_ = (_squeeze(f"SqueezeBackward{k}") for k in (3, 4, 5))
_T_ = _declare("t", _transpose_forward, _transpose_vjp, "TBackward1")
_T_SMALL_ = _declare("t", lambda xp, a: a, lambda xp, g, c: (g,), "TBackward1")
_TRANSPOSE_ = _declare("transpose", _transpose_forward, _transpose_vjp, "TransposeBackward1")


def _in_place(x: Tensor, op: str, prim: Structural, **params: Any) -> Tensor:
    """Give ``x`` the shape ``prim`` makes, in place, over the same memory."""
    check_leaf(x, op)
    check_view_change(x, op)
    before = snapshot(x)
    before._origin = x._origin  # data made from named tensors keeps its provenance
    result = prim(before, **params)
    x._data = result._data  # a NumPy view: the same memory, new shape and strides
    if result.grad_fn is not None:
        x.grad_fn, x._output_nr = result.grad_fn, result._output_nr
    elif x._name is None:
        x._origin = result._origin
    x._counter.value += 1
    if result.grad_fn is not None and x._view_base is None and x._views:
        # its views read it through its new history (a piece of split/unbind can't), as
        # after any recorded in-place change of a tensor
        remake_view_histories(x, live_aliases(x)[2])
    dual_tangents.take_tangent(x, result)
    return x


def squeeze_own_(x: Tensor) -> Tensor:
    """``x.squeeze_(0)`` for a tensor its maker alone holds (matmul's product of a vector and a
    matrix): the same node, version and memory as ``squeeze_``, without the checks a tensor
    that others may see needs (leaf, views, saved values)."""
    if (
        type(x._data) is not np.ndarray
        or NAMES.used
        or _anomaly_state.enabled
        or (_dual_state.level is not None and dual.active())
    ):
        return squeeze_(x, 0)
    out = x._data.reshape(x._data.shape[1:])
    if x.grad_fn is None:
        x._data = out
        x._counter.value += 1
        return x
    result = recorded(_SQUEEZE_DIM_, (x,), _SQUEEZE_FIRST, out)
    result._counter.value += 1
    return result


_SQUEEZE_FIRST = {"dim": (0,), "saved_as": shown(dim=0)}  # (nodes only read their params)


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """Insert a dimension of size 1 at ``dim``, in place."""
    dims = {"dim": _wrap_dim(dim, self.ndim + 1), "saved_as": shown(dim=dim)}
    return _in_place(self, "unsqueeze_", _UNSQUEEZE_, **dims)


def squeeze_(self: Tensor, dim: Any = OMITTED) -> Tensor:
    """Remove dimensions of size 1 (all of them, or those named in ``dim``), in place."""
    n = self.ndim
    if dim is None:
        raise no_overload("squeeze_", dim, none_given=True)
    if dim is OMITTED:
        dims = tuple(i for i, s in enumerate(self.shape) if s == 1)
        prim = _SQUEEZE_ALL_
    else:
        named = dim if isinstance(dim, (tuple, list)) else (dim,)
        dims = tuple(i for i in (_wrap_dim(d, n) for d in named) if n and self.shape[i] == 1)
        prim = _SQUEEZE_DIMS_ if isinstance(dim, (tuple, list)) else _SQUEEZE_DIM_
        return _in_place(self, "squeeze_", prim, dim=dims, saved_as=shown(dim=dim))
    return _in_place(self, "squeeze_", prim, dim=dims)


def t_(self: Tensor) -> Tensor:
    """Transpose a tensor of at most 2 dimensions, in place.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([[1, 2, 3]])
    >>> x.t_().shape
    symgrad.Size([3, 1])
    """
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    if self.ndim < 2:  # nothing moves, but PyTorch still records and counts the call
        return _in_place(self, "t_", _T_SMALL_)
    return _in_place(self, "t_", _T_, dim0=0, dim1=1)


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap dimensions ``dim0`` and ``dim1``, in place (also ``swapdims_``, ``swapaxes_``).

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.zeros(2, 1, 3)
    >>> x.transpose_(0, 2).shape
    symgrad.Size([3, 1, 2])
    """
    n = self.ndim
    dims = {"dim0": _wrap_dim(dim0, n), "dim1": _wrap_dim(dim1, n)}
    return _in_place(self, "transpose_", _TRANSPOSE_, **dims, saved_as=shown(dim0=dim0, dim1=dim1))


def _is_view(self: Tensor) -> bool:
    """True if this tensor is a view of another (PyTorch's ``_is_view``; a ``detach()``ed
    tensor shares memory without being a view)."""
    vb = self._view_base
    return vb is not None and vb[1] != "alias"


METHODS = {
    "unsqueeze_": unsqueeze_,
    "squeeze_": squeeze_,
    "t_": t_,
    "transpose_": transpose_,
    "swapdims_": transpose_,
    "swapaxes_": transpose_,
    "swapdims": transpose,
    "_is_view": _is_view,
    "fill_diagonal_": fill_diagonal_,  # an in-place method without a function form
}
