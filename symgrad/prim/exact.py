"""Numbers as SymPy: exact where they are exact, so closed forms show ``1/2`` rather than
``0.5`` (SymPy is loaded on first use)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from symgrad._lazy import sympy as sp

__all__ = ["exact"]

_SHORT = re.compile(r"^-?\d*\.?\d*(e[-+]?\d+)?$")


def exact(value: Any, as_float: bool = False) -> Any:
    """A number as SymPy: exact for integers and short decimals, a ``Float`` otherwise."""
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, (bool, np.bool_)):
        return sp.Integer(int(value))
    if isinstance(value, (int, np.integer)):
        return sp.Integer(int(value))
    v = value if isinstance(value, np.floating) else np.float64(value)
    if not np.isfinite(v):
        return sp.nan if np.isnan(v) else (sp.oo if v > 0 else -sp.oo)
    if float(v).is_integer() and abs(v) < 2**53 and not as_float:
        return sp.Integer(int(v))
    text = repr(float(v)) if isinstance(v, np.float64) else str(v)
    digits = text.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
    if not as_float and _SHORT.match(text) and len(digits) <= 6:
        return sp.Rational(text)
    return sp.Float(float(v), 15)
