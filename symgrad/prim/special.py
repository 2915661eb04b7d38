"""Sigmoid, softplus and log-sum-exp as SymPy functions with kernels that cannot overflow.

``sigmoid(x)`` stands for ``1 / (1 + exp(-x))``, ``softplus(x)`` for ``log(1 + exp(x))`` and
``logsumexp(x, y, ...)`` for ``log(exp(x) + exp(y) + ...)``. Each is kept as a call (a number
argument evaluates), differentiates as PyTorch writes the derivative (``sigmoid(x) * (1 -
sigmoid(x))``, ``sigmoid(x)``, ``exp(x - logsumexp(x, y, ...))``), and is computed by the kernel
of the same name in :mod:`symgrad.prim.kernels`, finite for any ``|x|`` where the exponential
form gives ``inf / inf``. Partials written with them (silu's, softplus's) and the code that
:mod:`symgrad.symbolic` generates stay finite at every order.

Examples
--------
>>> import sympy as sp
>>> from symgrad.prim.special import logsumexp, sigmoid, softplus
>>> x, y = sp.symbols("x y", real=True)
>>> sp.diff(sigmoid(x), x)
(1 - sigmoid(x))*sigmoid(x)
>>> sigmoid(sp.Integer(0))
1/2
>>> sp.diff(softplus(x), x)
sigmoid(x)
>>> sp.diff(logsumexp(x, y), y)
exp(y - logsumexp(x, y))
"""

from __future__ import annotations

from typing import Any

import sympy as sp

__all__ = ["sigmoid", "softplus", "logsumexp"]


class sigmoid(sp.Function):  # noqa: N801 - SymPy's style for function names
    """``1 / (1 + exp(-x))``, evaluated at numbers, kept as a call elsewhere."""

    nargs = 1

    @classmethod
    def eval(cls, x: Any) -> Any:
        if x.is_Number:
            return 1 / (1 + sp.exp(-x))
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return self * (1 - self)

    def _eval_rewrite_as_exp(self, x: Any, **kwargs: Any) -> Any:
        return 1 / (1 + sp.exp(-x))

    def _eval_evalf(self, prec: int) -> Any:
        return self.rewrite(sp.exp)._eval_evalf(prec)

    def _eval_is_real(self) -> Any:
        return self.args[0].is_real

    def _eval_is_positive(self) -> Any:
        return self.args[0].is_real

    def _latex(self, printer: Any, exp: Any = None) -> str:
        """``\\sigma(x)``, as people write the logistic sigmoid."""
        body = rf"\sigma\left({printer._print(self.args[0])}\right)"
        return body if exp is None else rf"{body}^{{{exp}}}"


class softplus(sp.Function):  # noqa: N801
    """``log(1 + exp(x))``, evaluated at numbers, kept as a call elsewhere."""

    nargs = 1

    @classmethod
    def eval(cls, x: Any) -> Any:
        if x.is_Number:
            return sp.log(1 + sp.exp(x))
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return sigmoid(self.args[0])

    def _eval_rewrite_as_exp(self, x: Any, **kwargs: Any) -> Any:
        return sp.log(1 + sp.exp(x))

    _eval_rewrite_as_log = _eval_rewrite_as_exp

    def _eval_evalf(self, prec: int) -> Any:
        return self.rewrite(sp.exp)._eval_evalf(prec)

    def _eval_is_real(self) -> Any:
        return self.args[0].is_real

    def _eval_is_positive(self) -> Any:
        return self.args[0].is_real


class logsumexp(sp.Function):  # noqa: N801
    """``log(exp(x) + exp(y) + ...)`` of two or more terms, evaluated when all are numbers."""

    @classmethod
    def eval(cls, *xs: Any) -> Any:
        if len(xs) < 2:
            raise TypeError(f"logsumexp takes two or more arguments, got {len(xs)}")
        if all(x.is_Number for x in xs):
            return sp.log(sp.Add(*(sp.exp(x) for x in xs)))
        return None

    def fdiff(self, argindex: int = 1) -> Any:
        return sp.exp(self.args[argindex - 1] - self)

    def _eval_rewrite_as_exp(self, *xs: Any, **kwargs: Any) -> Any:
        return sp.log(sp.Add(*(sp.exp(x) for x in xs)))

    _eval_rewrite_as_log = _eval_rewrite_as_exp

    def _eval_evalf(self, prec: int) -> Any:
        return self.rewrite(sp.exp)._eval_evalf(prec)

    def _eval_is_real(self) -> Any:
        return all(x.is_real for x in self.args) or None
