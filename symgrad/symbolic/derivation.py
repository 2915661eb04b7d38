"""The chain rule, step by step, for a traced computation.

A :class:`Derivation` lists, from the output back to a leaf, each tensor's adjoint (the
derivative of the output with respect to it) as the sum over the tensors that use it of
"their adjoint times their local derivative", with formulas and numbers side by side. Where the
leaf is reached along few enough paths, it also shows the product of local derivatives along
each path (the chain rule as taught).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from symgrad.autograd.node import AccumulateGrad, Node, accumulator_of
from symgrad.autograd.order import collect, leading_to
from symgrad.prim.elementwise import ElementwiseNode
from symgrad.prim.sympy_xp import exact
from symgrad.symbolic.names import symbol_array_of
from symgrad.symbolic.replay import Replay, backward_order, output_name
from symgrad.tensor import Tensor

__all__ = ["derivation", "Derivation", "Step"]

MAX_PATHS = 8  # beyond this many paths the product form stops being readable
MAX_CLOSED_NODES = 40  # closed forms of longer graphs are unreadable and slow to build


class Partial(sp.Symbol):
    """The symbol ``de/dv`` for an adjoint; LaTeX ``\\frac{\\partial e}{\\partial v}``."""

    def _latex(self, printer: Any) -> str:
        top, _, bottom = self.name.partition("/")
        return (
            rf"\frac{{\partial {_latex_name(printer, top[1:])}}}"
            rf"{{\partial {_latex_name(printer, bottom[1:])}}}"
        )


def _latex_name(printer: Any, name: str) -> str:
    base, _, index = name.partition("[")
    text = printer._print(sp.Symbol(base))
    return f"{text}_{{{index.rstrip(']').replace(' ', '')}}}" if index else text


@dataclass
class Step:
    """One chain-rule step: the adjoint of ``target`` from the adjoints of its consumers.

    ``terms`` holds, per consumer, the factors (its adjoint, the local derivative) as
    formulas, ``numbers`` the same factors as numbers; ``closed_form`` is the adjoint in the
    leaves' symbols (None for graphs too large to show it) and ``value`` its number.
    """

    target: str
    symbol: Any
    terms: list
    numbers: list
    closed_form: Any
    value: Any


@dataclass
class PathForm:
    """The chain rule as a sum over paths of products of local derivatives."""

    symbol: Any
    paths: list  # per path: the local-derivative symbols (dv/dt)
    formulas: list  # per path: the local derivatives as formulas
    numbers: list
    closed_form: Any
    value: Any


@dataclass
class LeafDerivation:
    leaf: str
    path_form: PathForm | None
    steps: list


class Derivation:
    """The chain-rule derivation of ``d output / d leaf`` for one leaf or several.

    Renders as plain text (``str``), Markdown (``.markdown()``) and LaTeX (``.latex()``, an
    ``aligned`` block); in Jupyter it shows as LaTeX.
    """

    def __init__(
        self, output: str, definitions: list, values: dict, leaves: list[LeafDerivation]
    ) -> None:
        self.output = output
        self.definitions = definitions
        self.values = values
        self.leaves = leaves

    # -- plain text -------------------------------------------------------------------------------
    def __str__(self) -> str:
        at = ", ".join(f"{k} = {_number(v)}" for k, v in self.values.items())
        lines = [f"Forward ({at}):" if at else "Forward:"]
        lines += [f"  {s} = {e}" for s, e in self.definitions]
        for leaf in self.leaves:
            lines.append("")
            lines.append(f"d{self.output}/d{leaf.leaf}:")
            if leaf.path_form is not None:
                lines.append("  " + _path_text(leaf.path_form))
            lines.append("  steps, from the output back:")
            lines += [f"    {_step_text(step)}" for step in leaf.steps]
        return "\n".join(lines)

    __repr__ = __str__

    # -- Markdown ---------------------------------------------------------------------------------
    def markdown(self) -> str:
        """Markdown with the formulas in ``$...$``."""
        lines = ["**Forward**", ""]
        lines += [f"- ${sp.latex(s)} = {sp.latex(e)}$" for s, e in self.definitions]
        for leaf in self.leaves:
            lines += ["", f"**Derivative with respect to ${_latex_str(leaf.leaf)}$**", ""]
            if leaf.path_form is not None:
                lines.append(f"$${_path_latex(leaf.path_form)}$$")
                lines.append("")
            lines += [f"1. ${_step_latex(step)}$" for step in leaf.steps]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown()

    # -- LaTeX ------------------------------------------------------------------------------------
    def latex(self) -> str:
        """An ``aligned`` block: the forward definitions, then each leaf's chain rule."""
        rows = [f"{sp.latex(s)} &= {sp.latex(e)}" for s, e in self.definitions]
        for leaf in self.leaves:
            if leaf.path_form is not None:
                rows.append(_path_latex(leaf.path_form, aligned=True))
            rows += [_step_latex(step, aligned=True) for step in leaf.steps]
        return "\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}"

    def _repr_latex_(self) -> str:
        return f"$$\n{self.latex()}\n$$"


