"""Pytrees: the nested containers of tensors that the transforms of :mod:`symgrad.func` take
and return, read as ``torch.utils._pytree`` reads them.

A pytree is a leaf, or a tuple, list, dict, ``OrderedDict`` or named tuple of pytrees. Anything
else is a leaf: a tensor, a number, ``None``. Flattening gives the leaves in order (dicts in
their keys' order) and a :class:`TreeSpec` that rebuilds the containers around new leaves.

Examples
--------
>>> from symgrad.func._pytree import tree_flatten, tree_unflatten
>>> leaves, spec = tree_flatten({"w": 1, "b": (2, None)})
>>> leaves
[1, 2, None]
>>> print(spec)
{'w': *, 'b': (*, *)}
>>> tree_unflatten([10, 20, 30], spec)
{'w': 10, 'b': (20, 30)}
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

__all__ = [
    "TreeSpec",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "tree_map",
    "broadcast_prefix",
]


def _children(tree: Any) -> tuple | None:
    """``(type, context, children)`` of a container, None for a leaf. The context is what
    rebuilding needs besides the children: a dict's keys, a named tuple's class."""
    kind = type(tree)
    if kind is tuple or kind is list:
        return kind, None, list(tree)
    if kind is dict or kind is OrderedDict:
        return kind, list(tree), list(tree.values())
    if isinstance(tree, tuple) and hasattr(kind, "_fields"):
        return kind, kind, list(tree)
    return None


class TreeSpec:
    """The containers of a pytree without its leaves. ``str(spec)`` draws them with ``*`` for
    each leaf, as PyTorch's messages do: ``{'o': *, 'p': (*,)}``."""

    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, kind: Any = None, context: Any = None, children: Any = ()) -> None:
        self.type = kind
        self.context = context
        self.children = list(children)
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in self.children)

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TreeSpec)
            and self.type is other.type
            and self.context == other.context
            and self.children == other.children
        )

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        inner = [str(c) for c in self.children]
        if self.type is None:
            return "*"
        if self.type is tuple:
            return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
        if self.type is list:
            return "[" + ", ".join(inner) + "]"
        if self.type in (dict, OrderedDict):
            body = "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.context, inner)) + "}"
            return body if self.type is dict else f"OrderedDict({body})"
        fields = ", ".join(f"{f}={c}" for f, c in zip(self.type._fields, inner))
        return f"{self.type.__name__}({fields})"

    def __repr__(self) -> str:
        return f"TreeSpec({self})"


_LEAF = TreeSpec()


def tree_flatten(tree: Any) -> tuple[list, TreeSpec]:
    """``(leaves, spec)`` of ``tree``: its leaves in order and its containers."""
    leaves: list = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree: Any, leaves: list) -> TreeSpec:
    node = _children(tree)
    if node is None:
        leaves.append(tree)
        return _LEAF
    kind, context, children = node
    return TreeSpec(kind, context, [_flatten(c, leaves) for c in children])


def tree_leaves(tree: Any) -> list:
    """The leaves of ``tree``, in order."""
    return tree_flatten(tree)[0]


def tree_unflatten(leaves: Any, spec: TreeSpec) -> Any:
    """The pytree of ``spec``'s containers around ``leaves`` (as many as ``spec`` has)."""
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(
            f"tree_unflatten: {len(leaves)} leaves given for a structure {spec} of "
            f"{spec.num_leaves} leaves"
        )
    return _unflatten(iter(leaves), spec)


def _unflatten(leaves: Any, spec: TreeSpec) -> Any:
    if spec.type is None:
        return next(leaves)
    children = [_unflatten(leaves, c) for c in spec.children]
    if spec.type is tuple or spec.type is list:
        return spec.type(children)
    if spec.type is dict or spec.type is OrderedDict:
        return spec.type(zip(spec.context, children))
    return spec.type(*children)


def tree_map(fn: Callable, tree: Any, *rests: Any) -> Any:
    """``tree`` with each leaf replaced by ``fn(leaf, *the same leaf of each of rests)``; the
    ``rests`` have ``tree``'s structure."""
    leaves, spec = tree_flatten(tree)
    others = []
    for rest in rests:
        rest_leaves, rest_spec = tree_flatten(rest)
        if rest_spec != spec:
            raise ValueError(f"tree_map: expected the structure {spec}, got {rest_spec}")
        others.append(rest_leaves)
    return tree_unflatten([fn(*group) for group in zip(leaves, *others)], spec)


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> list | None:
    """One value per leaf of ``spec``, read from ``prefix``: a pytree with ``spec``'s
    containers down to some depth, each of its leaves standing for the whole subtree below it
    (``in_dims=(0, None)`` for ``(x, {"w": w, "b": b})``). None where ``prefix`` does not fit.
    Dicts are matched by key, in whatever order the keys come."""
    found: list = []
    return found if _broadcast(prefix, spec, found) else None


def _broadcast(prefix: Any, spec: TreeSpec, found: list) -> bool:
    node = _children(prefix)
    if node is None:
        found.extend([prefix] * spec.num_leaves)
        return True
    kind, context, children = node
    if kind is not spec.type or len(children) != len(spec.children):
        return False
    if context is not None and kind in (dict, OrderedDict):
        if set(context) != set(spec.context):
            return False
        children = [prefix[k] for k in spec.context]
    return all(_broadcast(p, s, found) for p, s in zip(children, spec.children))
