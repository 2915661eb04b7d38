"""What the pictures read from graph nodes: their inputs, the text of their operation and their
recomputed values.

This is the one place :mod:`symgrad.viz` tells element-wise, structural and custom-Function
nodes apart and reads their fields; :mod:`symgrad.prim.text` writes the text from what is read.
"""

from __future__ import annotations

from typing import Any

from symgrad.autograd.grad_mode import no_grad
from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.tensor import Tensor

__all__ = ["node_input", "retained_tensors", "operation_text", "recompute"]


def node_input(node: Node, i: int) -> tuple[str, Any]:
    """What feeds input ``i`` of ``node``: ``("node", (fn, output_nr))``, ``("tensor", t)``
    for a leaf or a constant tensor, ``("value", v)`` for a number or an array, or
    ``("missing", None)`` for an input the op did not keep."""
    fn, nr = node._edges[i]
    if isinstance(fn, AccumulateGrad):
        return "tensor", fn._leaf
    if fn is not None:
        return "node", (fn, nr)
    const = node._consts[i] if i < len(node._consts) else None
    if isinstance(const, Tensor):
        return "tensor", const
    if const is None:
        return "missing", None
    return "value", const


def retained_tensors(nodes: list[Node]) -> list[Tensor | None]:
    """The tensors that asked for ``retain_grad`` among the outputs of ``nodes`` (None for one
    that is gone: their hook keeps a weak reference)."""
    return [h.ref() for n in nodes if n._hooks is not None for h in n._hooks.retain]


def operation_text(
    node: Node, names: list, symbols: list, outs: list, outputs: list, args: list
) -> tuple[list, list]:
    """The forward formula lines of ``node`` and, per input, its edge's derivative label.

    ``names`` and ``symbols`` are what the picture calls the inputs (symbol None for an input
    not drawn), ``outs`` the names of the drawn outputs, whose keys are ``outputs``, and
    ``args`` the inputs' values (empty to leave the numbers out).
    """
    if node.prim is None:
        return [], [None] * len(names)
    forward, derivatives = node.prim.text(node, names, symbols, outs, outputs, args)
    derivatives = (list(derivatives) + [None] * len(names))[: len(names)]
    # no gradient flows into an input that needs none, so its edge has no derivative
    return forward, [
        d if fn is not None else None for d, (fn, _) in zip(derivatives, node._edges, strict=True)
    ]


def recompute(node: Node, args: list) -> tuple | None:
    """The outputs of ``node`` from its input values, without recording."""
    try:
        with no_grad():
            return node.prim.recompute(tuple(args), node.params)
    except (TypeError, ValueError, RuntimeError, IndexError, NotImplementedError):
        pass  # a value that can't be recomputed is left out of the picture, not fatal to it
    return None
