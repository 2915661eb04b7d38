"""The chain rule, step by step, for a traced computation.

A :class:`Derivation` lists, from the output back to a leaf, each tensor's adjoint (the
derivative of the output with respect to it) as the sum over the tensors that use it of
"their adjoint times their local derivative", with formulas and numbers side by side. Where the
leaf is reached along few enough paths, it also shows the product of local derivatives along
each path (the chain rule as taught). This module walks the graph and records the steps;
:mod:`symgrad.symbolic.steps` holds the record and renders it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from symgrad.autograd.node import AccumulateGrad, Node, accumulator_of
from symgrad.autograd.order import collect, leading_to
from symgrad.symbolic.names import base_name, intermediate_names, output_name, symbol_array_of
from symgrad.symbolic.recognise import Recogniser, simplified
from symgrad.symbolic.replay import Replay, backward_order
from symgrad.symbolic.steps import Derivation, LeafDerivation, Operand, Partial, PathForm, Step
from symgrad.tensor import Tensor

__all__ = ["derivation", "Derivation", "Step"]

MAX_PATHS = 8  # beyond this many paths the product form stops being readable
MAX_CLOSED_NODES = 40  # closed forms of longer graphs are unreadable and slow to build
MAX_RESULT_OPS = 120  # a derivative in the inputs' symbols longer than this is not shown


# -- building ------------------------------------------------------------------------------------


class _Builder:
    """Walks the graph of ``y`` once and derives the steps for each requested leaf."""

    def __init__(self, y: Tensor, names: dict) -> None:
        self.y = y
        root = y.grad_fn
        self.name = names[(root, y._output_nr)]
        self.order = backward_order([root])
        self.replay = Replay(cse=True, names=names, every_step=True)
        self.replay.value(y)
        self.with_closed_forms = len(self.order) <= MAX_CLOSED_NODES
        self._recogniser = Recogniser()  # 1/(1 + exp(-v)) read as sigmoid(v)
        self.definitions = [(s, self._recogniser.named(d)) for s, d in self.replay.definitions]
        self._defined = dict(self.definitions)
        self._inlined: dict = {}  # symbol -> its definition in the inputs' symbols
        self.deps, _ = collect([root])
        self.consumers: dict[tuple, list] = {}
        for node in self.order:
            for i, (fn, nr) in enumerate(node._edges):
                if fn is not None:
                    self.consumers.setdefault((fn, nr), []).append((node, i))
        self.labels = self._labels()
        self.adjoint_values: dict[tuple, Any] = {(root, y._output_nr): 1.0}

    def _labels(self) -> dict:
        """A printable name for every tensor of the graph (leaves and node outputs)."""
        labels = {}
        for key, arr in self.replay.values.items():
            labels[key] = _base_name(arr) or output_name(*key) or "?"
        for node in self.order:
            leaf = _leaf_of(node)
            if leaf is not None:
                labels[(node, 0)] = _base_name(symbol_array_of(leaf))
        labels[(self.y.grad_fn, self.y._output_nr)] = self.name
        return labels

    def symbol_of(self, key: tuple) -> Any:
        return Partial(self.name, self.labels[key], real=True)

    def value_of(self, key: tuple) -> Any:
        leaf = _leaf_of(key[0])
        if leaf is not None:
            return symbol_array_of(leaf)
        return self.replay.values[key]

    def local(self, consumer: Node, i: int) -> tuple[Any, Any] | None:
        """d consumer / d input i as a formula in the named tensors, and as a number."""
        formula = _local_derivative(consumer, i, lambda j: self.replay.input(consumer, j))
        if formula is None:
            return None
        value = sp.sympify(formula, strict=True)
        formula = self._in_own_name(value, consumer)
        known = self.replay._numeric_values
        if not value.free_symbols <= set(known):
            self.replay._evaluate_definitions()
        value = sp.sympify(value.xreplace({s: sp.Float(known[s]) for s in value.free_symbols}))
        if value.is_extended_real:
            return formula, float(value)
        # 0 * log(0), 0 ** 0 * oo, ...: the number PyTorch's kernels give at this point
        return formula, self._numeric_local(consumer, i)

    def _in_own_name(self, formula: Any, consumer: Node) -> Any:
        """The local derivative with the consumer's own value written as its name: sigmoid's
        ``v3*(1 - v3)`` for ``v3 = sigmoid(v2)``, exp's ``v4`` for ``v4 = exp(v3)``."""
        formula = self._recogniser.named(formula)
        out = self.replay.values.get((consumer, 0))
        if out is None or np.size(out) != 1:
            return formula
        own = np.asarray(out, dtype=object).flat[0]
        if own in self._defined:
            formula = formula.xreplace({self._defined[own]: own})
        return formula

    def in_inputs(self, closed: Any) -> Any:
        """An adjoint written in the named intermediates, written in the inputs' symbols and
        simplified (:func:`~symgrad.symbolic.recognise.recognise`); None when long."""
        if closed is None:
            return None
        if not self._inlined:
            for s, d in self.definitions:  # forward order: d uses earlier symbols only
                self._inlined[s] = d.xreplace(self._inlined)
        arr = np.asarray(closed, dtype=object)
        found = simplified(
            [sp.sympify(e, strict=True).xreplace(self._inlined) for e in arr.flat], True
        )
        if sum(sp.count_ops(e) for e in found) > MAX_RESULT_OPS:
            return None
        return _shown(np.array(found + [None], dtype=object)[:-1].reshape(arr.shape))

    def _numeric_local(self, consumer: Node, i: int) -> float:
        """The local derivative at the point by the op's numeric kernel (what the engine uses),
        where its formula has no real value there."""
        prim = consumer.prim
        if not hasattr(prim, "vjp_kernel"):  # no element-wise kernel: the value is not real
            return math.nan
        xs = [
            self.replay._numeric(np.asarray(self.replay.input(consumer, j), dtype=object))
            for j in range(len(consumer._edges))
        ]
        params = tuple(consumer.params)
        out = prim.numeric(*xs, *params)
        return float(np.asarray(prim.vjp_kernel(i)(*xs, out, np.ones_like(out), *params)).flat[0])

    def steps_for(self, target: tuple) -> list[Step]:
        useful = leading_to(self.order, self.deps, {target[0]}) | {target[0]}
        root_key = (self.y.grad_fn, self.y._output_nr)
        one = sp.Integer(1) if self.with_closed_forms else None
        steps = [Step(self.labels[root_key], self.symbol_of(root_key), [], [], one, 1.0)]
        closed = {root_key: one}
        for node in self.order:
            for nr in range(node.num_outputs):
                key = (node, nr)
                if key == root_key or node not in useful or key not in self.consumers:
                    continue
                step = self._step(key, useful, closed)
                if step is not None:
                    steps.append(step)
        return steps

    def _step(self, key: tuple, useful: set, closed: dict) -> Step | None:
        terms, numbers, total, value = [], [], None, None
        uses = [c for c, _ in self.consumers[key]]
        for consumer, i in self.consumers[key]:
            ckey = (consumer, 0)
            if consumer not in useful or ckey not in closed:
                continue
            scalar = np.size(self.adjoint_values[ckey]) == 1
            local = self.local(consumer, i) if scalar else None
            if local is not None:
                formula, number = local
                shown = Operand(formula, i + 1) if uses.count(consumer) > 1 else formula
                terms.append([self.symbol_of(ckey), shown])
                numbers.append([self.adjoint_values[ckey], number])
                part_value = self.adjoint_values[ckey] * number
                part = closed[ckey] * formula if self.with_closed_forms else None
            else:
                term, part, part_value = self._vjp_term(consumer, i, ckey, closed)
                terms.append([term])
                numbers.append([part_value])
            total = part if total is None or part is None else total + part
            value = part_value if value is None else value + part_value
        if not terms:
            return None
        closed[key] = total
        self.adjoint_values[key] = value
        shown = _shown(total) if total is not None else None
        return Step(self.labels[key], self.symbol_of(key), terms, numbers, shown, value)

    def _vjp_term(self, consumer: Node, i: int, ckey: tuple, closed: dict) -> tuple:
        """A tensor consumer's contribution: its VJP rule applied to its adjoint's symbols."""
        from symgrad.prim.sympy_xp import to_sympy

        out = self.replay.values[ckey]
        g = np.empty(out.shape, dtype=object)
        for index in np.ndindex(*out.shape):
            g[index] = Partial(self.name, self.labels[ckey], index, real=True)
        contribution = np.asarray(self.replay._vjp(consumer, g, 0)[i], dtype=object)
        g_values = np.broadcast_to(np.asarray(self.adjoint_values[ckey], dtype=float), out.shape)
        self.replay._numeric_values.update({s: float(v) for s, v in zip(g.flat, g_values.flat)})
        part = None
        if self.with_closed_forms:
            g_closed = np.broadcast_to(np.asarray(closed[ckey], dtype=object), out.shape)
            swap = {s: c for s, c in zip(g.flat, g_closed.flat)}
            part = np.vectorize(
                lambda e: sp.sympify(e, strict=True).xreplace(swap), otypes=[object]
            )(contribution)
        number = self.replay._numeric(contribution)
        return to_sympy(contribution), part, number

    def path_form(self, target: tuple) -> PathForm | None:
        root_key = (self.y.grad_fn, self.y._output_nr)
        paths: list = []
        stack = [(root_key, [])]
        while stack:
            key, edges = stack.pop()
            if key == target:
                paths.append(edges)
                if len(paths) > MAX_PATHS:
                    return None
                continue
            node = key[0]
            for i, (fn, nr) in enumerate(node._edges):
                if fn is not None and (fn is target[0] or fn in self._reaching(target)):
                    stack.append(((fn, nr), edges + [(node, i, (fn, nr))]))
        if not paths:
            return None
        symbols, formulas, numbers = [], [], []
        for edges in reversed(paths):
            locals_ = [self.local(node, i) for node, i, _ in edges]
            if any(v is None for v in locals_):
                return None
            symbols.append(
                [
                    Partial(self.labels[(n, 0)], self.labels[k], slot=self._slot(n, i), real=True)
                    for n, i, k in edges
                ]
            )
            formulas.append([f for f, _ in locals_])
            numbers.append([v for _, v in locals_])
        closed = None
        if self.with_closed_forms:
            closed = sum((sp.Mul(*fs) for fs in formulas), sp.Integer(0))
        value = sum(float(np.prod(ns)) for ns in numbers)
        return PathForm(self.symbol_of(target), symbols, formulas, numbers, closed, value)

    def _slot(self, node: Node, i: int) -> int:
        """``i + 1`` when ``node`` uses its input ``i``'s tensor in another slot too, else 0."""
        edges = node._edges
        return i + 1 if edges[i][0] is not None and edges.count(edges[i]) > 1 else 0

    def _reaching(self, target: tuple) -> set:
        cache = self.__dict__.setdefault("_reach", {})
        if target not in cache:
            cache[target] = leading_to(self.order, self.deps, {target[0]})
        return cache[target]


