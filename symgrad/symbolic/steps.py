"""A chain-rule derivation as a record of steps, and how it reads as text, Markdown and LaTeX.

:func:`symgrad.symbolic.derivation` records the steps; this module holds what it records
(:class:`Derivation`, :class:`Step`, :class:`PathForm`) and renders them.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from symgrad._symbol_names import latex_name, markdown_math, visible

__all__ = ["Derivation", "Step", "PathForm", "LeafDerivation", "Partial", "Operand"]


class Partial(sp.Symbol):
    """The symbol ``de/dv`` for an adjoint; LaTeX ``\\frac{\\partial e}{\\partial v}``.

    ``Partial(top, bottom, index)`` is the derivative of ``top`` by ``bottom`` (by its element
    ``index`` when given); ``slot`` tells apart the operands of an op that uses ``bottom``
    twice (``x*x``): ``dy/dx (operand 1)``. The names are kept apart, so they may hold any
    character.

    Examples
    --------
    >>> from symgrad.symbolic.steps import Partial
    >>> d = Partial("e", "w", (0, 1))
    >>> d, d.bottom, d.index
    (de/dw[0, 1], 'w', ('0', '1'))
    """

    __slots__ = ("top", "bottom", "index", "slot")

    def __new__(
        cls, top: str, bottom: str, index: tuple = (), slot: int = 0, **assumptions: Any
    ) -> Partial:
        index = tuple(str(i) for i in index)
        suffix = f"[{', '.join(index)}]" if index else ""
        suffix += f" (operand {slot})" if slot else ""
        cls._sanitize(assumptions, cls)
        obj = sp.Symbol.__xnew__(cls, f"d{top}/d{bottom}{suffix}", **assumptions)
        obj.top, obj.bottom, obj.index, obj.slot = top, bottom, index, slot
        return obj

    def __getnewargs_ex__(self) -> tuple:
        return ((self.top, self.bottom, self.index, self.slot), self._assumptions_orig)

    def _hashable_content(self) -> tuple:
        return super()._hashable_content() + (self.top, self.bottom, self.index, self.slot)

    def _latex(self, printer: Any) -> str:
        bottom = latex_name(self.bottom, printer)
        if self.index:
            bottom = f"{{{bottom}}}_{{{','.join(self.index)}}}"
        text = rf"\frac{{\partial {latex_name(self.top, printer)}}}{{\partial {bottom}}}"
        return rf"\left.{text}\right|_{{\text{{operand {self.slot}}}}}" if self.slot else text

    def _sympystr(self, printer: Any) -> str:
        return visible(self.name)


@dataclass(frozen=True)
class Operand:
    """A local derivative for one operand slot of an op that uses the same tensor in several
    (``x*x``): prints ``x [operand 1]``, in LaTeX with the slot under it."""

    formula: Any
    slot: int


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
    """One leaf's derivative: the chain rule over paths (None when there are too many), the
    steps from the output back, and the result in the inputs' symbols (None when long)."""

    leaf: str
    path_form: PathForm | None
    steps: list
    result: Any = None


_DIGITS_SHOWN: ContextVar[int] = ContextVar("digits", default=6)


def _at_its_precision(render: Any) -> Any:
    """A rendering method that shows numbers to the derivation's ``digits``."""

    @functools.wraps(render)
    def rendered(self: Derivation) -> str:
        token = _DIGITS_SHOWN.set(self.digits)
        try:
            return render(self)
        finally:
            _DIGITS_SHOWN.reset(token)

    return rendered


