"""LaTeX for closed forms: of SymPy objects, assignment forms and tensors."""

from __future__ import annotations

from typing import Any

from symgrad.symbolic.calculus import expression
from symgrad.symbolic.printing import latex_of
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
        closed = {k: options.pop(k) for k in ("cse", "simplify", "as_float") if k in options}
        obj = expression(obj, **closed)
    return latex_of(obj, **options)
