"""``fmax`` and ``fmin``: the maximum and minimum that ignore a nan unless both are nan.

Their gradient is PyTorch's: all of it to ``input`` where ``input >= other`` (``<=`` for
``fmin``) or ``other`` is nan, all of it to ``other`` elsewhere. A tie is ``input``'s alone,
where ``maximum`` and ``minimum`` share it half and half.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_tensors
from symgrad._lazy import sympy as sp
from symgrad.ops.elementwise import declare
from symgrad.tensor import Tensor

__all__ = ["fmax", "fmin"]


def _gradients(keeps: Any) -> dict:
    """The two inputs' ``g * partial`` kernels: ``g`` to ``input`` where ``keeps(x, y)`` or
    ``y`` is nan, to ``other`` elsewhere; ``+0`` to the one left out (a select, as PyTorch's
    masked_fill)."""

    def to_input(x: Any, y: Any, out: Any, g: Any) -> Any:
        return np.where(keeps(x, y) | np.isnan(y), g, 0)

    def to_other(x: Any, y: Any, out: Any, g: Any) -> Any:
        return np.where(keeps(x, y) | np.isnan(y), 0, g)

    return {0: to_input, 1: to_other}


FMAX = declare(
    "fmax",
    "x y",
    lambda x, y: sp.Piecewise((x, x >= y), (y, True)),
    kernel=np.fmax,
    vjp_kernels=_gradients(np.greater_equal),
    domain={"x": "distinct", "y": "distinct"},
    masked=True,
    vjp_backward="MaskedFillBackward0",
)
FMIN = declare(
    "fmin",
    "x y",
    lambda x, y: sp.Piecewise((x, x <= y), (y, True)),
    kernel=np.fmin,
    vjp_kernels=_gradients(np.less_equal),
    domain={"x": "distinct", "y": "distinct"},
    masked=True,
    vjp_backward="MaskedFillBackward0",
)


def _public(name: str, prim: Any, values: str) -> Any:
    """The function ``name`` applying ``prim``, with its docstring (``values``: its
    example's result)."""

    def op(input: Tensor, other: Tensor) -> Tensor:
        if type(input) is not Tensor or type(other) is not Tensor:
            require_tensors(name, input, "other", other)
        return prim(input, other)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"""Element-wise {name[1:]}imum that ignores a nan unless both are nan (a tie's
    gradient goes to ``input``, as in PyTorch).

    >>> import symgrad
    >>> nan = float("nan")
    >>> symgrad.{name}(symgrad.tensor([1.0, nan, nan]), symgrad.tensor([2.0, 3.0, nan]))
    {values}
    """
    return op


fmax = _public("fmax", FMAX, "tensor([2., 3., nan])")
fmin = _public("fmin", FMIN, "tensor([1., 3., nan])")
