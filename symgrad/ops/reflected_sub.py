"""``torch.rsub(input, other, alpha=1)``: ``other - alpha * input``, one node, as PyTorch
records it (``RsubBackward0`` when ``other`` is a tensor, ``RsubBackward1`` when it is a
number; both save ``alpha``); the product rounded with the difference, as in
:mod:`symgrad.ops.scaled`."""

from __future__ import annotations

from typing import Any

from symgrad._arguments import invalid_combination
from symgrad.ops.operand_checks import bool_subtraction, check_alpha, is_bool
from symgrad.ops.scaled import RSUB_NUMBER, RSUB_TENSOR, SUB_NUMBER
from symgrad.tensor import Tensor

__all__ = ["rsub", "subtract"]


_SIGNATURES = (
    "Tensor input, Tensor other, *, Number alpha = 1",
    "Tensor input, Number other, Number alpha = 1",
)


def rsub(input: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (``input - other`` the other way round), broadcasting.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.rsub(symgrad.tensor([1.0, 2.0]), 5.0, alpha=2)
    tensor([3., 1.])
    >>> symgrad.rsub(symgrad.tensor([1.0, 2.0], requires_grad=True), symgrad.ones(2)).grad_fn
    <RsubBackward0 object at 0x...>
    """
    numbers = (int, float, bool)
    if isinstance(alpha, Tensor) and alpha.ndim == 0:  # a 0-d tensor is a Number to PyTorch
        alpha = alpha.item()
    if (
        type(input) is not Tensor
        and not isinstance(input, Tensor)
        or not isinstance(other, (Tensor, *numbers))
        or not isinstance(alpha, numbers)
    ):
        raise invalid_combination("rsub", (input, other), _SIGNATURES)
    if is_bool(input) or is_bool(other):
        raise bool_subtraction(input, other)
    if alpha != 1 or type(alpha) is not int:
        check_alpha(input, other, alpha)
    prim = RSUB_TENSOR if isinstance(other, Tensor) else RSUB_NUMBER
    return prim(input, other, params=(alpha,))


_SUBTRACT_SIGNATURES = (
    "Tensor input, Tensor other, *, Number alpha = 1",
    "Tensor input, Number other, Number alpha = 1",
)


def subtract(input: Any, other: Any, *number_alpha: Any, alpha: Any = None) -> Tensor:
    """Another name of ``sub``: ``input - alpha * other``; with ``other`` a number, ``alpha``
    may come by position (PyTorch's ``sub.Scalar`` overload, node ``SubBackward1``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.subtract(symgrad.tensor([1.0, 2.0]), 0.5, 2)
    tensor([0., 1.])
    """
    from symgrad.ops.math import sub

    if not number_alpha:
        return sub(input, other, alpha=1 if alpha is None else alpha)
    numbers = (int, float, bool)
    if (
        len(number_alpha) != 1
        or alpha is not None
        or not isinstance(input, Tensor)
        or not isinstance(other, numbers)
        or not isinstance(number_alpha[0], numbers)
    ):
        raise invalid_combination("subtract", (input, other, *number_alpha), _SUBTRACT_SIGNATURES)
    alpha = number_alpha[0]
    if is_bool(input) or is_bool(other):
        raise bool_subtraction(input, other)
    if alpha != 1 or type(alpha) is not int:
        check_alpha(input, other, alpha)
    return SUB_NUMBER(input, other, params=(alpha,))
