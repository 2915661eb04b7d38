"""``once_differentiable``: a custom Function's ``backward`` that can't itself be
differentiated. It runs without recording; where a double backward would need it (grad mode on
and an incoming gradient that requires grad), each gradient it returns gets an ``Error`` node
that raises when a backward pass reaches it, as PyTorch's ``DelayedError``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad.autograd import grad_mode
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["once_differentiable"]

_MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"


def _raise(xp: Any, g: Any, c: Any) -> tuple:
    raise RuntimeError(_MESSAGE)


_ERROR = Structural(
    "once_differentiable",
    lambda xp, x: x,
    _raise,
    backward="Error",
    text="a gradient of a once-differentiable backward (no derivative)",
)


def _guarded(g: Any) -> Any:
    """``g`` as the output of an ``Error`` node over a detached copy that requires grad."""
    if not isinstance(g, Tensor) or not g.dtype.is_floating_point:
        return g
    leaf = g.detach().requires_grad_(True)
    return _ERROR(leaf)


def once_differentiable(fn: Callable) -> Callable:
    """Mark a custom Function's ``backward`` as not differentiable itself.

    ``backward`` runs without recording its ops. When a double backward could reach it (grad
    mode on, and some incoming gradient requires grad, as under ``create_graph=True``), its
    results get an ``Error`` node: a backward pass through them raises RuntimeError.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.autograd.function import once_differentiable
    >>> class Square(symgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     @once_differentiable
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * g
    >>> x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> (g,) = symgrad.autograd.grad((Square.apply(x) ** 2).sum(), x, create_graph=True)
    >>> g
    tensor([ 4., 32.], grad_fn=<Error>)
    """

    @functools.wraps(fn)
    def backward(ctx: Any, *grads: Any) -> Any:
        with grad_mode.no_grad():
            result = fn(ctx, *grads)
        if not grad_mode.is_grad_enabled() or not any(
            isinstance(g, Tensor) and g.requires_grad for g in grads
        ):
            return result
        if isinstance(result, tuple):
            return tuple(_guarded(r) for r in result)
        return _guarded(result)

    return backward
