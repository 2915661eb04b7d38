"""The symbols a tensor stands for in closed forms.

A tensor with a ``name`` is a symbol (``a``), or an array of indexed symbols (``w[0, 1]``,
LaTeX ``w_{0,1}``) when it has more than one element, whether or not it requires grad.
A leaf that requires grad and has no name gets the next automatic name ``x_1``, ``x_2``, ...
the first time the symbolic layer meets it (reading the computation from its first operand),
and keeps it for the rest of the process. An unnamed constant is a number.

The tensors computed on the way to an output are named here too, once for the derivations and
the pictures of the graph: see :func:`intermediate_names`.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from symgrad._leaf_paths import path_of
from symgrad._symbol_names import element_parts
from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.autograd.order import collect, topological_order
from symgrad.prim.sympy_xp import ElementSymbol, exact, symbol_array, to_sympy
from symgrad.tensor import NAMES, Tensor

__all__ = [
    "symbols",
    "symbol_array_of",
    "constant_array",
    "is_symbolic",
    "leaf_name",
    "output_name",
    "intermediate_names",
    "base_name",
]

_auto_names: dict[int, str] = {}
_counter = itertools.count(1)


_claimed: dict[str, int] = {}  # automatic names taken from module paths, by tensor id


def _automatic_name(t: Tensor) -> str:
    """An unnamed leaf's name for its lifetime: its path in its model (``fc1.weight``, with
    ``_2``, ``_3``, ... when another live tensor holds that path already), else ``x_1``,
    ``x_2``, ...; a name a user gave a live tensor is skipped."""
    key = id(t)
    name = _auto_names.get(key)
    if name is None:
        given = NAMES.given  # (names users gave live tensors are skipped)
        path = path_of(t)
        if path is None:
            name = f"x_{next(_counter)}"
            while name in given:
                name = f"x_{next(_counter)}"
        else:
            name, k = path, 2
            while name in given or _claimed.setdefault(name, key) != key:
                name, k = f"{path}_{k}", k + 1
        _auto_names[key] = name
        weakref.finalize(t, _forget, key, name)
    return name


def _forget(key: int, name: str) -> None:
    _auto_names.pop(key, None)
    if _claimed.get(name) == key:
        del _claimed[name]


def is_symbolic(t: Tensor) -> bool:
    """True when ``t`` enters closed forms as symbols (named, or a leaf requiring grad)."""
    return t._name is not None or (t._requires_grad and t.grad_fn is None)


def leaf_name(t: Tensor) -> str | None:
    """The name of the symbols standing for the leaf ``t`` (None for an unnamed constant)."""
    if not is_symbolic(t):
        return None
    return t._name if t._name is not None else _automatic_name(t)


def symbol_array_of(t: Tensor, make: Callable[[str, bool], Any] | None = None) -> np.ndarray:
    """The object array of symbols standing for ``t``'s elements: SymPy's real symbols, or
    those ``make(label, element)`` builds (``element``: an indexed ``w[0, 1]``, else one
    symbol standing for a one-element tensor)."""
    name = t._name if t._name is not None else _automatic_name(t)
    if make is None:
        if t.numel() == 1:
            one = symbol_array(name, ())
            return np.broadcast_to(one, t.shape).copy()
        return symbol_array(name, t.shape)
    out = np.empty(t.shape, dtype=object)
    if t.numel() == 1:
        out[...] = make(name, False)
        return out
    for index in np.ndindex(*t.shape):  # the labels symbol_array gives
        out[index] = make(f"{name}[{', '.join(map(str, index))}]", True)
    return out


def constant_array(value: Any, as_float: bool = False) -> np.ndarray:
    """A constant (an unnamed tensor or a number) as an object array of SymPy numbers."""
    data = np.asarray(value._data if isinstance(value, Tensor) else value)
    out = np.empty(data.shape, dtype=object)
    for index in np.ndindex(*data.shape):
        out[index] = exact(data[index], as_float)
    return out


def symbols(t: Tensor) -> Any:
    """The symbol (one element) or array of symbols standing for the leaf ``t``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import symbols
    >>> symbols(symgrad.tensor(2.0, requires_grad=True, name="a"))
    a
    >>> symbols(symgrad.tensor([[1.0, 2.0]], name="w"))
    Matrix([[w[0, 0], w[0, 1]]])
    """
    if not isinstance(t, Tensor):
        raise TypeError(f"symbols() expects a Tensor, got {type(t).__name__}")
    if t.grad_fn is not None:
        raise ValueError(
            f"symbols() is for leaf tensors; this tensor was computed by {t.grad_fn.name()}: "
            "use expression(t) for its closed form"
        )
    if not is_symbolic(t):
        raise ValueError(
            "this tensor is an unnamed constant (it does not require grad), so it enters closed "
            "forms as numbers; give it a name (t.name = 'x') to make it a symbol"
        )
    arr = symbol_array_of(t)
    return arr.flat[0] if t.numel() == 1 else to_sympy(arr)


def base_name(symbol: Any) -> str:
    """The name of the tensor a symbol stands for, or one of its elements (``w`` for
    ``w[0, 1]``). Only element symbols have an index: a tensor may be called ``w[0]``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic.names import base_name, symbol_array_of
    >>> base_name(symbol_array_of(symgrad.tensor([1.0, 2.0], name="w[0]"))[1])
    'w[0]'
    """
    name = symbol.name
    return element_parts(name)[0] if isinstance(symbol, ElementSymbol) else name


# -- the tensors computed on the way to an output --------------------------------------------------


def output_name(node: Node, nr: int) -> str | None:
    """The name the user gave the tensor that is output ``nr`` of ``node``, if any."""
    names = node._metadata.get("names") if node._metadata else None
    return names.get(nr) if names else None


def intermediate_names(root: Tensor, labels: dict | None = None) -> dict[tuple[Node, int], str]:
    """The name of every tensor computed on the way to ``root``, by ``(node, output_nr)``.

    A label in ``labels`` (``{(node, output_nr): name}``, other keys allowed) wins, then the
    tensor's own ``name``. The others are ``v1``, ``v2``, ... in the order the computation made
    them (outputs of a node that nothing uses are counted too), skipping every name already
    taken in the graph (leaves, named constants, named tensors, labels); ``root`` is ``y``
    unless that name is taken, then the next ``v``. Unnamed leaves that require grad get their
    automatic names here, in the order the computation first uses them.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic.names import intermediate_names
    >>> v1 = symgrad.tensor(2.0, requires_grad=True, name="v1")
    >>> u = v1 * 3
    >>> y = symgrad.sin(u)
    >>> names = intermediate_names(y)
    >>> names[(u.grad_fn, 0)], names[(y.grad_fn, 0)]
    ('v2', 'y')
    """
    labels = labels or {}
    made_by = root.grad_fn if root.grad_fn is not None else root._origin
    root_key = (made_by, root._output_nr)
    forward = []
    if made_by is not None:
        deps, _ = collect([made_by])
        forward = with_origins(
            [
                n
                for n in reversed(topological_order([made_by], deps))
                if not isinstance(n, AccumulateGrad)
            ]
        )
    taken = {str(label) for label in labels.values()} | ({root._name} if root._name else set())
    for node in forward:
        for t in _tensor_inputs(node):
            name = leaf_name(t)
            if name is not None:
                taken.add(name)
        taken.update(filter(None, (output_name(node, nr) for nr in range(node.num_outputs))))
    names: dict[tuple[Node, int], str] = {}
    count = 0
    for node in forward:
        for nr in range(node.num_outputs):
            key = (node, nr)
            own = labels.get(key) or (root._name if key == root_key else None)
            own = own or output_name(node, nr)
            if own is None and key == root_key and "y" not in taken:
                own = "y"
            if own is None:
                count += 1
                while f"v{count}" in taken:
                    count += 1
                own = f"v{count}"
            names[key] = own
    return names


def with_origins(nodes: list) -> list:
    """``nodes`` (in the order the computation made them) with, before each, the nodes that
    made its constant inputs from named tensors (``Tensor._origin``), each once."""
    out: list = []
    seen: set = set()

    def visit(node: Node) -> None:
        if node in seen:
            return
        seen.add(node)
        for const in node._consts:
            if isinstance(const, Tensor) and const._origin is not None and const._name is None:
                visit(const._origin)
        out.append(node)

    for node in nodes:
        visit(node)
    return out


def _tensor_inputs(node: Node) -> list[Tensor]:
    """The leaves and constant tensors ``node`` takes, in the order of its inputs."""
    tensors = []
    for i, (fn, _) in enumerate(node._edges):
        if isinstance(fn, AccumulateGrad):
            tensors.append(fn._leaf)
        elif fn is None:
            const = node._consts[i] if i < len(node._consts) else None
            if isinstance(const, Tensor):
                tensors.append(const)
    return tensors
