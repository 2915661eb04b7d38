"""The symbols a tensor stands for in closed forms.

A tensor with a ``name`` is a symbol (``a``), or an array of indexed symbols (``w[0, 1]``,
LaTeX ``w_{0,1}``) when it has more than one element, whether or not it requires grad.
A leaf that requires grad and has no name gets the next automatic name ``x_1``, ``x_2``, ...
the first time the symbolic layer meets it (reading the computation from its first operand),
and keeps it for the rest of the process. An unnamed constant is a number.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any

import numpy as np

from symgrad.prim.sympy_xp import exact, symbol_array, to_sympy
from symgrad.tensor import Tensor

__all__ = ["symbols", "symbol_array_of", "constant_array", "is_symbolic"]

_auto_names: dict[int, str] = {}
_counter = itertools.count(1)


def _automatic_name(t: Tensor) -> str:
    key = id(t)
    name = _auto_names.get(key)
    if name is None:
        name = _auto_names[key] = f"x_{next(_counter)}"
        weakref.finalize(t, _auto_names.pop, key, None)
    return name


def is_symbolic(t: Tensor) -> bool:
    """True when ``t`` enters closed forms as symbols (named, or a leaf requiring grad)."""
    return t._name is not None or (t._requires_grad and t.grad_fn is None)


def symbol_array_of(t: Tensor) -> np.ndarray:
    """The object array of symbols standing for ``t``'s elements."""
    name = t._name if t._name is not None else _automatic_name(t)
    if t.numel() == 1:
        one = symbol_array(name, ())
        return np.broadcast_to(one, t.shape).copy()
    return symbol_array(name, t.shape)


def constant_array(value: Any, as_float: bool = False) -> np.ndarray:
    """A constant (an unnamed tensor or a number) as an object array of SymPy numbers."""
    data = np.asarray(value._data if isinstance(value, Tensor) else value)
    out = np.empty(data.shape, dtype=object)
    for index in np.ndindex(*data.shape):
        out[index] = exact(data[index], as_float)
    return out


def symbols(t: Tensor) -> Any:
    """The symbol (one element) or array of symbols standing for the leaf ``t``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.symbolic import symbols
    >>> symbols(symgrad.tensor(2.0, requires_grad=True, name="a"))
    a
    >>> symbols(symgrad.tensor([[1.0, 2.0]], name="w"))
    Matrix([[w[0, 0], w[0, 1]]])
    """
    if not isinstance(t, Tensor):
        raise TypeError(f"symbols() expects a Tensor, got {type(t).__name__}")
    if t.grad_fn is not None:
        raise ValueError(
            f"symbols() is for leaf tensors; this tensor was computed by {t.grad_fn.name()}: "
            "use expression(t) for its closed form"
        )
    if not is_symbolic(t):
        raise ValueError(
            "this tensor is an unnamed constant (it does not require grad), so it enters closed "
            "forms as numbers; give it a name (t.name = 'x') to make it a symbol"
        )
    arr = symbol_array_of(t)
    return arr.flat[0] if t.numel() == 1 else to_sympy(arr)
