"""NumPy kernels from SymPy formulas: the one place that calls ``sympy.lambdify``.

Element-wise primitives build their forward and fused VJP kernels here (once per primitive,
lazily), and so does the code generation of :mod:`symgrad.symbolic`. The arguments are always
symbols the package made itself, never text from a user.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp

__all__ = ["lambdify", "MODULES"]


def _erf(x: Any) -> Any:
    try:
        from scipy.special import erf
    except ImportError:  # scipy is optional: fall back to the exact math.erf, one element at a time
        erf = np.vectorize(math.erf, otypes=[np.float64])
    return erf(x)


# what the generated code calls: NumPy, plus erf and a two-branch select
MODULES = [{"erf": _erf, "select_where": np.where}, "numpy"]


def _as_where(*pairs: Any) -> Any:
    """A Piecewise as nested ``where`` calls: NumPy's ``select``, which SymPy prints for
    Piecewise, is several times slower for the two or three branches our ops have."""
    select_where = sp.Function("select_where")
    *rest, (last, last_cond) = pairs
    out = last if last_cond == sp.true else select_where(last_cond, last, sp.nan)
    for e, c in reversed(rest):
        out = select_where(c, e, out)
    return out


def lambdify(args: Sequence[Any], expr: Any, *, cse: Any = True, where: bool = True) -> Callable:
    """A NumPy function computing ``expr`` (one expression or a list) from ``args``.

    ``cse`` is SymPy's (True, or a function doing the elimination); with ``where``, Piecewise
    branches become nested ``where`` calls (the kernels' choice; generated source keeps
    SymPy's own printing).
    """
    if where:
        if isinstance(expr, (list, tuple)):
            expr = [sp.sympify(e, strict=True).replace(sp.Piecewise, _as_where) for e in expr]
        else:
            expr = sp.sympify(expr, strict=True).replace(sp.Piecewise, _as_where)
    return sp.lambdify(args, expr, modules=MODULES, cse=cse, docstring_limit=0)
