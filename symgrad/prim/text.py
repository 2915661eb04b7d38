"""The text primitives give for pictures and derivations: forward formulas and local
derivatives written in the tensors' names, and numbers and arrays shortened to fit a box.

Each primitive's ``text`` calls the writer for its kind with its parameters and the names the
picture gives the tensors; nothing here reads a graph node.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp
from symgrad.prim.exact import exact
from symgrad.tensor import Tensor

__all__ = [
    "elementwise_text",
    "structural_text",
    "COPIES",
    "matmul_text",
    "addmm_text",
    "getitem_text",
    "reduction_text",
    "function_text",
    "is_number",
    "number_text",
    "array_lines",
    "short",
]

# -- formulas: forward formulas and local derivatives in the tensors' names ------------------------


def elementwise_text(
    prim: Any, values: tuple, out: str, names: list, symbols: list, args: list
) -> tuple[list, list]:
    """An element-wise primitive with parameter ``values``: its formula and, per input, the
    local derivative (with its number when ``args`` give one element per operand)."""
    params = dict(zip(prim.params, map(exact, values), strict=True))
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
        if value is None or np.size(value) != 1 or not is_number(np.asarray(value).flat[0]):
            return {}
        at[x] = sp.Float(float(np.asarray(value).flat[0]))
    return at


def _evaluate(e: sp.Expr) -> str | None:
    try:
        return number_text(float(e))
    except (TypeError, ValueError):  # complex, or still symbolic (a kink's Heaviside)
        return None


def structural_text(
    primitive: Any, params: dict, shapes: list, out: str, names: list, symbols: list
) -> tuple[list, list]:
    """A structural ``primitive`` on inputs of ``shapes``: its formula and, per input, the
    rule of its derivative, as the primitive declares it (its ``text``): a writer function,
    ``COPIES`` (each output element is an input element), or a template of the derivative
    along ``dim``; without one, the generic ``name(inputs)`` and "(VJP of name)"."""
    if primitive.formula is not None:  # a fused loss: its element-wise formula, reduced
        return _loss_text(primitive.formula, out, names, symbols, params)
    rule, name = primitive.text_rule, primitive.name
    if callable(rule):
        return rule(out, names, shapes, params)
    if rule is not None and rule != COPIES:
        dim = _dims_text(params.get("dim"))
        return [f"{out} = {name}({names[0]}, dim={dim})"], [rule.format(o=out, x=names[0], dim=dim)]
    forward = [f"{out} = {name}({', '.join(names)}{_params_text(params)})"]
    if rule == COPIES:
        return forward, [f"∂{out}/∂{n} = 1 for each element it copies" for n in names]
    return forward, [f"∂{out}/∂{n} (VJP of {name})" for n in names]


COPIES = "copies"


def matmul_text(out: str, names: list, shapes: list, params: dict) -> tuple[list, list]:
    """``z = X @ W`` with its derivatives in index notation: ``∂z[i,j]/∂W[k,j] = X[i,k]``."""
    return _matmul_text(out, names, shapes)


def addmm_text(out: str, names: list, shapes: list, params: dict) -> tuple[list, list]:
    """``z = X @ Y + b`` (``addmm(b, X, Y)``, linear's node) with its derivatives in index
    notation: ``∂z[i,j]/∂b[j] = 1``."""
    forward, derivatives = _matmul_text(out, names[1:], shapes[1:])
    # the bias broadcasts over the rows (and over a size-1 dimension)
    index = ["i", "j"][2 - len(shapes[0]) :]
    b = _indexed(names[0], [i if n != 1 else "0" for i, n in zip(index, shapes[0])])
    return [f"{forward[0]} + {names[0]}"], [f"∂{out}[i,j]/∂{b} = 1", *derivatives]


def getitem_text(out: str, names: list, shapes: list, params: dict) -> tuple[list, list]:
    """``y = x[1:, 0]``: indexing copies the elements it picks."""
    forward = [f"{out} = {names[0]}{_key_text(params['key'])}"]
    return forward, [f"∂{out}/∂{names[0]} = 1 for each element it copies"]


def reduction_text(name: str) -> Any:
    """The text of the reduction ``name`` (sum or mean): each element's derivative."""

    def text(out: str, names: list, shapes: list, params: dict) -> tuple[list, list]:
        return _reduction_text(name, out, names[0], shapes[0], params)

    return text


def _matmul_text(out: str, names: list, shapes: list) -> tuple[list, list]:
    """``z = X @ W`` with its derivatives in index notation: ``∂z[i,j]/∂W[k,j] = X[i,k]``."""
    nx, ny = len(shapes[0]), len(shapes[1])
    nb = max(nx, ny, 2) - 2
    batch = ["b"] if nb == 1 else [f"b{n + 1}" for n in range(nb)]
    xi = batch[nb - max(nx - 2, 0) :] + (["i", "k"] if nx >= 2 else ["k"])
    yi = batch[nb - max(ny - 2, 0) :] + (["k", "j"] if ny >= 2 else ["k"])
    oi = batch + (["i"] if nx >= 2 else []) + (["j"] if ny >= 2 else [])
    o, x, y = _indexed(out, oi), _indexed(names[0], xi), _indexed(names[1], yi)
    forward = f"{out} = {names[0]} @ {names[1]}"
    derivatives = [f"∂{o}/∂{x} = {y}", f"∂{o}/∂{y} = {x}"]
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


def function_text(
    title: str, formula: tuple | None, outputs: list, outs: list, names: list, symbols: list
) -> tuple[list, list]:
    """A custom Function class called ``title``, with ``formula`` ``(input symbols, output
    formulas)`` from its ``symbolic`` method, or None when it has none."""
    if formula is None:
        return (
            [f"{o} = {title}({', '.join(names)})" for o in outs],
            [f"∂{outs[0]}/∂{n} (by {title}.backward)" for n in names],
        )
    xs, formulas = formula
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
    # (saved_as: the arguments as given, which only grad_fn._saved_<name> shows)
    shown = (kv for kv in params.items() if kv[0] != "saved_as")
    return "".join(f", {k}={short(_param_value(v))}" for k, v in shown)


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


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.number, np.bool_)) and not isinstance(v, np.datetime64)


def number_text(x: Any) -> str:
    if isinstance(x, (bool, np.bool_, int, np.integer)):
        return str(x)
    x = float(x)
    if not np.isfinite(x) or x == 0:
        return str(x).replace("0.0", "0")
    if abs(x) >= 1e5 or abs(x) < 1e-4:
        return f"{x:.4e}"
    return np.format_float_positional(x, precision=4, trim="-")


def array_lines(value: Any) -> list[str]:
    """A value as text lines: one number, one line, or aligned rows of a summarised array."""
    arr = np.asarray(value._data if isinstance(value, Tensor) else value)
    if arr.size == 1:
        return [number_text(arr.reshape(-1)[0])]
    text = np.array2string(
        arr,
        separator=", ",
        threshold=12,
        edgeitems=2,
        max_line_width=48,
        formatter={"float_kind": number_text},
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


def short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