# -- rendering helpers ---------------------------------------------------------------------------


def _number(v: Any) -> str:
    arr = np.asarray(v, dtype=float)
    if arr.ndim:
        return "[" + ", ".join(_number(x) for x in arr) + "]"
    x = float(arr)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:.6g}"


def _is_negative(e: Any) -> bool:
    if isinstance(e, np.ndarray):
        return False
    if isinstance(e, (int, float, np.number)):
        return float(e) < 0
    return sp.sympify(e, strict=True).could_extract_minus_sign()


def _text(e: Any, factor: bool = False) -> str:
    if isinstance(e, (int, float, np.number, np.ndarray)):
        text = _number(e)
    else:
        text = str(e)
        if isinstance(e, sp.Add):
            return f"({text})"
    return f"({text})" if factor and _is_negative(e) else text


def _product(factors: list) -> str:
    return " · ".join(_text(f, factor=len(factors) > 1) for f in factors)


def _sum(terms: list) -> str:
    return " + ".join(_product(t) for t in terms) if terms else "0"


def _step_text(step: Step) -> str:
    if not step.terms:
        return f"{step.symbol} = 1"
    value = _number(step.value)
    numbers = _sum(step.numbers)
    parts = [f"{step.symbol} = {_sum(step.terms)}"]
    parts += [p for p in (numbers, _closed_text(step.closed_form)) if p not in (value, None)]
    return " = ".join(_dedupe(parts + [value]))


def _path_text(form: PathForm) -> str:
    parts = [
        f"{form.symbol} = {_sum(form.paths)}",
        _sum(form.formulas),
        _sum(form.numbers) if len(form.numbers) > 1 else None,
        _closed_text(form.closed_form),
        _number(form.value),
    ]
    return " = ".join(_dedupe([p for p in parts if p is not None]))


def _closed_text(closed: Any) -> str | None:
    return None if closed is None else str(closed)


def _closed_latex(closed: Any) -> str | None:
    return None if closed is None else sp.latex(closed)


def _dedupe(parts: list) -> list:
    out = []
    for p in parts:
        if p is None:
            continue
        if not out or out[-1].split(" = ")[-1] != p:
            out.append(p)
    return out


def _latex_str(name: str) -> str:
    return sp.latex(sp.Symbol(name))


def _latex_of(e: Any, factor: bool = False) -> str:
    if isinstance(e, (int, float, np.number, np.ndarray)):
        text = _number(e)
    else:
        text = sp.latex(e)
        if isinstance(e, sp.Add):
            return rf"\left({text}\right)"
    return rf"\left({text}\right)" if factor and _is_negative(e) else text


def _latex_sum(terms: list) -> str:
    return (
        " + ".join(r" \cdot ".join(_latex_of(f, factor=len(t) > 1) for f in t) for t in terms)
        or "0"
    )


def _step_latex(step: Step, aligned: bool = False) -> str:
    eq = "&=" if aligned else "="
    if not step.terms:
        return f"{sp.latex(step.symbol)} {eq} 1"
    parts = [
        _latex_sum(step.terms),
        _latex_sum(step.numbers),
        _closed_latex(step.closed_form),
        _number(step.value),
    ]
    return f"{sp.latex(step.symbol)} {eq} " + " = ".join(_dedupe(parts))


