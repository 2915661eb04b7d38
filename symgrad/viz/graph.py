"""The model of a graph picture: its tensors as named boxes, with values and gradients, and its
operations with the keys of their inputs and outputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import sympy as sp

from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.prim.sympy_xp import exact
from symgrad.prim.text import is_number, number_text, short
from symgrad.symbolic.names import intermediate_names, leaf_name
from symgrad.symbolic.replay import backward_order
from symgrad.tensor import Tensor
from symgrad.viz.nodes import node_input, recompute, retained_tensors

__all__ = ["Box", "Graph", "MAX_NAME", "key_of", "name_overrides"]


MAX_NAME = 40  # characters of a name shown in a box or a formula; closed forms keep it whole


class _Label(sp.Symbol):
    """A tensor's symbol in the picture's formulas: its whole name tells symbols apart, and
    it prints cut to :data:`MAX_NAME` characters."""

    def _sympystr(self, printer: Any) -> str:
        return short(self.name, MAX_NAME)


class Box:
    """A tensor (or a constant input) in the picture; a long name is cut, with an ellipsis."""

    def __init__(
        self,
        ident: str,
        name: str,
        kind: str,
        value: Any = None,
        grad: Any = None,
        symbol: Any = None,
    ) -> None:
        self.id, self.name, self.kind = ident, short(name, MAX_NAME), kind
        self.value, self.grad = value, grad
        self.symbol = _Label(name) if symbol is None else symbol  # what formulas call it


class Graph:
    """Walks the graph of ``root`` forwards, naming tensors as the derivation does
    (:func:`symgrad.symbolic.names.intermediate_names`) and leaves as the symbolic replay."""

    def __init__(self, root: Tensor, overrides: dict, named: list) -> None:
        self.overrides = overrides
        self.boxes: dict[Any, Box] = {}
        self.ops: list[tuple[str, Node, list, list]] = []  # (id, node, input keys, output keys)
        self.constants = 0
        self.root_key = key_of(root)
        self.known = _known_tensors(root, named)
        self.values: dict[Any, Any] = {}  # also when hidden: they give the shapes
        self.names = intermediate_names(root, overrides)
        # a named tensor's array -> (its label, the tensor): a view of it that an op made
        # without a graph (matmul's unsqueeze of a vector) is drawn as the tensor itself
        self._arrays = {
            id(t._data): (overrides[key_of(t)], t) for t in named if key_of(t) in overrides
        }
        if root.grad_fn is None:
            self._leaf_box(root)
            return
        order = list(reversed(backward_order([root.grad_fn])))
        used = {self.root_key} | {e for n in order for e in n._edges if e[0] is not None}
        for node in order:
            if not isinstance(node, AccumulateGrad):
                self._add_operation(node, used)

    def _add_operation(self, node: Node, used: set) -> None:
        inputs = [self._input(node, i) for i in range(len(node._edges))]
        outputs = []
        for nr in range(node.num_outputs):
            key = (node, nr)
            if key in used:
                kind = "output" if key == self.root_key else "intermediate"
                t = self.known.get(key)
                self.boxes[key] = Box(
                    f"t{len(self.boxes)}",
                    self.names[key],
                    kind,
                    grad=None if t is None else t._grad,
                )
                outputs.append(key)
        self.ops.append((f"op{len(self.ops)}", node, inputs, outputs))
        self._compute(node, inputs)

    def _input(self, node: Node, i: int) -> Any:
        kind, const = node_input(node, i)
        if kind == "tensor":
            return self._leaf_box(const)
        if kind == "node":
            return const
        if kind == "missing":  # an input the op did not keep: nothing to draw
            return None
        key = ("number", id(node), i)
        text = number_text(const) if is_number(const) else short(repr(const))
        symbol = exact(const) if is_number(const) else sp.Symbol(text)
        self.boxes[key] = Box(f"k{len(self.boxes)}", text, "constant", const, symbol=symbol)
        self.values[key] = const
        return key

    def _leaf_box(self, t: Tensor) -> Any:
        key = key_of(t)
        if key in self.boxes:
            return key
        if key[0] is t._origin and key not in self.overrides:
            # data made from named tensors: drawn as the operation that made it
            self._add_operation(t._origin, {key})
            return key
        # the automatic symbol is taken in the order the replay meets leaves, so it agrees
        name = self.overrides.get(key) or leaf_name(t)
        data = t._data
        if name is None and not t._requires_grad:
            found = self._arrays.get(id(getattr(data, "base", None)))
            if found is not None and found[1].numel() == t.numel():
                name, data = found[0], found[1]._data
        symbol = None
        if name is None and t.numel() == 1:  # an unnamed one-element constant is a number
            value = np.asarray(t._data).reshape(())[()]
            name, symbol = number_text(value), exact(value)
        if name is None:
            self.constants += 1
            name = f"const{self.constants}"
        kind = "leaf" if t._requires_grad else "constant"
        kind = "output" if key == self.root_key else kind
        self.boxes[key] = Box(f"t{len(self.boxes)}", name, kind, data, t._grad, symbol)
        self.values[key] = t
        return key

    def _compute(self, node: Node, inputs: list) -> None:
        outputs = [k for k in ((node, nr) for nr in range(node.num_outputs)) if k in self.boxes]
        known = [self.known.get(k) for k in outputs]
        if all(t is not None for t in known):
            results = dict(zip(outputs, known, strict=True))
        else:
            args = [self.values.get(k) if k is not None else None for k in inputs]
            computed = None if any(a is None for a in args) else recompute(node, args)
            results = {(node, nr): out for nr, out in enumerate(computed or ())}
        for key in outputs:
            value = results.get(key)
            if value is not None:
                value = value if isinstance(value, Tensor) else Tensor._make(np.asarray(value))
                self.values[key] = value
                self.boxes[key].value = value._data


def key_of(t: Tensor) -> Any:
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if t._origin is not None and t._name is None:  # drawn as the operation that made it
        return (t._origin, t._output_nr)
    return ("tensor", id(t))


def name_overrides(names: Mapping[str, Tensor] | None) -> tuple[dict, list]:
    """``{tensor key: label}`` from ``draw``'s ``names``, and the tensors it holds."""
    if names is None:
        return {}, []
    if not isinstance(names, Mapping):
        raise TypeError(f"draw(): names must map labels to tensors, got {type(names).__name__}")
    overrides = {}
    for label, t in names.items():
        if not isinstance(label, str) or not label.strip():
            raise TypeError(f"draw(): names must have non-empty string keys, got {label!r:.40}")
        if not isinstance(t, Tensor):
            raise TypeError(
                f"draw(): names[{label!r:.40}] must be a Tensor, got {type(t).__name__}"
            )
        overrides[key_of(t)] = label
    return overrides, list(names.values())


def _known_tensors(root: Tensor, named: list) -> dict:
    """Tensor objects we can read values and ``.grad`` from: ``root``, the ``names`` and the
    tensors that asked for ``retain_grad`` (their hook keeps a weak reference)."""
    known = {key_of(root): root}
    nodes = backward_order([root.grad_fn]) if root.grad_fn is not None else []
    for t in retained_tensors(nodes) + named:
        if t is not None and t.grad_fn is not None:
            known.setdefault(key_of(t), t)
    return known
