"""SymPy matrix expressions for functions applied to matrices: a scalar function applied to
every element (``exp(X*w)``), and ``softmax``/``log_softmax`` along the rows, printed as people
write them and evaluated entry by entry (``.as_explicit()``)."""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

__all__ = ["ElementFunction", "RowSoftmax", "RowLogSoftmax", "Ones"]


class Ones(sp.OneMatrix):
    """A matrix of ones: the ones vector of sums and broadcasts, printed ``1`` (``1.T`` for a
    row) and in LaTeX bold, ``\\mathbf{1}`` (a column) or ``\\mathbf{1}^{T}`` (a row)."""

    def _eval_transpose(self) -> Any:
        return Ones(self.cols, self.rows)

    def _sympystr(self, printer: Any) -> str:
        rows, cols = self.shape
        return "1.T" if rows == 1 and cols != 1 else "1"

    def _latex(self, printer: Any) -> str:
        rows, cols = self.shape
        if cols == 1:
            return r"\mathbf{1}"
        if rows == 1:
            return r"\mathbf{1}^{T}"
        return rf"\mathbf{{1}}_{{{printer._print(rows)} \times {printer._print(cols)}}}"


class ElementFunction(ElementwiseApplyFunction):
    """A scalar function applied to every element: prints ``exp(X*w)``, LaTeX ``\\exp(X w)``,
    as people write it."""

    def _sympystr(self, printer: Any) -> str:
        return f"{self._name()}({printer._print(self.expr)})"

    def _latex(self, printer: Any) -> str:
        template = printer._print(self.function(sp.Symbol("ARGUMENT")))
        return template.replace("ARGUMENT", printer._print(self.expr))

    def _name(self) -> str:
        return str(self.function(sp.Symbol("_"))).split("(")[0]


class RowSoftmax(sp.MatrixExpr):
    """``softmax`` along each row of a matrix (of a column vector, along it): prints
    ``softmax(Z)``."""

    def __new__(cls, z: Any) -> Any:
        return sp.Basic.__new__(cls, z)

    @property
    def shape(self) -> tuple:
        return self.args[0].shape

    def _row_total(self, i: Any) -> Any:
        z = self.args[0]
        if z.shape[1] == 1:  # a column: the vector's own softmax
            return sp.Add(*[sp.exp(z[k, 0]) for k in range(z.shape[0])])
        return sp.Add(*[sp.exp(z[i, k]) for k in range(z.shape[1])])

    def _entry(self, i: Any, j: Any, **kwargs: Any) -> Any:
        return sp.exp(self.args[0][i, j]) / self._row_total(i)

    def _sympystr(self, printer: Any) -> str:
        return f"{type(self).__name__.removeprefix('Row').lower()}({printer._print(self.args[0])})"

    def _latex(self, printer: Any) -> str:
        name = type(self).__name__.removeprefix("Row").lower()
        return rf"\operatorname{{{name}}}\left({printer._print(self.args[0])}\right)"


class RowLogSoftmax(RowSoftmax):
    """``log_softmax`` along each row: prints ``logsoftmax(Z)``."""

    def _entry(self, i: Any, j: Any, **kwargs: Any) -> Any:
        return self.args[0][i, j] - sp.log(self._row_total(i))
