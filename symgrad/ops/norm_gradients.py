"""The gradients of a layer or batch norm under ``create_graph`` as PyTorch records them: one
node (``NativeLayerNormBackwardBackward0``, ``NativeBatchNormBackwardBackward0``) whose outputs
are the gradients of the input, the weight and the bias, and whose edges are to the arguments
of PyTorch's backward kernel; the steps recorded behind it give the second derivatives."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.prim import batching
from symgrad.prim.shown_node import shown_node
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["tied_gradients", "layer_edges", "batch_edges"]


def tied_gradients(rule: Any, backward: str, shown: Any) -> Any:
    """The VJP ``rule`` of a norm whose backward PyTorch differentiates as one node under
    ``create_graph``: the gradients of the input, the weight and the bias (outputs 0, 1 and 2)
    pass through one ``backward`` node whose edges are to the tensors ``shown(g, ctx)`` (its
    kernel's arguments). The recorded steps behind it give the second derivatives.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[1.0, -2.0, 0.5]], requires_grad=True)
    >>> y = F.layer_norm(x, (3,)) * symgrad.tensor([1.0, 2.0, 3.0])
    >>> (g,) = symgrad.autograd.grad(y.sum(), x, create_graph=True)
    >>> g.grad_fn.name()
    'NativeLayerNormBackwardBackward0'
    """

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        grads = rule(xp, g, c)
        x = c.inputs[0]
        if xp is not INTERPRETERS.tensor or any(
            isinstance(t, batching.BatchedTensor) for t in (g, x)
        ):
            return grads
        p = c.params
        slots = [grads[0], grads[1] if p["has_w"] else None, grads[-1] if p["has_b"] else None]
        if not any(isinstance(t, Tensor) and t._requires_grad for t in slots):
            return grads
        placeholder = Tensor._make(np.zeros((), x._data.dtype))
        tensors = tuple(placeholder if t is None else t for t in slots)
        results = shown_node("native_norm_backward", backward, tensors, shown(g, c))
        out = [None if t is None else r for r, t in zip(results, slots)]
        return (out[0],) + ((out[1],) if p["has_w"] else ()) + ((out[2],) if p["has_b"] else ())

    # symgrad.compile inlines the rule itself (its float16 path where the rule has one)
    vjp.__wrapped__ = getattr(rule, "__wrapped__", rule)  # type: ignore[attr-defined]
    vjp.half_only = getattr(rule, "half_only", False)  # type: ignore[attr-defined]
    return vjp


def layer_edges(g: Any, c: Any) -> tuple:
    """PyTorch's edges of NativeLayerNormBackwardBackward0: grad_out, input, mean, rstd,
    weight, bias.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[1.0, 2.0, 4.0]], requires_grad=True)
    >>> w = symgrad.ones(3, requires_grad=True)
    >>> y = F.layer_norm(x, (3,), w).pow(2).sum()
    >>> (g,) = symgrad.autograd.grad(y, x, create_graph=True)
    >>> [type(n).__name__ for n, _ in g.grad_fn.next_functions]
    ['MulBackward0', 'AccumulateGrad', 'NoneType', 'NoneType', 'AccumulateGrad', 'NoneType']
    """
    p = c.params
    weight = c.inputs[1] if p["has_w"] else None
    bias = c.inputs[-1] if p["has_b"] else None
    return (g, c.inputs[0], None, None, weight, bias)


def batch_edges(g: Any, c: Any) -> tuple:
    """PyTorch's edges of NativeBatchNormBackwardBackward0: grad_out, input, weight,
    running_mean, running_var.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([[1.0], [3.0]], requires_grad=True)
    >>> y = F.batch_norm(x, None, None, training=True) * symgrad.tensor([[1.0], [2.0]])
    >>> (g,) = symgrad.autograd.grad(y.sum(), x, create_graph=True)
    >>> [type(n).__name__ for n, _ in g.grad_fn.next_functions]
    ['NoneType', 'AccumulateGrad', 'NoneType', 'NoneType', 'NoneType']
    """
    return (g, c.inputs[0], c.inputs[1] if c.params["has_w"] else None, None, None)
