"""Pictures of recorded graphs: tensors, operations and the local derivative on every edge.

:func:`draw` turns the graph that produced a tensor into a :class:`GraphPicture`. Its DOT text
(``.source``) needs nothing beyond symgrad; rendering it to SVG, PNG or PDF uses the optional
``graphviz`` Python package and the Graphviz ``dot`` program (``pip install symgrad[viz]`` and
the system package, e.g. ``apt-get install graphviz``).
"""

from __future__ import annotations

import html
import pathlib
import unicodedata
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import sympy as sp

from symgrad._graph_text import array_lines, is_number, number_text, operation_text, short
from symgrad.autograd.function import FunctionCtx
from symgrad.autograd.grad_mode import no_grad
from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.prim.elementwise import ElementwiseNode
from symgrad.prim.structural import StructuralNode
from symgrad.prim.sympy_xp import exact
from symgrad.symbolic.names import _automatic_name, is_symbolic
from symgrad.symbolic.replay import _function_formula, backward_order, output_name
from symgrad.tensor import Tensor

__all__ = ["draw", "GraphPicture", "GraphvizNotFoundError"]

_RANKDIRS = ("BT", "TB", "LR", "RL")
_SUFFIX_FORMATS = ("svg", "png", "pdf")
_INSTALL = (
    "pip install 'symgrad[viz]' for the graphviz Python package, and the Graphviz system "
    "package for the dot program (e.g. apt-get install graphviz, brew install graphviz or "
    "conda install graphviz); .source holds the DOT text without either"
)
_COLORS = {
    "leaf": "#dbeafe",
    "intermediate": "#f3f4f6",
    "output": "#dcfce7",
    "constant": "#ffffff",
    "op": "#fef3c7",
}
_GRAD_COLOR, _DERIVATIVE_COLOR, _MUTED = "#b91c1c", "#1e3a8a", "#6b7280"


class GraphvizNotFoundError(RuntimeError):
    """Rendering needs the ``graphviz`` Python package and the Graphviz ``dot`` program.

    Examples
    --------
    >>> from symgrad.viz import GraphvizNotFoundError
    >>> issubclass(GraphvizNotFoundError, RuntimeError)
    True
    """


class GraphPicture:
    """A picture of a recorded graph, as DOT text that Graphviz renders.

    ``source`` is the DOT text; :meth:`pipe` and :meth:`render` run Graphviz on it, and Jupyter
    shows the picture through ``_repr_svg_``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.viz import draw
    >>> x = symgrad.tensor(3.0, requires_grad=True, name="x")
    >>> picture = draw(x * x)
    >>> picture.source.count(" -> ")  # x into the product twice, the product out to y
    3
    """

    def __init__(self, source: str, title: str, tensors: int, operations: int) -> None:
        self.source = source
        self._summary = (
            f"<GraphPicture of {title}: {_count(tensors, 'tensor')}, "
            f"{_count(operations, 'operation')}>"
        )

    def __repr__(self) -> str:
        return self._summary

    def pipe(self, format: str = "svg") -> bytes:
        """The picture rendered by Graphviz in ``format`` (``"svg"``, ``"png"``, ``"pdf"``...)."""
        try:
            import graphviz
        except ImportError:
            raise GraphvizNotFoundError(f"rendering needs Graphviz: {_INSTALL}") from None
        try:
            return graphviz.Source(self.source).pipe(format=format)
        except graphviz.ExecutableNotFound:
            raise GraphvizNotFoundError(
                f"rendering needs the Graphviz dot program, which is not on PATH: {_INSTALL}"
            ) from None

    def render(self, path: str | pathlib.Path, format: str | None = None) -> pathlib.Path:
        """Write the picture to ``path``; the format comes from its suffix unless given."""
        path = pathlib.Path(path)
        if format is None:
            format = path.suffix.lstrip(".").lower()
            if format not in _SUFFIX_FORMATS:
                raise ValueError(
                    f"can't tell the format of {str(path)!r} from its suffix: use .svg, .png or "
                    ".pdf, or pass format="
                )
        path.write_bytes(self.pipe(format))
        return path

    def _repr_svg_(self) -> str | None:
        # without Graphviz a notebook still shows the text repr, with the way to get pictures
        try:
            return self.pipe("svg").decode("utf-8")
        except GraphvizNotFoundError as err:
            warnings.warn(str(err), RuntimeWarning, stacklevel=2)
            return None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def draw(
    root: Tensor,
    *,
    values: bool = True,
    grads: bool = True,
    formulas: bool = True,
    names: Mapping[str, Tensor] | None = None,
    rankdir: str = "BT",
) -> GraphPicture:
    """A picture of the graph that produced ``root``.

    Tensors are boxes (leaves blue, intermediates grey, ``root`` green) showing their name,
    shape, value and ``.grad``; operations are ellipses showing PyTorch's node name and the
    forward formula; each edge from a tensor into an operation carries the local derivative
    of the operation's output with respect to that tensor (with its number when all operands
    have one element). Inputs that need no gradient are small dashed boxes.

    Parameters
    ----------
    root : the tensor whose graph is drawn.
    values : show each tensor's value (intermediate values are recomputed from the leaves).
    grads : show ``.grad`` where it is set (leaves after ``backward``, and ``retain_grad``).
    formulas : show forward formulas and the local derivatives on the edges.
    names : extra labels, ``{"w": w, "z": z}``; they win over the tensors' own names.
        Otherwise a tensor is called by its ``name``, a leaf by its symbol (``x_1``), an
        intermediate ``v1``, ``v2``, ... and ``root`` ``y``, as in
        :func:`symgrad.symbolic.derivation`.
    rankdir : the direction of the picture: ``"BT"`` (inputs at the bottom), ``"TB"``,
        ``"LR"`` or ``"RL"``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.viz import draw
    >>> a = symgrad.tensor(2.0, requires_grad=True, name="a")
    >>> b = symgrad.tensor(3.0, requires_grad=True, name="b")
    >>> y = a * b
    >>> y.backward()
    >>> picture = draw(y)
    >>> picture
    <GraphPicture of y: 3 tensors, 1 operation>
    >>> print(picture.source.splitlines()[0])
    digraph symgrad {
    >>> "∂y/∂a = b = 3" in picture.source
    True

    ``picture.render("graph.svg")`` writes the picture (this needs Graphviz).
    """
    if not isinstance(root, Tensor):
        raise TypeError(f"draw() expects a Tensor, got {type(root).__name__}")
    if rankdir not in _RANKDIRS:
        raise ValueError(f"draw(): rankdir must be one of {', '.join(_RANKDIRS)}, got {rankdir!r}")
    graph = _Graph(root, *_name_overrides(names))
    options = {"values": values, "grads": grads, "formulas": formulas}
    source = _dot(graph, options, rankdir)
    return GraphPicture(
        source,
        graph.boxes[graph.root_key].name,
        sum(b.kind != "constant" for b in graph.boxes.values()),
        len(graph.ops),
    )