# -- what the derivation reads from graph nodes ----------------------------------------------------


def _local_derivative(node: Node, i: int, input_value: Any) -> Any:
    """The partial derivative of ``node``'s output by its input ``i``, at the inputs' symbolic
    values (``input_value(j)``), when its primitive has a scalar formula; else None."""
    args = [input_value(j) for j in range(len(node._edges))]
    return node.prim.scalar_partial(i, tuple(args), node.params)


def _leaf_of(node: Node) -> Tensor | None:
    """The leaf tensor an AccumulateGrad node stands for; None for other nodes."""
    return node._leaf if isinstance(node, AccumulateGrad) else None


def _shown(total: Any) -> Any:
    """A closed form for display: a SymPy expression, or a Matrix / Array for a tensor."""
    from symgrad.prim.sympy_xp import to_sympy

    if isinstance(total, np.ndarray):
        return to_sympy(total) if total.size != 1 else sp.sympify(total.flat[0], strict=True)
    return total


def _base_name(arr: Any) -> str | None:
    first = np.asarray(arr).flat[0] if np.size(arr) else None
    if isinstance(first, sp.Symbol):
        return base_name(first)
    return None


def _target_key(t: Tensor) -> tuple:
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    if not t.requires_grad:
        raise ValueError(
            "derivation(): the tensor to differentiate by must require grad (or be computed "
            "from one); a constant has no derivative in the graph"
        )
    return (accumulator_of(t), 0)


