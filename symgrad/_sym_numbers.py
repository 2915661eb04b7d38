"""PyTorch's ``sym_*`` helpers, which its tracing compiler overloads for symbolic sizes; on
plain Python numbers (symgrad's sizes are always plain ints) they are these small functions:
``sym_max``/``sym_min`` (a float if either is one), ``sym_float``, ``sym_int`` (truncating),
``sym_not``, ``sym_sqrt``, ``sym_sum`` and ``sym_ite`` (``t if b else f``).

Examples
--------
>>> import symgrad
>>> symgrad.sym_max(2, 3.0), symgrad.sym_int(-3.7), symgrad.sym_ite(True, 1, 2)
(3.0, -3, 1)
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

__all__ = [
    "sym_max",
    "sym_min",
    "sym_float",
    "sym_int",
    "sym_not",
    "sym_sqrt",
    "sym_sum",
    "sym_ite",
]

_NUMBERS = (int, float, np.integer, np.floating)


def _numbers(a: Any, b: Any) -> bool:
    """Whether either is a float (PyTorch's checks: each must be an int or a float)."""
    for value in (a, b):
        if not isinstance(value, _NUMBERS):
            # PyTorch's own check is an assertion
            raise AssertionError(
                f"expected (numpy.integer, numpy.floating, int, float), got {type(value)}"
            )
    return isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating))


def sym_max(a: Any, b: Any) -> Any:
    """The larger of two numbers, as a float when either is one (Python's ``max`` rules for
    ties and NaN: the first argument wins).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sym_max(2, 3), symgrad.sym_max(2.0, 3)
    (3, 3.0)
    """
    if _numbers(a, b):
        return builtins.float(builtins.max(a, b))
    return builtins.max(a, b)


def sym_min(a: Any, b: Any) -> Any:
    """The smaller of two numbers, as a float when either is one.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sym_min(2, 3), symgrad.sym_min(2, 3.0)
    (2, 2.0)
    """
    if _numbers(a, b):
        return builtins.float(builtins.min(a, b))
    return builtins.min(a, b)


def sym_float(a: Any) -> float:
    """``float(a)``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sym_float(3)
    3.0
    """
    return builtins.float(a)


def sym_int(a: Any) -> int:
    """``int(a)``: a float truncated toward zero.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sym_int(3.7), symgrad.sym_int(-3.7)
    (3, -3)
    """
    return builtins.int(a)


def sym_not(a: Any) -> bool:
    """``not a``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sym_not(True), symgrad.sym_not(0)
    (False, True)
    """
    return not a


def sym_sqrt(a: Any) -> float:
    """``math.sqrt(a)`` (a ValueError below 0, as Python's).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sym_sqrt(4)
    2.0
    """
    return math.sqrt(a)


def sym_sum(*args: Any) -> Any:
    """The sum of the numbers, given one by one or as one list or tuple.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sym_sum([1, 2, 3]), symgrad.sym_sum(1.5, 2)
    (6, 3.5)
    """
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    return builtins.sum(args)


def sym_ite(b: bool, t: Any, f: Any) -> Any:
    """``t if b else f``, for a bool ``b`` and ``t``, ``f`` of one type.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.sym_ite(False, 1, 2)
    2
    """
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f
