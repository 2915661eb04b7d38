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


def name_tree(node, depth: int = 3):
    """The node's class name and its ``next_functions``' names, ``depth`` levels down (None
    for no node)."""
    if node is None:
        return None
    name = type(node).__name__
    if depth == 0:
        return name
    return (name, tuple(name_tree(n, depth - 1) for n, _ in node.next_functions))


SMALL = ((-1.0, 0.25, 1.3), (2.0, -0.5, 0.7))


def second_order(T, f):
    """The first gradient of ``f(T, x).pow(2).sum()`` at ``x = SMALL`` (float64, with
    create_graph), the names of its graph (:func:`name_tree`), and its derivative along
    ``v = (1, ..., 6)``; ``T`` is symgrad or torch."""
    x = T.tensor(SMALL, dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(f(T, x).pow(2).sum(), x, create_graph=True)
    v = T.arange(1.0, 7.0, dtype=T.float64).reshape(2, 3)
    (h,) = T.autograd.grad((g * v).sum(), x, allow_unused=True)
    return g.detach(), name_tree(g.grad_fn), h


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


def leaf(T, *shape, seed=0):
    """A float64 leaf of ``shape`` requiring grad, the same values for symgrad and PyTorch."""
    import numpy as np

    return T.tensor(np.random.default_rng(seed).standard_normal(shape), requires_grad=True)


def graph_table_tests(cases: dict) -> tuple:
    """The two tests of a table ``{name: (fn of T, expected graph)}``: symgrad's graphs
    always, PyTorch's where it is installed (see ``_torch_table.table_tests``)."""
    from _torch_table import table_tests

    return table_tests({name: (_graph_of(fn), expected) for name, (fn, expected) in cases.items()})


def _graph_of(fn):
    return lambda T: graph(fn(T))