# -- the graph: named tensors, operations, edges -----------------------------------------------


class _Box:
    """A tensor (or a constant input) in the picture."""

    def __init__(
        self,
        ident: str,
        name: str,
        kind: str,
        value: Any = None,
        grad: Any = None,
        symbol: Any = None,
    ) -> None:
        self.id, self.name, self.kind = ident, name, kind
        self.value, self.grad = value, grad
        self.symbol = sp.Symbol(name) if symbol is None else symbol  # what formulas call it


class _Graph:
    """Walks the graph of ``root`` forwards, naming tensors as the symbolic replay does."""

    def __init__(self, root: Tensor, overrides: dict, named: list) -> None:
        self.overrides = overrides
        self.boxes: dict[Any, _Box] = {}
        self.ops: list[tuple[str, Node, list, list]] = []  # (id, node, input keys, output keys)
        self.counters = {"v": 0, "const": 0}
        self.root_key = _key_of(root)
        self.known = _known_tensors(root, named)
        self.values: dict[Any, Any] = {}  # also when hidden: they give the shapes
        if root.grad_fn is None:
            self._leaf_box(root)
            return
        order = list(reversed(backward_order([root.grad_fn])))
        used = {self.root_key} | {e for n in order for e in n.next_functions if e[0] is not None}
        for node in order:
            if not isinstance(node, AccumulateGrad):
                self._add_operation(node, used, root)

    def _add_operation(self, node: Node, used: set, root: Tensor) -> None:
        inputs = [self._input(node, i) for i in range(len(node.next_functions))]
        outputs = []
        for nr in range(node.num_outputs):
            key = (node, nr)
            if key == self.root_key:
                name = self.overrides.get(key) or root.name or output_name(node, nr)
                taken = {b.name for b in self.boxes.values()}
                name = name or ("y" if "y" not in taken else self._next("v"))
            else:  # numbered even when not drawn, to keep derivation()'s numbering
                name = self.overrides.get(key) or output_name(node, nr) or self._next("v")
            if key in used:
                kind = "output" if key == self.root_key else "intermediate"
                t = self.known.get(key)
                self.boxes[key] = _Box(
                    f"t{len(self.boxes)}", name, kind, grad=None if t is None else t._grad
                )
                outputs.append(key)
        self.ops.append((f"op{len(self.ops)}", node, inputs, outputs))
        self._compute(node, inputs)

    def _next(self, prefix: str) -> str:
        self.counters[prefix] += 1
        return f"{prefix}{self.counters[prefix]}"

    def _input(self, node: Node, i: int) -> Any:
        fn, nr = node.next_functions[i]
        if isinstance(fn, AccumulateGrad):
            return self._leaf_box(fn._leaf)
        if fn is not None:
            return (fn, nr)
        const = node._consts[i] if i < len(node._consts) else None
        if isinstance(const, Tensor):
            return self._leaf_box(const)
        if const is None:  # an input the op did not keep: nothing to draw
            return None
        key = ("number", id(node), i)
        text = number_text(const) if is_number(const) else short(repr(const))
        symbol = exact(const) if is_number(const) else sp.Symbol(text)
        self.boxes[key] = _Box(f"k{len(self.boxes)}", text, "constant", const, symbol=symbol)
        self.values[key] = const
        return key

    def _leaf_box(self, t: Tensor) -> Any:
        key = _key_of(t)
        if key in self.boxes:
            return key
        # the automatic symbol is taken in the order the replay meets leaves, so it agrees
        own = (t._name or _automatic_name(t)) if is_symbolic(t) else None
        name = self.overrides.get(key) or own
        symbol = None
        if name is None and t.numel() == 1:  # an unnamed one-element constant is a number
            value = np.asarray(t._data).reshape(())[()]
            name, symbol = number_text(value), exact(value)
        name = name or self._next("const")
        kind = "leaf" if t._requires_grad else "constant"
        kind = "output" if key == self.root_key else kind
        self.boxes[key] = _Box(f"t{len(self.boxes)}", name, kind, t._data, t._grad, symbol)
        self.values[key] = t
        return key

    def _compute(self, node: Node, inputs: list) -> None:
        outputs = [k for k in ((node, nr) for nr in range(node.num_outputs)) if k in self.boxes]
        known = [self.known.get(k) for k in outputs]
        if all(t is not None for t in known):
            results = dict(zip(outputs, known, strict=True))
        else:
            args = [self.values.get(k) if k is not None else None for k in inputs]
            computed = None if any(a is None for a in args) else _recompute(node, args)
            results = {(node, nr): out for nr, out in enumerate(computed or ())}
        for key in outputs:
            value = results.get(key)
            if value is not None:
                value = value if isinstance(value, Tensor) else Tensor._make(np.asarray(value))
                self.values[key] = value
                self.boxes[key].value = value._data


