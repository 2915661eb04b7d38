"""Custom Functions with correct and subtly wrong backwards, for symgrad and for PyTorch.

Each factory takes the module ``T`` (``symgrad`` or ``torch``), so one definition gives the
same Function to both libraries, and an ``error``: the relative amount by which backward's
gradient of one input is off (0 for a correct backward). The correct derivatives are written
out by hand next to each forward.
"""

from __future__ import annotations

import sympy as sp


def mul_sin(T, error: float = 0.0):
    """``x * sin(y)``: d/dx = sin(y), d/dy = x cos(y); the gradient of ``y`` (input 1) is off
    by ``error``."""

    class MulSin(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y.sin()

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return (g * y.sin()).sum_to_size(x.shape), (g * x * y.cos() * (1 + error)).sum_to_size(
                y.shape
            )

        @staticmethod
        def symbolic(x, y):
            return x * sp.sin(y)

    return MulSin


def cube(T, error: float = 0.0):
    """``x ** 3``: d/dx = 3 x**2, off by ``error``."""

    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x**2 * (1 + error)

        @staticmethod
        def symbolic(x):
            return x**3

    return Cube


def softsign(T, error: float = 0.0):
    """``x / (1 + |x|)``: d/dx = 1 / (1 + |x|)**2, with an additive ``error``."""

    class Softsign(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x / (1 + x.abs())

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (1 / (1 + x.abs()) ** 2 + error)

    return Softsign


def swapped(T):
    """``(x * y, x + y)`` whose backward swaps the two inputs' gradients of the product."""

    class Swapped(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx, g_prod, g_sum):
            x, y = ctx.saved_tensors
            return g_prod * x + g_sum, g_prod * y + g_sum  # should be g_prod * y, g_prod * x

    return Swapped


def sum_and_scale(T, error: float = 0.0):
    """``(x.sum(), 2 x)``: two outputs; the second's gradient is off by ``error``."""

    class SumAndScale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sum(), x * 2

        @staticmethod
        def backward(ctx, g_sum, g_scaled):
            (x,) = ctx.saved_tensors
            return g_sum * T.ones_like(x) + 2 * (1 + error) * g_scaled

    return SumAndScale


def ignores_grad_output(T):
    """``exp(x)`` whose backward forgets to multiply by the incoming gradient."""

    class ForgetsG(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return out

    return ForgetsG


def ones_when_zero(T):
    """``3 x`` whose backward turns an all-zero incoming gradient into ones (a fallback bug
    that only ``check_undefined_grad`` sees)."""

    class OnesWhenZero(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, g):
            if not bool((g != 0).any()):
                g = T.ones_like(g)
            return g * 3

    return OnesWhenZero


def detached_cube(T):
    """``x ** 3`` whose backward is right but uses ``x`` as a constant: its own derivative
    (the second derivative, 6 x g) comes out 0."""

    class DetachedCube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() ** 2

    return DetachedCube
