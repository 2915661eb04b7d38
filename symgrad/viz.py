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

from symgrad.autograd.function import FunctionCtx
from symgrad.autograd.grad_mode import no_grad
from symgrad.autograd.node import AccumulateGrad, Node
from symgrad.ops._elementwise_primitive import ElementwiseNode
from symgrad.ops._structural_primitive import StructuralNode
from symgrad.ops.sx import exact
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
        text = _number_text(const) if _is_number(const) else _short(repr(const))
        symbol = exact(const) if _is_number(const) else sp.Symbol(text)
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
            name, symbol = _number_text(value), exact(value)
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


# -- formulas: forward formulas and local derivatives in the tensors' names ------------------------


def _operation_text(
    graph: _Graph, node: Node, inputs: list, outputs: list, numbers: bool
) -> tuple[list, list]:
    """The forward formula lines of ``node`` and, per input, its edge's derivative label."""
    names = [graph.boxes[k].name if k is not None else "?" for k in inputs]
    symbols = [graph.boxes[k].symbol if k is not None else None for k in inputs]
    outs = [graph.boxes[k].name for k in outputs] or ["?"]
    if isinstance(node, ElementwiseNode):
        args = [graph.values.get(k) for k in inputs] if numbers else []
        forward, derivatives = _elementwise_text(node, outs[0], names, symbols, args)
    elif isinstance(node, StructuralNode):
        forward, derivatives = _structural_text(node, outs[0], names, symbols)
    elif isinstance(node, FunctionCtx):
        forward, derivatives = _function_text(node, outputs, outs, names, symbols)
    else:
        forward, derivatives = [], []
    derivatives = (list(derivatives) + [None] * len(inputs))[: len(inputs)]
    # no gradient flows into an input that needs none, so its edge has no derivative
    return forward, [
        d if fn is not None else None
        for d, (fn, _) in zip(derivatives, node.next_functions, strict=True)
    ]


def _elementwise_text(
    node: ElementwiseNode, out: str, names: list, symbols: list, args: list
) -> tuple[list, list]:
    prim = node.prim
    params = dict(zip(prim.params, map(exact, node._params), strict=True))
    rename = {**params, **_renaming(prim.inputs, symbols)}
    at = _scalar_point(prim.inputs, args) if args else {}
    derivatives = []
    for i, partial in enumerate(prim.local_derivatives):
        partial = partial.xreplace(params)
        shown = partial.xreplace(rename)
        text = f"∂{out}/∂{names[i]} = {shown}"
        number = _evaluate(partial.xreplace(at)) if at and not shown.is_Number else None
        derivatives.append(text if number is None else f"{text} = {number}")
    return [f"{out} = {prim.expr.xreplace(rename)}"], derivatives


def _scalar_point(xs: tuple, args: list) -> dict:
    """``{x: value}`` when every operand has one element (a derivative then has one number)."""
    at: dict = {}
    for x, a in zip(xs, args, strict=False):
        value = a._data if isinstance(a, Tensor) else a
        if value is None or np.size(value) != 1 or not _is_number(np.asarray(value).flat[0]):
            return {}
        at[x] = sp.Float(float(np.asarray(value).flat[0]))
    return at


def _evaluate(e: sp.Expr) -> str | None:
    try:
        return _number_text(float(e))
    except (TypeError, ValueError):  # complex, or still symbolic (a kink's Heaviside)
        return None


def _structural_text(
    node: StructuralNode, out: str, names: list, symbols: list
) -> tuple[list, list]:
    prim, params = node.prim.name, node._params
    shapes = [m[0] for m in node._meta]
    if prim in ("matmul", "linear"):
        return _matmul_text(out, names, shapes, transposed=prim == "linear")
    if prim in ("sum", "mean"):
        return _reduction_text(prim, out, names[0], shapes[0], params)
    if prim in _loss_prims():
        return _loss_text(_loss_prims()[prim], out, names, symbols, params)
    if prim in _SOFTMAX_RULES:
        dim = _dims_text(params.get("dim"))
        forward = f"{out} = {prim}({names[0]}, dim={dim})"
        return [forward], [_SOFTMAX_RULES[prim].format(o=out, x=names[0], dim=dim)]
    forward = (
        f"{out} = {names[0]}{_key_text(params['key'])}"
        if prim == "getitem"
        else (f"{out} = {prim}({', '.join(names)}{_params_text(params)})")
    )
    rule = "1 for each element it copies" if prim in _COPIES else f"(VJP of {prim})"
    joiner = " = " if prim in _COPIES else " "
    return [forward], [f"∂{out}/∂{n}{joiner}{rule}" for n in names]