def _key_of(t: Tensor) -> Any:
    return (t.grad_fn, t._output_nr) if t.grad_fn is not None else ("tensor", id(t))


def _name_overrides(names: Mapping[str, Tensor] | None) -> tuple[dict, list]:
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
        overrides[_key_of(t)] = label
    return overrides, list(names.values())


def _known_tensors(root: Tensor, named: list) -> dict:
    """Tensor objects we can read values and ``.grad`` from: ``root``, the ``names`` and the
    tensors that asked for ``retain_grad`` (their hook keeps a weak reference)."""
    known = {_key_of(root): root}
    nodes = backward_order([root.grad_fn]) if root.grad_fn is not None else []
    retained = [h.ref() for n in nodes for h in (n._retain_hooks or ()) if hasattr(h, "ref")]
    for t in retained + named:
        if t is not None and t.grad_fn is not None:
            known.setdefault(_key_of(t), t)
    return known


def _recompute(node: Node, args: list) -> tuple | None:
    """The outputs of ``node`` from its input values, without recording."""
    try:
        with no_grad():
            if isinstance(node, ElementwiseNode):
                return (node.prim(*args, params=node._params),)
            if isinstance(node, StructuralNode):
                return (node.prim(*args, **node._params),)
        if isinstance(node, FunctionCtx) and hasattr(node._function, "symbolic"):
            return _function_values(node, args)
    except (TypeError, ValueError, RuntimeError, IndexError):
        pass  # a value that can't be recomputed is left out of the picture, not fatal to it
    return None


def _function_values(node: FunctionCtx, args: list) -> tuple:
    """A custom Function's outputs from its ``symbolic`` formula, element by element (by
    substitution: generating code from a user's formula could splice in its symbol names)."""
    xs, outs = _function_formula(node, len(args))
    arrays = np.broadcast_arrays(
        *(np.asarray(a._data if isinstance(a, Tensor) else a) for a in args)
    )
    results = []
    for formula in outs:
        out = np.empty(arrays[0].shape if arrays else (), dtype=float)
        for index in np.ndindex(*out.shape):
            out[index] = float(
                formula.xreplace(
                    {x: sp.Float(float(a[index])) for x, a in zip(xs, arrays, strict=True)}
                )
            )
        results.append(out)
    return tuple(results)


