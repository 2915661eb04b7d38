"""The orders in which a backward pass visits a graph.

A node is always made after the nodes its edges lead to (its ``_seq`` is larger), so newest
first is an order in which every node comes after all the nodes that feed it a gradient. The
exception is a leaf's AccumulateGrad node, made when the leaf is first used, which can be after
a custom Function's node that uses it; nothing runs after an AccumulateGrad node, so the walk
counts the edges into it instead of ordering it.
"""

from __future__ import annotations

import operator

from symgrad.autograd.node import AccumulateGrad, Node

__all__ = ["walk", "collect", "topological_order", "leading_to"]

_SEQ = operator.attrgetter("_seq")


def collect(roots: list[Node]) -> tuple[dict, list]:
    """Dependency counts (edges into each node) and the nodes in discovery order."""
    deps: dict[Node, int] = {}
    order = []
    stack = list(dict.fromkeys(roots))
    seen = set(stack)
    while stack:
        node = stack.pop()
        order.append(node)
        for nxt, _ in node._edges:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps, order


def walk(roots: list[Node]) -> tuple[list[Node], dict]:
    """The nodes reachable from ``roots`` in an order to run them, and for each AccumulateGrad
    reached, the number of edges into it.

    The nodes come newest first (descending ``_seq``); AccumulateGrad nodes are left out of
    that order and counted instead (see the module's docstring). Unlike ``collect`` it counts
    only the edges into leaves: this walk runs at every backward, so it does no more.
    """
    nodes: list[Node] = []
    pending: dict[AccumulateGrad, int] = {}
    stack = []
    for node in dict.fromkeys(roots):
        if type(node) is AccumulateGrad:
            pending[node] = 0
        else:
            stack.append(node)
    seen = set(roots)
    while stack:
        node = stack.pop()
        nodes.append(node)
        for nxt, _ in node._edges:
            if nxt is None:
                continue
            if type(nxt) is AccumulateGrad:
                pending[nxt] = pending.get(nxt, 0) + 1
            elif nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    nodes.sort(key=_SEQ, reverse=True)
    return nodes, pending


def topological_order(roots: list[Node], deps: dict) -> list[Node]:
    """The nodes reachable from ``roots`` (given their dependency counts from ``collect``),
    each after every node that feeds it a gradient."""
    remaining = dict(deps)
    ready = [n for n in dict.fromkeys(roots) if remaining.get(n, 0) == 0]
    topo = []
    while ready:
        node = ready.pop()
        topo.append(node)
        for nxt, _ in node._edges:
            if nxt is not None:
                remaining[nxt] -= 1
                if remaining[nxt] == 0:
                    ready.append(nxt)
    return topo


def leading_to(order: list[Node], deps: dict, targets: set) -> set:
    """The nodes from which a target can be reached through at least one edge."""
    topo = topological_order(order, deps)
    useful: set = set()
    for node in reversed(topo):
        if any(n is not None and (n in targets or n in useful) for n, _ in node._edges):
            useful.add(node)
    return useful