_COPIES = {
    "view",
    "t",
    "transpose",
    "permute",
    "unsqueeze",
    "squeeze",
    "expand",
    "flip",
    "clone",
    "copy",
    "to_dtype",
    "getitem",
    "cat",
    "gather",
    "sum_to_size",
}
_SOFTMAX_RULES = {
    "softmax": "∂{o}[i]/∂{x}[j] = {o}[i]·(δij − {o}[j]) along dim {dim}",
    "log_softmax": "∂{o}[i]/∂{x}[j] = δij − exp({o}[j]) along dim {dim}",
    "logsumexp": "∂{o}/∂{x}[j] = exp({x}[j] − {o}) along dim {dim}",
}


def _matmul_text(out: str, names: list, shapes: list, transposed: bool) -> tuple[list, list]:
    """``z = X @ W`` with its derivatives in index notation: ``∂z[i,j]/∂W[k,j] = X[i,k]``."""
    nx, ny = len(shapes[0]), len(shapes[1])
    nb = max(nx, ny, 2) - 2
    batch = ["b"] if nb == 1 else [f"b{n + 1}" for n in range(nb)]
    xi = batch[nb - max(nx - 2, 0) :] + (["i", "k"] if nx >= 2 else ["k"])
    yi = batch[nb - max(ny - 2, 0) :] + (
        (["j", "k"] if transposed else ["k", "j"]) if ny >= 2 else ["k"]
    )
    oi = batch + (["i"] if nx >= 2 else []) + (["j"] if ny >= 2 else [])
    o, x, y = _indexed(out, oi), _indexed(names[0], xi), _indexed(names[1], yi)
    forward = f"{out} = {names[0]} @ {names[1]}{'ᵀ' if transposed else ''}"
    derivatives = [f"∂{o}/∂{x} = {y}", f"∂{o}/∂{y} = {x}"]
    if len(names) > 2:  # linear's bias
        forward += f" + {names[2]}"
        derivatives.append(f"∂{o}/∂{names[2]}[j] = 1")
    return [forward], derivatives


def _indexed(name: str, index: list) -> str:
    return f"{name}[{','.join(index)}]" if index else name


def _reduction_text(prim: str, out: str, x: str, shape: tuple, params: dict) -> tuple:
    dim = params.get("dim")
    dims = range(len(shape)) if dim is None else [d % max(len(shape), 1) for d in _tuple(dim)]
    count = int(np.prod([shape[d] for d in dims])) if shape else 1
    args = "" if dim is None else f", dim={_dims_text(dim)}"
    args += ", keepdim=True" if params.get("keepdim") else ""
    factor = "1" if prim == "sum" else str(sp.Rational(1, max(count, 1)))
    return [f"{out} = {prim}({x}{args})"], [f"∂{out}/∂{x} = {factor} for each element"]


def _loss_prims() -> dict:
    """The element-wise formulas of the fused losses, by name (a fused node has its name)."""
    from symgrad.ops import losses
    from symgrad.ops._elementwise_primitive import Elementwise

    return {p.name: p for p in vars(losses).values() if isinstance(p, Elementwise)}


def _loss_text(prim: Any, out: str, names: list, symbols: list, params: dict) -> tuple:
    """A fused loss: the element-wise formula, weighted and reduced, and its derivatives."""
    rename = _renaming(prim.inputs, symbols)
    weighted = params.get("weight") is not None
    body = str(prim.expr.xreplace(rename))
    body = f"weight·({body})" if weighted else body
    reduction = params.get("reduction", "mean")
    forward = body if reduction == "none" else f"{reduction}({body})"
    count = max(int(np.prod(params.get("shape", ()))), 1)
    derivatives = []
    for i, partial in enumerate(prim.local_derivatives[: len(names)]):
        text = str(partial.xreplace(rename))
        text = f"weight·({text})" if weighted else text
        text = f"({text})/{count}" if reduction == "mean" and count > 1 else text
        derivatives.append(f"∂{out}/∂{names[i]} = {text}")
    return [f"{out} = {forward}"], derivatives