class Derivation:
    """The chain-rule derivation of ``d output / d leaf`` for one leaf or several.

    Renders as plain text (``str``), Markdown (``.markdown()``) and LaTeX (``.latex()``, an
    ``aligned`` block); in Jupyter it shows as LaTeX.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import derivation
    >>> x = symgrad.tensor(3.0, requires_grad=True, name="x")
    >>> story = derivation(symgrad.sin(x * x))
    >>> [str(symbol) for symbol, _ in story.definitions]
    ['v1', 'y']
    >>> story.leaves[0].steps[-1].value == story.leaves[0].path_form.value
    True
    >>> print(str(story).splitlines()[1])
      v1 = x**2
    """

    def __init__(
        self,
        output: str,
        definitions: list,
        values: dict,
        leaves: list[LeafDerivation],
        digits: int = 6,
    ) -> None:
        self.output = output
        self.definitions = definitions
        self.values = values
        self.leaves = leaves
        self.digits = digits  # significant digits of every number shown

    # -- plain text -------------------------------------------------------------------------------
    def __str__(self) -> str:
        return self._text()

    @_at_its_precision
    def _text(self) -> str:
        at = ", ".join(f"{visible(k)} = {_number(v)}" for k, v in self.values.items())
        lines = [f"Forward ({at}):" if at else "Forward:"]
        lines += [f"  {s} = {_rounded(e)}" for s, e in self.definitions]
        for leaf in self.leaves:
            lines.append("")
            lines.append(visible(f"d{self.output}/d{leaf.leaf}:"))
            if leaf.path_form is not None:
                lines.append("  " + _path_text(leaf.path_form))
            elif leaf.result is not None:
                last = leaf.steps[-1]
                lines.append(f"  {last.symbol} = {_text(leaf.result)} = {_number(last.value)}")
            lines.append("  steps, from the output back:")
            lines += [f"    {_step_text(step)}" for step in leaf.steps]
        return "\n".join(lines)

    __repr__ = __str__

    # -- Markdown ---------------------------------------------------------------------------------
    def markdown(self) -> str:
        """Markdown with the formulas in ``$...$``: the forward steps at the inputs' values,
        then each derivative under its own heading."""
        return self._markdown()

    def _at_latex(self) -> str:
        return r",\ ".join(f"{_md(k)} = {_number(v)}" for k, v in self.values.items())

    @_at_its_precision
    def _markdown(self) -> str:
        at = self._at_latex()
        lines = [f"**Forward** at ${markdown_math(at)}$" if at else "**Forward**", ""]
        lines += [f"- ${markdown_math(sp.latex(s))} = {_md(e)}$" for s, e in self.definitions]
        for leaf in self.leaves:
            lines += ["", f"**Derivative with respect to ${_md(leaf.leaf)}$**", ""]
            if leaf.path_form is not None or leaf.result is not None:
                lines.append(f"$${markdown_math(_headline_latex(leaf))}$$")
                lines.append("")
            lines += [f"1. ${markdown_math(_step_latex(step))}$" for step in leaf.steps]
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.markdown()

    # -- LaTeX ------------------------------------------------------------------------------------
    def latex(self) -> str:
        """An ``aligned`` block: the forward definitions at the inputs' values, then each
        leaf's chain rule under its own heading."""
        return self._latex()

    @_at_its_precision
    def _latex(self) -> str:
        at = self._at_latex()
        rows = [r"&\textbf{Forward}" + (rf"\quad {at}" if at else "")]
        rows += [f"{sp.latex(s)} &= {sp.latex(_rounded(e))}" for s, e in self.definitions]
        for leaf in self.leaves:
            rows.append(rf"&\textbf{{Derivative with respect to }} {_md(leaf.leaf)}")
            if leaf.path_form is not None or leaf.result is not None:
                rows.append(_headline_latex(leaf, aligned=True))
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
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.{_DIGITS_SHOWN.get()}g}"


def _rounded(e: Any) -> Any:
    """``e`` with its decimal constants shown to the derivation's precision."""
    if not isinstance(e, sp.Basic):
        return e
    floats = e.atoms(sp.Float)
    if not floats:
        return e
    digits = _DIGITS_SHOWN.get()
    return e.xreplace({f: sp.Float(f"{float(f):.{digits}g}", digits) for f in floats})


def _is_negative(e: Any) -> bool:
    if isinstance(e, Operand):
        return _is_negative(e.formula)
    if isinstance(e, np.ndarray):
        return False
    if isinstance(e, (int, float, np.number)):
        return float(e) < 0
    return sp.sympify(e, strict=True).could_extract_minus_sign()


def _text(e: Any, factor: bool = False) -> str:
    if isinstance(e, Operand):
        return f"{_text(e.formula, factor)} [operand {e.slot}]"
    if isinstance(e, (int, float, np.number, np.ndarray)):
        text = _number(e)
    else:
        text = str(_rounded(e))
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
    return None if closed is None else str(_rounded(closed))


def _closed_latex(closed: Any) -> str | None:
    return None if closed is None else sp.latex(_rounded(closed))


def _dedupe(parts: list) -> list:
    out = []
    for p in parts:
        if p is None:
            continue
        if not out or out[-1].split(" = ")[-1] != p:
            out.append(p)
    return out


def _md(e: Any) -> str:
    """LaTeX for Markdown's ``$...$`` of a name or an expression."""
    return markdown_math(latex_name(e) if isinstance(e, str) else sp.latex(_rounded(e)))


def _latex_of(e: Any, factor: bool = False) -> str:
    if isinstance(e, Operand):
        return rf"\underbrace{{{_latex_of(e.formula, factor)}}}_{{\text{{operand {e.slot}}}}}"
    if isinstance(e, (int, float, np.number, np.ndarray)):
        text = _number(e)
    else:
        text = sp.latex(_rounded(e))
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


def _headline_latex(leaf: LeafDerivation, aligned: bool = False) -> str:
    """The derivative in one line: the chain rule over paths, else the result."""
    if leaf.path_form is not None:
        return _path_latex(leaf.path_form, aligned)
    last = leaf.steps[-1]
    eq = "&=" if aligned else "="
    parts = [_latex_of(leaf.result), _number(last.value)]
    return f"{sp.latex(last.symbol)} {eq} " + " = ".join(parts)


def _path_latex(form: PathForm, aligned: bool = False) -> str:
    eq = "&=" if aligned else "="
    parts = [
        _latex_sum(form.paths),
        _latex_sum(form.formulas),
        _closed_latex(form.closed_form),
        _number(form.value),
    ]
    return f"{sp.latex(form.symbol)} {eq} " + " = ".join(_dedupe(parts))
