"""The symbolic layer: closed-form expressions, gradients, Jacobians and Hessians of any
traced computation, as ordinary SymPy objects."""

from symgrad.symbolic.calculus import expression, gradient, hessian, jacobian
from symgrad.symbolic.names import symbols
from symgrad.symbolic.replay import SymbolicDepthError

__all__ = ["expression", "gradient", "jacobian", "hessian", "symbols", "SymbolicDepthError"]
