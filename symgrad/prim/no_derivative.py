"""Gradient nodes of backward ops that PyTorch declares ``not_implemented``: they hold the
gradient's values and raise PyTorch's error when a backward pass reaches them."""

from __future__ import annotations

from typing import Any

from symgrad.prim.primitive import Ctx
from symgrad.prim.structural import Structural

__all__ = ["backward_without_derivative"]


def backward_without_derivative(name: str, backward: str) -> Structural:
    """A gradient's node named ``backward`` (``PdistBackwardBackward0``) holding values its
    caller computed (``values=``) from its inputs, for a backward op ``name`` that PyTorch
    declares ``not_implemented``: a backward pass through it raises PyTorch's error.

    Examples
    --------
    >>> import numpy as np
    >>> import symgrad
    >>> prim = backward_without_derivative("_example_backward", "ExampleBackwardBackward0")
    >>> x = symgrad.ones(2, requires_grad=True)
    >>> y = prim(x, values=np.array([2.0, 3.0]))
    >>> y.grad_fn
    <ExampleBackwardBackward0 object at 0x...>
    >>> y.sum().backward()
    Traceback (most recent call last):
    ...
    NotImplementedError: the derivative for '_example_backward' is not implemented.
    """

    def refuse(xp: Any, g: Any, ctx: Ctx) -> tuple:
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    return Structural(
        name, lambda xp, *inputs, values: xp.constant(values), refuse, backward=backward
    )