def _path_latex(form: PathForm, aligned: bool = False) -> str:
    eq = "&=" if aligned else "="
    parts = [
        _latex_sum(form.paths),
        _latex_sum(form.formulas),
        _closed_latex(form.closed_form),
        _number(form.value),
    ]
    return f"{sp.latex(form.symbol)} {eq} " + " = ".join(_dedupe(parts))


# -- building ------------------------------------------------------------------------------------


class _Builder:
    """Walks the graph of ``y`` once and derives the steps for each requested leaf."""

    def __init__(self, y: Tensor, name: str) -> None:
        self.y = y
        self.name = name
        root = y.grad_fn
        self.order = backward_order([root])
        self.replay = Replay(cse=True, names=self._automatic_names())
        self.replay.value(y)
        self.with_closed_forms = len(self.order) <= MAX_CLOSED_NODES
        self._inlined: dict = {}  # symbol -> its definition in the leaves' symbols
        self._inlined_count = 0
        self.deps, _ = collect([root])
        self.consumers: dict[tuple, list] = {}
        for node in self.order:
            for i, (fn, nr) in enumerate(node.next_functions):
                if fn is not None:
                    self.consumers.setdefault((fn, nr), []).append((node, i))
        self.labels = self._labels()
        self.adjoint_values: dict[tuple, Any] = {(root, y._output_nr): 1.0}

    def _automatic_names(self) -> dict:
        """``v1``, ``v2``, ... for the unnamed outputs, in forward order, skipping the names of
        leaves and named tensors (so a leaf called ``v1`` is not confused with one)."""
        root_key = (self.y.grad_fn, self.y._output_nr)
        names = {root_key: self.name}
        taken = {self.name}
        for node in self.order:
            if isinstance(node, AccumulateGrad):
                taken.add(_base_name(symbol_array_of(node._leaf)))
            else:
                for i, (fn, _) in enumerate(node.next_functions):
                    const = node._consts[i] if fn is None and i < len(node._consts) else None
                    if isinstance(const, Tensor) and const.name:
                        taken.add(const.name)
                taken.update(output_name(node, nr) for nr in range(node.num_outputs))
        count = 0
        for node in reversed(self.order):
            if isinstance(node, AccumulateGrad):
                continue
            for nr in range(node.num_outputs):
                if (node, nr) in names or output_name(node, nr):
                    continue
                count += 1
                while f"v{count}" in taken:
                    count += 1
                names[(node, nr)] = f"v{count}"
        return names

    def _labels(self) -> dict:
        """A printable name for every tensor of the graph (leaves and node outputs)."""
        labels = {}
        for key, arr in self.replay.values.items():
            labels[key] = _base_name(arr) or output_name(*key) or "?"
        for node in self.order:
            if isinstance(node, AccumulateGrad):
                labels[(node, 0)] = _base_name(symbol_array_of(node._leaf))
        labels[(self.y.grad_fn, self.y._output_nr)] = self.name
        return labels

    def symbol_of(self, key: tuple) -> Any:
        return Partial(f"d{self.name}/d{self.labels[key]}", real=True)

    def value_of(self, key: tuple) -> Any:
        node, nr = key
        if isinstance(node, AccumulateGrad):
            return symbol_array_of(node._leaf)
        return self.replay.values[key]

    def local(self, consumer: Node, i: int) -> tuple[Any, Any] | None:
        """d consumer / d input i as a formula in the named tensors, and as a number."""
        if not isinstance(consumer, ElementwiseNode):
            return None
        args = [self.replay.input(consumer, j) for j in range(len(consumer.next_functions))]
        if any(np.size(a) != 1 for a in args):
            return None
        prim = consumer.prim
        subs = {
            x: sp.sympify(np.asarray(a).flat[0], strict=True) for x, a in zip(prim.inputs, args)
        }
        subs.update({p: exact(v) for p, v in zip(prim.params, consumer._params)})
        formula = prim.local_derivatives[i].xreplace(subs)
        return formula, self.replay._evaluate(formula)

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
        for consumer, i in self.consumers[key]:
            ckey = (consumer, 0)
            if consumer not in useful or ckey not in closed:
                continue
            scalar = np.size(self.adjoint_values[ckey]) == 1
            local = self.local(consumer, i) if scalar else None
            if local is not None:
                formula, number = local
                terms.append([self.symbol_of(ckey), formula])
                numbers.append([self.adjoint_values[ckey], number])
                part_value = self.adjoint_values[ckey] * number
                part = closed[ckey] * self._inline(formula) if self.with_closed_forms else None
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
            suffix = f"[{', '.join(map(str, index))}]" if out.shape else ""
            g[index] = Partial(f"d{self.name}/d{self.labels[ckey]}{suffix}", real=True)
        contribution = np.asarray(self.replay._vjp(consumer, g, 0)[i], dtype=object)
        g_values = np.broadcast_to(np.asarray(self.adjoint_values[ckey], dtype=float), out.shape)
        self.replay._numeric_values.update({s: float(v) for s, v in zip(g.flat, g_values.flat)})
        part = None
        if self.with_closed_forms:
            g_closed = np.broadcast_to(np.asarray(closed[ckey], dtype=object), out.shape)
            swap = {s: c for s, c in zip(g.flat, g_closed.flat)}
            part = np.vectorize(
                lambda e: self._inline(sp.sympify(e, strict=True).xreplace(swap)), otypes=[object]
            )(contribution)
        number = self.replay._numeric(contribution)
        return to_sympy(contribution), part, number

    def _inline(self, e: Any) -> Any:
        """``e`` with the named intermediates replaced by their definitions (leaves only)."""
        if isinstance(e, np.ndarray):
            return np.vectorize(self._inline, otypes=[object])(e)
        definitions = self.replay.definitions
        for s, d in definitions[self._inlined_count :]:  # forward order: d uses earlier symbols
            self._inlined[s] = d.xreplace(self._inlined)
        self._inlined_count = len(definitions)
        return sp.sympify(e, strict=True).xreplace(self._inlined)

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
            for i, (fn, nr) in enumerate(node.next_functions):
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
                    Partial(f"d{self.labels[(n, 0)]}/d{self.labels[k]}", real=True)
                    for n, _, k in edges
                ]
            )
            formulas.append([f for f, _ in locals_])
            numbers.append([v for _, v in locals_])
        closed = None
        if self.with_closed_forms:
            closed = sum((sp.Mul(*[self._inline(f) for f in fs]) for fs in formulas), sp.Integer(0))
        value = sum(float(np.prod(ns)) for ns in numbers)
        return PathForm(self.symbol_of(target), symbols, formulas, numbers, closed, value)

    def _reaching(self, target: tuple) -> set:
        cache = self.__dict__.setdefault("_reach", {})
        if target not in cache:
            cache[target] = leading_to(self.order, self.deps, {target[0]})
        return cache[target]