def derivation(y: Tensor, x: Any = None, *, name: str | None = None, digits: int = 6) -> Derivation:
    """The chain-rule steps from ``y`` back to the leaf ``x`` (or to every leaf).

    ``y`` must have one element. Intermediate tensors appear under their ``name`` when set
    (``u.name = "u"``), otherwise as ``v1``, ``v2``, ... (skipping names the graph already
    uses); the output under ``name`` (default: its own name, or ``y`` unless a tensor of the
    graph is called ``y``). :func:`symgrad.viz.draw` names them the same way (see
    :func:`symgrad.symbolic.names.intermediate_names`). Each adjoint is written in the
    intermediates' names (``v3*(1 - v3)*...``), so lines stay short however deep the graph;
    each derivative also shows its result in the inputs' symbols when that is short. Numbers
    show ``digits`` significant digits (a setting of the result: ``story.digits = 3``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import derivation
    >>> a, b, c, d = (symgrad.tensor(v, requires_grad=True, name=n)
    ...               for v, n in ((2.0, "a"), (3.0, "b"), (5.0, "c"), (10.0, "d")))
    >>> u = a * b; u.name = "u"
    >>> t = symgrad.log(d); t.name = "t"
    >>> v = t * c; v.name = "v"
    >>> e = u + v; e.name = "e"
    >>> print(derivation(e, d))
    Forward (a = 2, b = 3, d = 10, c = 5):
      u = a*b
      t = log(d)
      v = c*t
      e = u + v
    <BLANKLINE>
    de/dd:
      de/dd = de/dv · dv/dt · dt/dd = 1 · c · 1/d = c/d = 0.5
      steps, from the output back:
        de/de = 1
        de/dv = de/de · 1 = 1 · 1 = 1
        de/dt = de/dv · c = 1 · 5 = c = 5
        de/dd = de/dt · 1/d = 5 · 0.1 = c/d = 0.5
    """
    if not isinstance(y, Tensor):
        raise TypeError(f"derivation() expects a Tensor output, got {type(y).__name__}")
    if y.numel() != 1:
        raise ValueError(
            f"derivation() needs a one-element output, got shape {list(y.shape)}; "
            "derive one element (y[0]) or a sum"
        )
    if y.grad_fn is None:
        raise ValueError("derivation(): the output was not computed from tensors that require grad")
    builder = _Builder(
        y, intermediate_names(y, {(y.grad_fn, y._output_nr): name} if name else None)
    )
    label = builder.name
    targets = _targets(builder, x)
    leaves = []
    for key in targets:
        steps = builder.steps_for(key)
        result = builder.in_inputs(steps[-1].closed_form)
        form = builder.path_form(key)
        if form is not None and result is not None:
            form.closed_form = result
        leaves.append(LeafDerivation(builder.labels[key], form, steps, result))
    values = {}
    for node in sorted(builder.order, key=lambda n: n._seq):
        leaf = _leaf_of(node)
        if leaf is not None:
            values[builder.labels[(node, 0)]] = leaf._data.copy()
    for t in builder.replay.leaves.values():  # named data too: x = [1, 2], y = 1
        called = _base_name(symbol_array_of(t))
        if called is not None and called not in values:
            values[called] = t._data.copy()
    return Derivation(label, builder.definitions, values, leaves, digits=_digits(digits))


def _digits(digits: Any) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 17:
        raise ValueError(f"derivation(): digits must be an integer from 1 to 17, got {digits!r}")
    return digits


def _targets(builder: _Builder, x: Any) -> list[tuple]:
    if x is None:  # every leaf, in the order the computation first used them
        leaves = [n for n in builder.order if _leaf_of(n) is not None]
        return [(n, 0) for n in sorted(leaves, key=lambda n: n._seq)]
    xs = [x] if isinstance(x, Tensor) else list(x)
    keys = []
    for t in xs:
        key = _target_key(t)
        if key[0] not in builder.order:
            raise ValueError(
                f"derivation(): {t.name or 'the tensor'} is not used to compute the output"
            )
        keys.append(key)
    return keys
