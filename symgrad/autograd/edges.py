"""PyTorch's edges of a node, where its primitive's inputs are not its arguments one for one
(:attr:`symgrad.prim.primitive.Primitive.edges`): what ``next_functions`` shows and what node
hooks see and return. The engine and every other consumer walk the node's own edges
(``Node._edges``, one per input of the primitive)."""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = ["NO_EDGE", "GradientEdge", "public_positions", "as_public", "from_public"]


class GradientEdge(NamedTuple):
    """An input of the graph named by its node and the output of that node (PyTorch's
    ``torch.autograd.graph.GradientEdge``): ``autograd.grad`` and ``backward(inputs=...)`` take
    one where they take a tensor, and compute the gradient that reaches that output of the
    node, even once the tensor itself is gone. Make one with
    :func:`symgrad.autograd.graph.get_gradient_edge`.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.graph import get_gradient_edge
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * 2
    >>> edge = get_gradient_edge(y)
    >>> edge.node, edge.output_nr
    (<MulBackward0 object at 0x...>, 0)
    >>> symgrad.autograd.grad((y * y).sum(), edge)
    (tensor([4., 8.]),)
    """

    node: Any
    output_nr: int
    ownership_token: Any = None


NO_EDGE = (None, 0)


def public_positions(node: Any) -> tuple | None:
    """For each of PyTorch's edges of ``node``, the position of the primitive's input it
    leads from (None for an optional tensor left out; an edge itself for one of a node it
    shows as part of it, whose gradient hooks do not see); None when they are the inputs one
    for one (the primitive declares no ``edges``)."""
    rule = getattr(node.prim, "edges", None)
    if rule is None:
        return None
    return rule(node) if callable(rule) else rule


def as_public(node: Any, grads: Any) -> tuple:
    """``grads``, one per input of the primitive, as one per entry of ``next_functions``."""
    positions = public_positions(node)
    if positions is None:
        return tuple(grads)
    return tuple(grads[i] if type(i) is int else None for i in positions)


def from_public(node: Any, public: Any, grads: Any) -> list:
    """``grads`` (one per input of the primitive) with the gradients of ``public`` (one per
    entry of ``next_functions``) in their places."""
    positions = public_positions(node)
    if positions is None:
        return list(public)
    result = list(grads)
    for i, g in zip(positions, public):
        if type(i) is int:
            result[i] = g
    return result
