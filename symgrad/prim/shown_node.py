"""One node of PyTorch's name over results recorded step by step.

Where PyTorch records a fused kernel as one node (an LSTM layer run by oneDNN, the backward of
a layer norm differentiated under ``create_graph``) and symgrad records the same arithmetic as
several nodes, the results pass through one identity node of PyTorch's name, whose
``next_functions`` are the edges PyTorch's node has (to the arguments of its kernel). The engine
walks the recorded steps behind it, so values and gradients are those of the steps.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

from symgrad.autograd.node import accumulator_of
from symgrad.prim.factorization import Factorization
from symgrad.tensor import Tensor

__all__ = ["shown_node", "edge_to"]

# {identity node: the edges it shows}
_SHOWN: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_PRIMS: dict[tuple, Factorization] = {}


def edge_to(t: Any) -> tuple:
    """The edge PyTorch's node has to ``t``: ``(None, 0)`` for a tensor needing no gradient
    (or no tensor), else to its node or its leaf's accumulator.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.prim.shown_node import edge_to
    >>> edge_to(symgrad.zeros(1))
    (None, 0)
    >>> edge_to(symgrad.zeros(1, requires_grad=True) * 2)[0].name()
    'MulBackward0'
    """
    if not isinstance(t, Tensor) or not t._requires_grad:
        return (None, 0)
    return (t.grad_fn, t._output_nr) if t.grad_fn is not None else (accumulator_of(t), 0)


def _primitive(op: str, backward: str, count: int, jvp: Callable | None) -> Factorization:
    key = (op, backward, count)
    prim = _PRIMS.get(key)
    if prim is None:
        prim = _PRIMS[key] = Factorization(
            op,
            lambda *arrays: tuple(a.copy() for a in arrays),  # their own memory, as a kernel's
            lambda xp, grads, c: tuple(grads),
            backward=backward,
            n_outputs=count,
            forward=lambda xp, *inputs: inputs,
            reads_inputs=False,
            saves_outputs=(),
            jvp=jvp,
        )
        prim.edges = lambda node: _SHOWN.get(node)
    return prim


def shown_node(
    op: str, backward: str, tensors: tuple, shown: tuple, jvp: Callable | None = None
) -> tuple:
    """``tensors`` passed through one identity node called ``backward`` (of the op ``op``),
    whose ``next_functions`` are the edges to the tensors ``shown`` (None for an argument
    PyTorch's kernel takes and symgrad has no tensor for); ``jvp``: its forward-mode rule
    (None: the identity's, read from its backward rule).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.prim.shown_node import shown_node
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> (y,) = shown_node("fused", "FusedBackward0", (x * 2,), (x, None))
    >>> y.grad_fn.name(), [type(n).__name__ for n, _ in y.grad_fn.next_functions]
    ('FusedBackward0', ['AccumulateGrad', 'NoneType'])
    >>> y.sum().backward()
    >>> x.grad
    tensor([2., 2.])
    """
    results = _primitive(op, backward, len(tensors), jvp)(*tensors)
    node = results[0].grad_fn if results else None
    if node is not None and shown:
        _SHOWN[node] = tuple(edge_to(t) for t in shown)
    return results
