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
