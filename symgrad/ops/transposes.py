"""``t``: the transpose of a matrix (a vector or a number is its own), PyTorch's ``TBackward0``.

``linear`` transposes its weight with it on every call (``addmm(bias, input, weight.t())``, as
PyTorch records it), so on the numeric path the gradient a ``t`` node hands back is, where it
can be, the very array its consumer computed rather than a transposed view of it: the engine
then keeps it as the weight's ``.grad`` without copying it (see :func:`_whole_array`).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from symgrad._arguments import require_tensor
from symgrad._tracing import TRACE
from symgrad.autograd import anomaly, dual, grad_mode
from symgrad.autograd.node import accumulator_of, node_class
from symgrad.prim.structural import Structural, reshaped_back
from symgrad.prim.text import COPIES
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor, link_view

__all__ = ["t"]

_refcount = getattr(sys, "getrefcount", None)


def _whole_array(a: np.ndarray, limit: int) -> np.ndarray:
    """The array ``a`` views when ``a`` is all of it in its own layout and at most ``limit``
    references reach it (the views at hand only: nobody else can see its memory), else ``a``.

    A view reaching a leaf is copied before it becomes ``.grad`` (its memory may be someone
    else's); the array it views, when nothing else refers to it, is kept as it is. PyTorch's
    ``AccumulateGrad`` steals a gradient on the same condition (its use count)."""
    base = a.base
    if (
        type(base) is np.ndarray
        and base.base is None
        and a.shape == base.shape
        and a.strides == base.strides
        and _refcount is not None
        and _refcount(base) <= limit
    ):
        return base
    return a


def _sole_references() -> int:
    """How many references :func:`_whole_array` sees to an array that only the incoming
    gradient (a transposed view of it) and that view's transpose refer to, as this interpreter
    counts them: found by trying, on the same code path."""
    incoming = np.zeros((2, 3)).T
    for limit in range(1, 16):
        if _whole_array(incoming.T, limit) is incoming.base:
            return limit
    return 0  # pragma: no cover - an interpreter without reference counts: always copy


_SOLE = _sole_references()


def _t_vjp(xp: Any, g: Any, c: Any) -> tuple:
    if xp is INTERPRETERS.tensor:  # (create_graph: PyTorch's gradient of t() is a t())
        return (t(g),)
    gt = xp.transpose(g, 0, 1)
    return (_whole_array(gt, _SOLE) if type(gt) is np.ndarray and gt.dtype.kind != "O" else gt,)


class _Transposition(Structural):
    """``t`` of a matrix. Its numeric backward, the gradient's transpose, is run here without
    the generic rule's context: a linear layer records one such node per call."""

    def apply(self, node: Any, grads: list, create_graph: bool) -> tuple:
        g = grads[0]
        if create_graph or type(g) is not np.ndarray or node._edges[0][0] is None:
            return Structural.apply(self, node, grads, create_graph)
        return (_whole_array(g.T, _SOLE),)


_T = _Transposition(
    "t",
    lambda xp, a, dim0, dim1: xp.transpose(a, dim0, dim1),
    _t_vjp,
    backward="TBackward0",
    jvp="linear",
    text=COPIES,
    batch="reduction",
)
# PyTorch's t() of a vector or a number: the same values, still a view with a TBackward0 node
_T_SMALL = Structural(
    "t",
    lambda xp, a, shape: xp.reshape(a, shape),
    lambda xp, g, c: (xp.reshape(g, c.shapes[0]),),
    backward="TBackward0",
    jvp="linear",
    text=COPIES,
    batch="reduction",
    numeric_vjp=reshaped_back,
)


def t(input: Tensor) -> Tensor:
    """Transpose a tensor of at most 2 dimensions (a vector or a number is its own
    transpose, still a view with a ``TBackward0`` node, as in PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    >>> w.t()
    tensor([[1., 3.],
            [2., 4.]], grad_fn=<TBackward0>)
    >>> symgrad.ones(2, requires_grad=True).t().grad_fn.name()
    'TBackward0'
    """
    if type(input) is not Tensor:
        require_tensor("t", "input", 1, input)
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    if input.ndim < 2:
        return _T_SMALL(input, shape=input.shape)
    return _T(input, dim0=0, dim1=1)


def t_of_weight(weight: Tensor) -> Tensor:
    """``weight.t()`` of a matrix, for ``linear``'s hot path: the node :func:`t` records, made
    here directly (what ``recorded`` does, for one input that needs a gradient) where nothing
    else asks to watch it (anomaly mode, forward mode, a ``symgrad.compile`` trace)."""
    out = weight._data.T
    if not (
        _grad_state.enabled
        and weight._requires_grad
        and not _anomaly_state.enabled
        and _dual_state.level is None
        and TRACE.log is None
    ):
        return _T.record((weight,), {"dim0": 0, "dim1": 1}, out)
    fn = weight.grad_fn
    if fn is None and weight._view_base is not None and weight._view_base[1] == "no_grad":
        edge, held = (None, 0), None  # a view made under no_grad: gradients go nowhere
    elif fn is None:
        edge, held = (accumulator_of(weight), 0), [weight]
    else:
        edge, held = (fn, weight._output_nr), None
    meta = [(weight._data.shape, weight._data.dtype)]
    node = _T_NODE(_T, {"dim0": 0, "dim1": 1}, (edge,), (None,), None, [None], meta, [None], held)
    result = Tensor._make(out, node, True)
    link_view(weight, result, "view")
    return result


_T_NODE = node_class("TBackward0")
_grad_state = grad_mode._state
_anomaly_state = anomaly._state
_dual_state = dual.STATE
