"""The gradients of an op whose PyTorch backward is one fused kernel, as PyTorch records them
under ``create_graph``: one node of that kernel's name (``GluBackwardBackward0``,
``GridSampler2DBackwardBackward0``) whose outputs are the inputs' gradients and whose edges
are to the kernel's arguments; the steps recorded behind it give the higher derivatives."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.prim import batching
from symgrad.prim.shown_node import shown_node
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["fused_backward"]


def fused_backward(rule: Any, backward: str, shown: Any) -> Any:
    """The VJP ``rule``, whose gradients under ``create_graph`` pass through one node called
    ``backward`` with edges to the tensors ``shown(g, ctx)``.

    Examples
    --------
    >>> import symgrad
    >>> import symgrad.nn.functional as F
    >>> x = symgrad.tensor([1.0, -2.0, 0.5, 3.0], requires_grad=True)
    >>> (g,) = symgrad.autograd.grad(F.glu(x).pow(2).sum(), x, create_graph=True)
    >>> g.grad_fn.name()
    'GluBackwardBackward0'
    """

    def vjp(xp: Any, g: Any, c: Any) -> tuple:
        grads = rule(xp, g, c)
        if xp is not INTERPRETERS.tensor or any(
            isinstance(t, batching.BatchedTensor) for t in (g, *c.inputs)
        ):
            return grads
        if not any(isinstance(t, Tensor) and t._requires_grad for t in grads):
            return grads
        placeholder = Tensor._make(np.zeros((), g._data.dtype))
        tensors = tuple(placeholder if t is None else t for t in grads)
        results = shown_node(f"{backward}_op", backward, tensors, shown(g, c))
        return tuple(None if t is None else r for r, t in zip(results, grads))

    # symgrad.compile inlines the rule itself
    vjp.__wrapped__ = getattr(rule, "__wrapped__", rule)  # type: ignore[attr-defined]
    return vjp
