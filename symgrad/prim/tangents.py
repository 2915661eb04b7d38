"""How an op's output gets its tangent from its inputs' in forward mode: the primitive's
``jvp``, run on the tensor interpreter (see :mod:`symgrad.autograd.dual` for the level).

A tangent is computed by recorded ops, so it is itself differentiable in reverse mode where its
inputs require grad; and the ops run by ``backward(create_graph=True)`` get tangents like any
other, which gives forward-over-reverse products (Hessian-vector products).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.autograd import grad_mode
from symgrad.autograd.dual import disabled, set_tangent, tangent_of
from symgrad.prim.batching import BatchedTensor, _top_level, batch_size, is_batched
from symgrad.prim.primitive import Ctx
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["propagate", "fitted", "transposed_vjp", "no_forward_rule", "not_differentiable"]


def propagate(prim: Any, inputs: tuple, params: Any, result: Tensor, output: int = 0) -> Tensor:
    """Give ``result``, output ``output`` of ``prim`` on ``inputs``, its tangent: none when no
    input has one or the result is not floating, else the primitive's ``jvp``."""
    tangents = tuple(tangent_of(a) if isinstance(a, Tensor) else None for a in inputs)
    if all(t is None for t in tangents) or result._data.dtype.kind not in "fc":
        return result
    shapes = [a.shape if isinstance(a, Tensor) else None for a in inputs]
    ctx = Ctx(list(inputs), result, shapes, [t is not None for t in tangents], params, output)
    rule = getattr(prim, "jvp_rule", True)  # a structural primitive's declared rule
    with disabled():
        try:
            if rule is None:
                tangent = transposed_vjp(prim, tangents, ctx)
            elif rule == "linear" or rule == "bilinear":
                tangent = _applied(prim, rule, tangents, ctx)
            else:
                tangent = prim.jvp(INTERPRETERS.tensor, tangents, ctx)
        except NotImplementedError as exc:
            if str(exc).startswith(_UNSUPPORTED[:30]):
                raise
            raise NotImplementedError(_UNSUPPORTED.format(op=prim.name, why=exc)) from None
        tangent = fitted(tangent, result)
    set_tangent(result, tangent)
    node = result.grad_fn
    if node is not None and node._out is not None:  # its backward reads the output
        node._out_fw = result._fw
    return result


_UNSUPPORTED = (
    "Trying to use forward AD with {op} that does not support it because it has not been "
    "implemented yet ({why}). Compute the tangent without forward mode (autograd.functional.jvp "
    "with strict=True uses reverse mode only), or declare the op's forward rule."
)


def no_forward_rule(op: str) -> Any:
    """The forward rule of an op PyTorch declares none for (``op``: its ATen name, or a
    function of the call's ``ctx`` giving it): a tangent reaching it raises PyTorch's
    ``NotImplementedError``, as a tangent computed here anyway would be one PyTorch can't give.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.autograd.forward_ad as fwAD
    >>> with fwAD.dual_level():
    ...     x = fwAD.make_dual(symgrad.ones(2, 3), symgrad.ones(2, 3))
    ...     symgrad.cdist(x, symgrad.ones(1, 3))
    Traceback (most recent call last):
    ...
    NotImplementedError: Trying to use forward AD with _cdist_forward that does not support it ...
    """

    return _refusal(lambda ctx: _NOT_IN_PYTORCH.format(op=op(ctx) if callable(op) else op))


def not_differentiable(op: str) -> Any:
    """The forward rule of an op PyTorch declares no derivative for at all (``op``: its ATen
    name): PyTorch's ``NotImplementedError`` for a tangent reaching it."""
    return _refusal(
        lambda ctx: f"Trying to use forward AD with aten::{op} that does not support it."
    )


def _refusal(message: Any) -> Any:
    """A forward rule raising ``NotImplementedError(message(ctx))`` for any tangent."""

    def refuse(xp: Any, tangents: tuple, ctx: Ctx) -> Any:
        raise NotImplementedError(message(ctx))

    return refuse


