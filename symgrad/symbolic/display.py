"""LaTeX for closed forms."""

from __future__ import annotations

from typing import Any

import sympy as sp

from symgrad.tensor import Tensor

__all__ = ["latex"]


def latex(obj: Any, **options: Any) -> str:
    """LaTeX of a SymPy object, of a ``(replacements, expressions)`` pair, or of a tensor's
    closed form.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import latex
    >>> w = symgrad.tensor([1.0, 2.0], requires_grad=True, name="w")
    >>> latex((w * w).sum())
    'w_{0}^{2} + w_{1}^{2}'
    """
    if isinstance(obj, Tensor):
        from symgrad.symbolic.calculus import expression

        closed = {k: options.pop(k) for k in ("cse", "simplify", "as_float") if k in options}
        obj = expression(obj, **closed)
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], list):
        replacements, exprs = obj
        lines = [f"{sp.latex(s, **options)} &= {sp.latex(e, **options)}" for s, e in replacements]
        items = exprs if isinstance(exprs, list) else [exprs]
        lines += [f"&{sp.latex(e, **options)}" for e in items]
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"
    return sp.latex(obj, **options)
