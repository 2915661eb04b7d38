"""SymPy matrix expressions for functions applied to matrices: a scalar function applied to
every element (``exp(X*w)``), and ``softmax``/``log_softmax`` along the rows, printed as people
write them and evaluated entry by entry (``.as_explicit()``)."""

from __future__ import annotations

from typing import Any

import sympy as sp
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

from symgrad._symbol_names import latex_name, visible
from symgrad.prim.keys import ClassKey

__all__ = ["ElementFunction", "RowSoftmax", "RowLogSoftmax", "Ones", "ClassKey", "one_hot"]


class OneHotSymbol(sp.MatrixSymbol):
    """The one-hot matrix of a named class target ``y``: ``onehot(y)``; each row sums to 1."""

    def _sympystr(self, printer: Any) -> str:
        return f"onehot({visible(self.name)})"

    def _latex(self, printer: Any) -> str:
        return rf"\operatorname{{onehot}}\left({latex_name(self.name, printer)}\right)"


class OneHot(sp.MatrixExpr):
    """The one-hot matrix of constant class indices (an unnamed target): ``onehot([0, 2])``;
    its entries are known, and each row sums to 1."""

    def __new__(cls, indices: Any, classes: Any) -> Any:
        return sp.Basic.__new__(cls, sp.Tuple(*indices), sp.Integer(classes))

    @property
    def shape(self) -> tuple:
        return (sp.Integer(len(self.args[0])), self.args[1])

    def _entry(self, i: Any, j: Any, **kwargs: Any) -> Any:
        if isinstance(i, (int, sp.Integer)):
            return sp.KroneckerDelta(self.args[0][int(i)], j)
        # a symbolic row (a sum over a product's inner index): 1 where row r has class t_r
        rows = enumerate(self.args[0])
        return sp.Add(*[sp.KroneckerDelta(i, r) * sp.KroneckerDelta(j, t) for r, t in rows])

    def _sympystr(self, printer: Any) -> str:
        return f"onehot([{', '.join(str(k) for k in self.args[0])}])"

    def _latex(self, printer: Any) -> str:
        return rf"\operatorname{{onehot}}\left({printer._print(list(self.args[0]))}\right)"


def one_hot(key: ClassKey, classes: int) -> Any:
    """The one-hot matrix a class key picks with: a symbol for a named target, else constant."""
    target, indices = key.target, key[1]
    name = getattr(target, "name", None)
    if name:
        return OneHotSymbol(name, len(indices), classes)
    return OneHot([int(k) for k in indices], classes)


def rows_sum_to_one(e: Any) -> bool:
    """Whether every row of ``e`` sums to 1 (a one-hot matrix)."""
    return isinstance(e, (OneHotSymbol, OneHot))


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