_NOT_IN_PYTORCH = (
    "Trying to use forward AD with {op} that does not support it because it has not been "
    "implemented yet.\nPyTorch has no forward-mode rule for it: compute the derivative in "
    "reverse mode instead (torch.func.jacrev or vjp, torch.autograd.functional.jvp)."
)


def _applied(prim: Any, rule: str, tangents: tuple, ctx: Ctx) -> Tensor:
    """A linear op applied to the tangents (a missing one is zero), or a bilinear op's
    product rule: the op itself, called on tensors."""
    if rule == "linear":
        args = [
            Tensor._make(np.zeros(a.shape, a._data.dtype)) if t is None else t
            for a, t in zip(ctx.inputs, tangents)
        ]
        return prim(*args, **ctx.params)
    total = None
    for i, t in enumerate(tangents):
        if t is not None:
            args = list(ctx.inputs)
            args[i] = t
            term = prim(*args, **ctx.params)
            total = term if total is None else total + term
    return total


def fitted(tangent: Any, result: Tensor) -> Tensor | None:
    """A rule's tangent as a tensor of ``result``'s shape and dtype."""
    if tangent is None:
        return None
    if not isinstance(tangent, Tensor):
        tangent = Tensor._make(np.asanyarray(tangent, dtype=result._data.dtype))
    if tangent.shape != result.shape:
        tangent = tangent.expand(result.shape).clone()
    if tangent._data.dtype != result._data.dtype:
        tangent = tangent.to(result.dtype)
    return tangent


def transposed_vjp(prim: Any, tangents: tuple, ctx: Ctx) -> Tensor:
    """``J t`` for an op declared by its VJP only: the VJP is linear in its incoming gradient
    ``g`` with matrix ``J^T``, so the gradient of ``sum_i <vjp_i(g), t_i>`` by ``g`` is
    ``J t``, exactly (two passes of the VJP rule instead of one of a forward rule)."""
    from symgrad.autograd.engine import grad

    result = ctx.out
    keep = grad_mode.is_grad_enabled() and (
        any(t is not None and t._requires_grad for t in tangents)
        or any(isinstance(a, Tensor) and a._requires_grad for a in ctx.inputs)
    )
    # tangents batched by vmap (jacfwd's basis) over plain values: a batch of g, one per
    # tangent, each total differentiated by its own g (the batch elements stay apart)
    level = _top_level(tangents)
    if level is not None and (_top_level(ctx.inputs) is not None or type(result) is not Tensor):
        level = None  # values batched too: not this case (the op's batching rule runs it)
    if level is not None:
        size = batch_size(tangents, level)
        zeros = np.zeros((size, *result.shape), result._data.dtype)
        physical = Tensor._make(zeros, None, True)
        g = BatchedTensor(physical, level)
    else:
        g = Tensor._make(np.zeros(result.shape, result._data.dtype), None, True)
    with grad_mode.enable_grad():
        grads = prim.vjp(INTERPRETERS.tensor, g, ctx)
        total = None
        for gi, t, shape in zip(grads, tangents, ctx.shapes):
            if gi is None or t is None:
                continue
            if tuple(gi.shape) != tuple(shape):
                gi = gi.sum_to_size(shape)
            term = (gi * t).sum()
            total = term if total is None else total + term
    if total is None or not total._requires_grad:
        return Tensor._make(np.zeros(result.shape, result._data.dtype))
    with grad_mode.set_grad_enabled(keep):
        if level is not None and is_batched(total, level):
            total = total._physical  # one total per batch element: each its own gradient
            ones = Tensor._make(np.ones(total.shape, result._data.dtype))
            (jvp,) = grad(total, physical, ones, create_graph=keep, allow_unused=True)
            return BatchedTensor(jvp, level) if jvp is not None else g.detach()
        (jvp,) = grad(total, g, create_graph=keep, allow_unused=True)
    return jvp if jvp is not None else Tensor._make(np.zeros(result.shape, result._data.dtype))