def _function_text(
    node: FunctionCtx, outputs: list, outs: list, names: list, symbols: list
) -> tuple[list, list]:
    cls = node._function
    if not hasattr(cls, "symbolic"):
        return (
            [f"{o} = {cls.__name__}({', '.join(names)})" for o in outs],
            [f"∂{outs[0]}/∂{n} (by {cls.__name__}.backward)" for n in names],
        )
    xs, formulas = _function_formula(node, len(names))
    rename = _renaming(xs, symbols)
    drawn = [(o, formulas[nr]) for o, (_, nr) in zip(outs, outputs, strict=False)]
    forward = [f"{o} = {f.xreplace(rename)}" for o, f in drawn]
    derivatives = [
        "; ".join(f"∂{o}/∂{n} = {sp.diff(f, x).xreplace(rename)}" for o, f in drawn)
        for n, x in zip(names, xs, strict=True)
    ]
    return forward, derivatives


def _renaming(xs: tuple, symbols: list) -> dict:
    """The node's own input symbols -> what the picture calls its inputs."""
    return {x: s for x, s in zip(xs, symbols, strict=False) if s is not None}


def _tuple(dim: Any) -> tuple:
    return tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)


def _dims_text(dim: Any) -> str:
    dims = _tuple(dim)
    return str(dims[0]) if len(dims) == 1 else str(dims)


def _params_text(params: dict) -> str:
    return "".join(f", {k}={_short(_param_value(v))}" for k, v in params.items())


def _param_value(v: Any) -> str:
    if isinstance(v, np.ndarray):
        return f"array{list(v.shape)}"
    return repr(v)


def _key_text(key: Any) -> str:
    parts = []
    for k in _tuple(key):
        if isinstance(k, slice):
            text = ":".join("" if p is None else str(p) for p in (k.start, k.stop, k.step))
            parts.append(text[:-1] if text.endswith(":") and k.step is None else text)
        elif k is Ellipsis:
            parts.append("...")
        elif isinstance(k, (np.ndarray, Tensor)):
            parts.append(f"index{list(k.shape)}")
        else:
            parts.append(repr(k))
    return f"[{', '.join(parts)}]"


# -- numbers ---------------------------------------------------------------------------------------


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.number, np.bool_)) and not isinstance(v, np.datetime64)


def _number_text(x: Any) -> str:
    if isinstance(x, (bool, np.bool_, int, np.integer)):
        return str(x)
    x = float(x)
    if not np.isfinite(x) or x == 0:
        return str(x).replace("0.0", "0")
    if abs(x) >= 1e5 or abs(x) < 1e-4:
        return f"{x:.4e}"
    return np.format_float_positional(x, precision=4, trim="-")


def _array_lines(value: Any) -> list[str]:
    """A value as text lines: one number, one line, or aligned rows of a summarised array."""
    arr = np.asarray(value._data if isinstance(value, Tensor) else value)
    if arr.size == 1:
        return [_number_text(arr.reshape(-1)[0])]
    text = np.array2string(
        arr,
        separator=", ",
        threshold=12,
        edgeitems=2,
        max_line_width=48,
        formatter={"float_kind": _number_text},
    )
    if "\n" not in text:
        return [text]
    # several lines: NumPy's own layout, whose columns line up in a monospace font
    return np.array2string(
        arr,
        separator=", ",
        threshold=12,
        edgeitems=2,
        max_line_width=48,
        precision=4,
        suppress_small=True,
    ).splitlines()


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
            forward, derivatives = _operation_text(graph, node, inputs, outputs, options["values"])
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
        shown = _array_lines(box.value) if box.value is not None else [box.name]
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
        rows += _titled("value", _array_lines(box.value), "block")
    if options["grads"] and box.grad is not None:
        rows += _titled("grad", _array_lines(box.grad), "grad")
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
