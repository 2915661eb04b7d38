"""More of PyTorch's derivative formulas for the graphs that ``create_graph=True`` records
(see :mod:`symgrad.ops.derivatives`): special functions and the ops whose gradient is the
incoming one, masked.

Examples
--------
>>> import symgrad
>>> x = symgrad.tensor([0.5, 2.0], requires_grad=True)
>>> (g,) = symgrad.autograd.grad(symgrad.special.entr(x).sum(), x, create_graph=True)
>>> g.grad_fn.name()
'MulBackward0'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from symgrad.ops import elementwise_special as ES
from symgrad.ops.derivatives import _Args, _divided, _masked_zero, _scaled, _shifted, _where

__all__ = ["FORMULAS"]


def _xlogy_number_other(a: _Args) -> Any:
    """``xlogy(grad, other)``, masked to 0 where the input is 0 unless ``other > 0``."""
    grad = ES.XLOGY_NUMBER_OTHER(a.g, params=(a.p,))
    return grad if a.p > 0 else _masked_zero(grad, a.x == 0)


# (op, input) -> the gradient of that input, as PyTorch writes it; None: zeros without graph
FORMULAS: dict[tuple[str, int], Callable[[_Args], Any]] = {
    ("special_entr", 0): lambda a: a.g * -_shifted(a.x.log(), 1.0),
    ("special_ndtri", 0): lambda a: (
        _scaled(a.g, math.sqrt(2 * math.pi)) * _divided(a.out.pow(2), 2).exp()
    ),
    ("special_log_ndtr", 0): lambda a: (
        _divided(a.g, math.sqrt(2 * math.pi)) * (-(a.out + _divided(a.x.pow(2), 2))).exp()
    ),
    ("xlogy_number_other", 0): _xlogy_number_other,
    ("nextafter", 0): lambda a: _where(a.x != a.y, a.g, 0.0),
    ("nextafter", 1): lambda a: None,
}