# -- DOT ------------------------------------------------------------------------------------------


def _dot(graph: _Graph, options: dict, rankdir: str) -> str:
    lines = [
        "digraph symgrad {",
        f'  graph [rankdir={rankdir}, nodesep=0.6, ranksep=0.45, fontname="Helvetica"];',
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=10, arrowsize=0.7, color="#374151"];',
    ]
    lines += [_box_statement(box, options) for box in graph.boxes.values()]
    for ident, node, inputs, outputs in graph.ops:
        forward, derivatives = [], [None] * len(inputs)
        if options["formulas"]:
            forward, derivatives = operation_text(graph, node, inputs, outputs, options["values"])
        rows = [([node.name()], "bold")] + [([f], None) for f in forward]
        lines.append(
            f'  {ident} [shape=ellipse, style=filled, fillcolor="{_COLORS["op"]}", '
            f"label=<{_label(rows)}>];"
        )
        for key, derivative in zip(inputs, derivatives, strict=True):
            if key is not None:
                lines.append(_edge_statement(graph.boxes[key], ident, derivative))
        lines += [f"  {ident} -> {graph.boxes[key].id};" for key in outputs]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _box_statement(box: _Box, options: dict) -> str:
    if box.kind == "constant":
        rows = [([box.name], None)]
        shown = array_lines(box.value) if box.value is not None else [box.name]
        if options["values"] and shown != [box.name]:
            rows.append((shown, "block"))
        return (
            f'  {box.id} [shape=box, style="dashed,rounded", color="{_MUTED}", '
            f"fontsize=9, label=<{_label(rows)}>];"
        )
    rows = [([box.name], "bold")]
    details = [{"leaf": "leaf", "output": "output"}.get(box.kind, "")]
    if box.value is not None:
        details.append(f"shape {list(np.shape(box.value))}")
    if any(details):
        rows.append(([" · ".join(d for d in details if d)], "muted"))
    if options["values"] and box.value is not None:
        rows += _titled("value", array_lines(box.value), "block")
    if options["grads"] and box.grad is not None:
        rows += _titled("grad", array_lines(box.grad), "grad")
    extra = ", peripheries=2" if box.kind == "output" else ""
    return (
        f'  {box.id} [shape=box, style="rounded,filled", fillcolor="{_COLORS[box.kind]}"'
        f"{extra}, label=<{_label(rows)}>];"
    )


def _titled(title: str, lines: list, style: str) -> list:
    if len(lines) == 1:
        return [([f"{title} {lines[0]}"], style)]
    return [([title], style), (lines, style)]


def _edge_statement(box: _Box, op: str, derivative: str | None) -> str:
    attributes = []
    if box.kind == "constant":
        attributes.append(f'style=dashed, color="{_MUTED}"')
    if derivative is not None:
        attributes.append(f'fontcolor="{_DERIVATIVE_COLOR}", label=<{_html(derivative)}>')
    return f"  {box.id} -> {op}" + (f" [{', '.join(attributes)}]" if attributes else "") + ";"


def _label(rows: list) -> str:
    """An HTML-like label: a borderless table, one row per ``(lines, style)``, all escaped.

    Rows of several lines (arrays) are a left-aligned monospace block, so columns line up.
    """
    cells = []
    for lines, style in rows:
        text = "<BR/>".join(_html(line) for line in lines)
        if style == "bold":
            text = f"<B>{text}</B>"
        elif style == "muted":
            text = f'<FONT COLOR="{_MUTED}" POINT-SIZE="9">{text}</FONT>'
        elif style == "grad":
            text = f'<FONT COLOR="{_GRAD_COLOR}">{text}</FONT>'
        if len(lines) > 1:
            text = f'<FONT FACE="Courier">{text}</FONT>'
        align = ' BALIGN="LEFT"' if len(lines) > 1 else ""
        cells.append(f"<TR><TD{align}>{text}</TD></TR>")
    table = '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
    return f"{table}{''.join(cells)}</TABLE>"


def _html(text: str) -> str:
    """``text`` safe inside an HTML-like DOT label, shown as written.

    Control characters become visible escapes (``\\n``); backslashes are doubled because
    Graphviz expands ``\\N``, ``\\G``... even inside HTML-like labels; then HTML escaping.
    """
    shown = "".join(
        ascii(ch)[1:-1] if unicodedata.category(ch)[0] == "C" else ch for ch in str(text)
    )
    return html.escape(shown.replace("\\", "\\\\"), quote=True)
