"""The tensor interpreter of the rule vocabulary (:mod:`symgrad.prim.vocab`): each word is the
differentiable op of the same meaning, so a VJP rule run on it records a graph
(``backward(create_graph=True)``). The words that are not public ops are defined here."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops import derivatives, derivatives_more
from symgrad.prim.vocab import VOCABULARY
from symgrad.tensor import Tensor

__all__ = [
    "tensor_interpreter",
    "xp_extremum",
    "xp_constant",
    "xp_sum",
    "xp_count",
    "xp_prod_others",
    "xp_elementwise_vjp",
    "xp_elementwise",
    "xp_masked_fill",
    "xp_mul_scalar",
    "xp_div_scalar",
    "xp_sgn",
    "xp_mean",
]

derivatives.FORMULAS.update(derivatives_more.FORMULAS)


def xp_constant(a: np.ndarray) -> Tensor:
    return Tensor._make(np.asanyarray(a))


def xp_sum(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The rules' ``sum``, where None is every axis: recorded as a sum without a dim
    (``SumBackward0``), as PyTorch's own backward formulas record it."""
    from symgrad.ops import reductions

    if dim is None:
        return reductions.total(a, keepdim=keepdim)
    return reductions.sum(a, dim, keepdim)


def xp_masked_fill(a: Tensor, mask: Tensor, value: Any, node: Any = None) -> Tensor:
    """PyTorch's ``masked_fill``: ``MaskedFillBackward0`` for a number, ``...Backward1`` for a
    0-d tensor ``value``; zeros recorded as the node ``node`` where one is named."""
    from symgrad.ops.mask_fill import masked_fill, zeroed

    if node is not None and isinstance(value, (int, float)) and value == 0:
        return zeroed(a, np.broadcast_to(mask._data, tuple(a.shape)), node)
    return masked_fill(a, mask, value)


def xp_mul_scalar(a: Tensor, c: float) -> Tensor:
    """``a * c`` as PyTorch's C++ formulas write it: mul.Scalar (``MulBackward1``)."""
    return derivatives._scaled(a, c)


def xp_div_scalar(a: Tensor, c: float) -> Tensor:
    """``a / c`` as PyTorch's C++ formulas write it: div.Scalar (``DivBackward1``)."""
    return derivatives._divided(a, c)


def xp_sgn(a: Tensor) -> Tensor:
    """The sign as PyTorch's C++ formulas take it: ``sgn`` (``SgnBackward0``)."""
    return derivatives._SGN(a)


def xp_mean(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The rules' ``mean``, where None is every axis (``MeanBackward0``, as ``sum``)."""
    from symgrad.ops import reductions

    if dim is None:
        return reductions.mean(a, keepdim=keepdim)
    return reductions.mean(a, dim, keepdim)


def xp_count(mask: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The number of True elements, an int64 tensor as PyTorch's ``mask.sum()`` (a float
    gradient divided by it keeps its dtype)."""
    return Tensor._make(np.asanyarray(np.sum(mask._data, axis=dim, keepdims=keepdim), np.int64))


def xp_prod_others(a: Tensor, dim: Any) -> Tensor:
    """For each element, the product of the others in its group, exact with zeros too:
    each group of n is laid out n times with the element itself replaced by 1 (O(n^2),
    only on the create_graph path)."""
    from symgrad import ops

    axes = tuple(range(a.ndim)) if dim is None else tuple(dim)
    rest = tuple(i for i in range(a.ndim) if i not in axes)
    order = rest + axes
    moved = ops.permute(a, order)
    lead = moved.shape[: len(rest)]
    n = int(np.prod(moved.shape[len(rest) :]))
    flat = ops.reshape(moved, lead + (n,))
    rows = ops.expand(ops.unsqueeze(flat, -2), lead + (n, n))
    others = ops.prod(ops.where(xp_constant(np.eye(n, dtype=bool)), 1.0, rows), -1)
    return ops.permute(ops.reshape(others, moved.shape), tuple(np.argsort(order)))


def xp_elementwise_vjp(
    prim: Any, i: int, args: tuple, out: Any, g: Tensor, params: tuple = ()
) -> Tensor:
    """``g * partial_i`` as a recorded op; inputs the partial does not use (or that were not
    saved) enter as 0, so they get no edge and no gradient. A partial that is 0 (floor, sign)
    gives zeros that record nothing, PyTorch's ``zeros_like(grad)``."""
    if prim.partials[i] == 0:
        return Tensor._make(np.zeros(tuple(g.shape), dtype=g.dtype.numpy))  # g may be batched
    rule = derivatives.formula(prim, i)
    if rule is not None:
        return derivatives.apply_formula(rule, prim, args, out, g, params)
    uses = prim.vjp_uses(i)
    args = [a if (a is not None and used) else 0 for a, used in zip(args, uses)]
    if prim.masked:  # the inputs only choose where g goes: no edge to them (PyTorch's where)
        args = [a.detach() if isinstance(a, Tensor) else a for a in args]
        out = out.detach() if isinstance(out, Tensor) else out
    return prim.vjp_primitive(i)(*args, 0 if out is None else out, g, params=params)


def xp_elementwise(prim: Any, args: tuple, params: tuple = ()) -> Tensor:
    return prim(*args, params=params)


def xp_extremum(a: Tensor, dim: Any, keepdim: bool, pick: Any) -> Tensor:
    from symgrad.ops import reductions

    reduce = reductions.amax if pick is np.argmax else reductions.amin
    return reduce(a, () if dim is None else dim, keepdim)


def tensor_interpreter(ops: Any) -> type:
    """The namespace giving each vocabulary word its op from ``ops`` (the ``xp_`` version where
    the public op of that name means something else)."""
    words = {}
    for word in VOCABULARY:
        fn = getattr(ops, "xp_" + word, None) or globals().get("xp_" + word) or getattr(ops, word)
        words[word] = staticmethod(fn)
    return type("TX", (), {"__doc__": "Rule vocabulary on symgrad Tensors.", **words})
