"""The logistic function as a SymPy function whose derivative is written as PyTorch writes it.

``sigmoid(x)`` stands for ``1 / (1 + exp(-x))``, differentiates to ``sigmoid(x) * (1 -
sigmoid(x))`` and is computed by a kernel that cannot overflow. Partials written with it (silu's,
softplus's) have derivatives of every order that stay finite for large ``|x|`` and take
PyTorch's values, where the exponential form gives ``inf / inf``.

Examples
--------
>>> import sympy as sp
>>> from symgrad.prim.special import sigmoid
>>> x = sp.Symbol("x", real=True)
>>> sp.diff(sigmoid(x), x)
(1 - sigmoid(x))*sigmoid(x)
>>> sigmoid(sp.Integer(0))
1/2
"""

from __future__ import annotations

from typing import Any

import sympy as sp

__all__ = ["sigmoid"]


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
