"""``torch.fill``: a new tensor like ``input`` holding one value (the out-of-place ``fill_``)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from symgrad._arguments import invalid_combination
from symgrad._data import check_fill
from symgrad.ops.inplace import _broadcast_into, _full, _overwritten_vjp
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["fill"]

# PyTorch's node names: FillBackward0 (a number), FillBackward1 (a 0-d tensor)
_FILL = Structural(
    "fill",
    _full,
    _overwritten_vjp,
    backward="FillBackward0",
    batch="elementwise",
    kernel=lambda xp, a, value: np.full_like(a, value),
)
_FILL_TENSOR = Structural(
    "fill", _broadcast_into, _overwritten_vjp, backward="FillBackward1", batch="elementwise"
)


def fill(input: Tensor, value: Any) -> Tensor:
    """A new tensor of ``input``'s shape and dtype holding ``value`` (a number, or a 0-d tensor
    whose gradient is then the sum of the incoming one); ``input`` gets a zero gradient.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.fill(symgrad.zeros(2, 2), 3)
    tensor([[3., 3.],
            [3., 3.]])
    """
    number = isinstance(value, (numbers.Number, np.generic)) and not isinstance(value, complex)
    if not isinstance(input, Tensor) or not (number or isinstance(value, Tensor)):
        raise invalid_combination(
            "fill", (input, value), ("Tensor input, Tensor value", "Tensor input, Number value")
        )
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.ndim} dimensions."
            )
        return _FILL_TENSOR(input, value)
    value = check_fill(value, input.dtype, "fill", one=input.numel() == 1)
    return _FILL(input, value=value)
