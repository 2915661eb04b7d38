"""Verify my custom backward: a GELU written by hand, found wrong three ways, then fixed.

GELU's tanh approximation is ``f(x) = x/2 * (1 + tanh(u))`` with ``u = c (x + a x**3)``,
``c = sqrt(2/pi)`` and ``a = 0.044715``. By the chain rule its derivative is

    f'(x) = (1 + tanh(u)) / 2 + x/2 * (1 - tanh(u)**2) * c * (1 + 3 a x**2)

The first backward below drops the 3 that ``d(a x**3)/dx`` brings down: an error of a few
percent, found by ``gradcheck`` (finite differences), by ``verify`` (engine, finite differences
and closed form side by side) and by ``check_function`` (the backward against the exact
derivative of the ``symbolic`` formula). After the fix all three pass. Last, a backward with
``c`` typed in as ``0.7978846``: wrong by a few parts in 10**8, far below what finite
differences resolve, so only the closed form (in ``verify`` and ``check_function``) sees it.

Run it with ``python examples/verify_custom_backward.py``.
"""

import math

import sympy

import symgrad as torch
from symgrad.autograd import Function, GradcheckError, check_function, gradcheck

C, A = math.sqrt(2 / math.pi), 0.044715


def gelu_parts(x):
    """tanh(u) for the forward, and the pieces of the derivative."""
    t = (C * (x + A * x**3)).tanh()
    return t, (1 + t) / 2, x / 2 * (1 - t * t)


class BuggyGelu(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        t, _, _ = gelu_parts(x)
        return x / 2 * (1 + t)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        _, first, second = gelu_parts(x)
        return g * (first + second * C * (1 + A * x**2))  # the bug: 1 + 3 a x**2

    @staticmethod
    def symbolic(x):
        # the forward formula in SymPy: check_function differentiates it exactly
        a = sympy.Rational(44715, 10**6)
        return x / 2 * (1 + sympy.tanh(sympy.sqrt(2 / sympy.pi) * (x + a * x**3)))


class Gelu(BuggyGelu):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        _, first, second = gelu_parts(x)
        return g * (first + second * C * (1 + 3 * A * x**2))


class RoundedGelu(BuggyGelu):
    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        _, first, second = gelu_parts(x)
        return g * (first + second * 0.7978846 * (1 + 3 * A * x**2))  # sqrt(2/pi), 7 digits


x = torch.tensor([-2.0, -0.5, 0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)

print("1. The op and its hand-written backward")
y = BuggyGelu.apply(x)
print("gelu(x) =", y)
y.sum().backward()
print("backward:", x.grad)

print("\n2. gradcheck: the backward against central finite differences")
try:
    gradcheck(BuggyGelu.apply, (x,))
except GradcheckError as error:
    lines = str(error).splitlines()  # PyTorch's message, then the worst element
    print(lines[0])
    print(next(line for line in lines if line.startswith("The worst element")))

print("\n3. verify: engine, finite differences and closed form side by side")
print(torch.verify(lambda t: BuggyGelu.apply(t).sum(), x))

print("\n4. check_function: the backward against the exact derivative of symbolic()")
print(check_function(BuggyGelu, x))

print("\n5. The fix: 1 + 3 a x**2")
print("gradcheck:", gradcheck(Gelu.apply, (x,)))
print("verify ok:", torch.verify(lambda t: Gelu.apply(t).sum(), x).ok)
print("check_function ok:", check_function(Gelu, x).ok)
x.grad = None
Gelu.apply(x).sum().backward()
print("x.grad =", x.grad)

print("\n6. Below what finite differences see: sqrt(2/pi) typed in as 0.7978846")
print("gradcheck:", gradcheck(RoundedGelu.apply, (x,)))
for comparison in torch.verify(lambda t: RoundedGelu.apply(t).sum(), x)[0].comparisons:
    print(f"verify, {' vs '.join(comparison.sources)}:", "ok" if comparison.ok else "FAIL")
print(check_function(RoundedGelu, x))
