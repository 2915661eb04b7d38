"""The symbolic layer: closed-form expressions, gradients, Jacobians and Hessians of any
traced computation, as ordinary SymPy objects, and fast functions generated from them."""

from symgrad.symbolic.calculus import expression, gradient, hessian, jacobian
from symgrad.symbolic.codegen import CompiledFunction, compile_gradient, lambdify
from symgrad.symbolic.custom import ElementwiseOp, elementwise
from symgrad.symbolic.derivation import Derivation, derivation
from symgrad.symbolic.display import latex
from symgrad.symbolic.forward import jvp
from symgrad.symbolic.names import symbols
from symgrad.symbolic.nesting import SymbolicDepthError
from symgrad.prim.matrix_xp import MatrixFormError

__all__ = [
    "expression",
    "gradient",
    "jacobian",
    "hessian",
    "jvp",
    "symbols",
    "lambdify",
    "compile_gradient",
    "CompiledFunction",
    "elementwise",
    "ElementwiseOp",
    "latex",
    "SymbolicDepthError",
    "MatrixFormError",
    "derivation",
    "Derivation",
]
