"""New differentiable element-wise ops defined by a SymPy formula."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import sympy as sp

from symgrad.prim.elementwise import Elementwise
from symgrad.prim.primitive import camel
from symgrad.tensor import Tensor

__all__ = ["elementwise", "ElementwiseOp"]


class ElementwiseOp:
    """A user-defined element-wise op: call it on tensors (or numbers).

    Its kernels, its VJPs (every order) and its closed forms all come from ``formula``.
    """

    def __init__(self, prim: Elementwise) -> None:
        self.primitive = prim
        self.__name__ = prim.name

    @property
    def formula(self) -> sp.Expr:
        """The forward formula in the op's input symbols."""
        return self.primitive.expr

    @property
    def derivatives(self) -> tuple:
        """The partial derivative with respect to each input."""
        return self.primitive.local_derivatives

    def __call__(self, *inputs: Any) -> Tensor:
        n = len(self.primitive.inputs)
        if len(inputs) != n:
            raise TypeError(f"{self.primitive.name}() takes {n} inputs, got {len(inputs)}")
        return self.primitive(*inputs)

    def __repr__(self) -> str:
        args = ", ".join(map(str, self.primitive.inputs))
        return f"<element-wise op {self.primitive.name}({args}) = {self.primitive.expr}>"


def _symbols(n: int) -> tuple:
    names = ("x", "y", "z") if n <= 3 else tuple(f"x{i}" for i in range(n))
    return tuple(sp.Symbol(names[i], real=True) for i in range(n))


def elementwise(
    name: str, formula: Callable[..., sp.Expr] | sp.Expr, inputs: Any = None
) -> ElementwiseOp:
    """Define a differentiable element-wise op from a SymPy formula.

    ``formula`` is a Python function that builds the formula from SymPy symbols (one
    argument per input), or a SymPy expression together with ``inputs``, the list of its
    input symbols. Strings are never parsed.

    Examples
    --------
    >>> import sympy, symgrad
    >>> softsign = symgrad.elementwise("softsign", lambda x: x / (1 + sympy.Abs(x)))
    >>> x = symgrad.tensor([-1.0, 3.0], requires_grad=True)
    >>> y = softsign(x)
    >>> y.grad_fn
    <SoftsignBackward0 object at ...>
    >>> y.sum().backward()
    >>> x.grad
    tensor([0.2500, 0.0625])
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"an op name must be a Python identifier such as 'softsign', got {name!r}")
    if isinstance(formula, str):
        raise TypeError(
            "formula must be a SymPy expression or a Python function building one; strings "
            "are not parsed (write e.g. lambda x: x / (1 + sympy.Abs(x)))"
        )
    if callable(formula) and not isinstance(formula, sp.Basic):
        n = len(inspect.signature(formula).parameters)
        symbols = _symbols(n)
        expr = sp.sympify(formula(*symbols), strict=True)
    else:
        if inputs is None:
            raise TypeError("with a SymPy expression as formula, pass inputs=[its input symbols]")
        given = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        symbols = _symbols(len(given))
        expr = sp.sympify(formula, strict=True).xreplace(dict(zip(given, symbols)))
    if not isinstance(expr, sp.Expr):
        raise TypeError(f"the formula must give a SymPy expression, got {type(expr).__name__}")
    extra = expr.free_symbols - set(symbols)
    if extra:
        raise ValueError(
            f"the formula of {name} uses symbols that are not its inputs: "
            f"{sorted(map(str, extra))}; make them inputs or numbers"
        )
    prim = Elementwise(name, symbols, expr, promote="float", backward=f"{camel(name)}Backward0")
    return ElementwiseOp(prim)
