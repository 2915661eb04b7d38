"""LaTeX of closed forms as people write them, and result containers that show as LaTeX in
Jupyter."""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.printing.latex import LatexPrinter

__all__ = ["latex_of", "Results", "Blocks", "Assignments"]


class _Printer(LatexPrinter):
    """SymPy's LaTeX, with matrix forms as people write them: a scalar factor in front without
    brackets (``\\frac{1}{3} X^{T} ...``) and subtracted terms last."""

    def _print_MatMul(self, expr: Any) -> str:
        scale = sp.Mul(*[a for a in expr.args if not isinstance(a, sp.MatrixExpr)])
        matrices = [a for a in expr.args if isinstance(a, sp.MatrixExpr)]
        if scale == 1 or not matrices:
            return super()._print_MatMul(expr)
        rest = super()._print_MatMul(sp.MatMul(*matrices)) if len(matrices) > 1 else None
        if rest is None:
            rest = self.parenthesize(matrices[0], sp.printing.precedence.PRECEDENCE["Mul"], False)
        sign, scale = ("- ", -scale) if scale.could_extract_minus_sign() else ("", scale)
        head = "" if scale == 1 else self._print(scale) + " "
        return sign + head + rest

    def _print_MatAdd(self, expr: Any) -> str:
        # the terms that subtract last: 1 - tanh(W x)^2, not -tanh(W x)^2 + 1
        terms = sorted(expr.args, key=lambda t: bool(t.could_extract_minus_sign()))
        text = self._print(terms[0])
        for t in terms[1:]:
            if t.could_extract_minus_sign():
                text += " - " + self.parenthesize(-t, sp.printing.precedence.PRECEDENCE["Add"])
            else:
                text += " + " + self.parenthesize(t, sp.printing.precedence.PRECEDENCE["Add"])
        return text


def _latex(obj: Any, **options: Any) -> str:
    return _Printer(options).doprint(obj)


def latex_of(obj: Any, **options: Any) -> str:
    """LaTeX of a SymPy object or of a ``(replacements, expressions)`` pair (an ``aligned``
    block)."""
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], list):
        replacements, exprs = obj
        if isinstance(exprs, tuple):
            exprs = list(exprs)
        lines = [f"{_latex(s, **options)} &= {_latex(e, **options)}" for s, e in replacements]
        items = exprs if isinstance(exprs, list) else [exprs]
        lines += [f"&{_latex(e, **options)}" for e in items]
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"
    return _latex(obj, **options)


class Results(list):
    """Closed forms of several inputs (``gradient(y, [w, b])``): a list that shows as LaTeX in
    Jupyter.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import gradient
    >>> a = symgrad.tensor(2.0, requires_grad=True, name="a")
    >>> b = symgrad.tensor(3.0, requires_grad=True, name="b")
    >>> found = gradient(a * b, [a, b])
    >>> found
    [b, a]
    >>> print(found._repr_latex_())
    $\\displaystyle \\left[ b, \\  a\\right]$
    """

    def _repr_latex_(self) -> str:
        items = r", \  ".join(latex_of(e) if e is not None else r"\text{None}" for e in self)
        return rf"$\displaystyle \left[ {items}\right]$"


class Blocks(tuple):
    """Blocks of a Jacobian or Hessian for several inputs, as PyTorch's functional API returns
    them (a tuple; of tuples for a Hessian), shown as LaTeX in Jupyter."""

    def _repr_latex_(self) -> str:
        def one(block: Any) -> str:
            if isinstance(block, tuple):
                return r"\left( " + r", \  ".join(one(b) for b in block) + r"\right)"
            return latex_of(block)

        return rf"$\displaystyle {one(tuple(self))}$"


class Assignments(tuple):
    """``(replacements, result)`` in assignment form (``cse=True``): a pair that shows as an
    ``aligned`` block of LaTeX in Jupyter."""

    def _repr_latex_(self) -> str:
        return f"$$\n{latex_of(self)}\n$$"
