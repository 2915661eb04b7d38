"""Reading a recorded graph in tests."""

from __future__ import annotations

import symgrad


def node_names(t: symgrad.Tensor) -> set:
    """The class names of every node reachable from ``t``'s ``grad_fn``."""
    seen, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(f for f, _ in node.next_functions)
    return {type(n).__name__ for n in seen}


def graph(t: symgrad.Tensor) -> tuple:
    """The graph behind ``t`` as plain data, to compare with PyTorch's: each node in
    breadth-first order of first visit, as (its class name, its ``next_functions`` as
    (position of the node, output_nr) or None)."""
    order: dict = {}
    queue = [t.grad_fn]
    while queue:
        n = queue.pop(0)
        if n is None or n in order:
            continue
        order[n] = len(order)
        queue.extend(f for f, _ in n.next_functions)
    return tuple(
        (type(n).__name__, tuple(None if f is None else (order[f], k) for f, k in n.next_functions))
        for n in order
    )