def _shown(total: Any) -> Any:
    """A closed form for display: a SymPy expression, or a Matrix / Array for a tensor."""
    from symgrad.prim.sympy_xp import to_sympy

    if isinstance(total, np.ndarray):
        return to_sympy(total) if total.size != 1 else sp.sympify(total.flat[0], strict=True)
    return total


def _base_name(arr: Any) -> str | None:
    first = np.asarray(arr).flat[0] if np.size(arr) else None
    if isinstance(first, sp.Symbol):
        return first.name.partition("[")[0]
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


def derivation(y: Tensor, x: Any = None, *, name: str | None = None) -> Derivation:
    """The chain-rule steps from ``y`` back to the leaf ``x`` (or to every leaf).

    ``y`` must have one element. Intermediate tensors appear under their ``name`` when set
    (``u.name = "u"``), otherwise as ``v1``, ``v2``, ...; the output under ``name`` (default:
    its own name, or ``y``).

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
    label = name or y.name or output_name(y.grad_fn, y._output_nr) or "y"
    builder = _Builder(y, label)
    targets = _targets(builder, x)
    leaves = []
    for key in targets:
        leaves.append(
            LeafDerivation(builder.labels[key], builder.path_form(key), builder.steps_for(key))
        )
    values = {}
    for node in sorted(builder.order, key=lambda n: n._seq):
        if isinstance(node, AccumulateGrad):
            values[builder.labels[(node, 0)]] = node._leaf._data.copy()
    return Derivation(label, builder.replay.definitions, values, leaves)


def _targets(builder: _Builder, x: Any) -> list[tuple]:
    if x is None:  # every leaf, in the order the computation first used them
        leaves = [n for n in builder.order if isinstance(n, AccumulateGrad)]
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
