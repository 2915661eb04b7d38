"""The vocabulary of rules: the words a forward or VJP rule may use on its namespace ``xp``.

Every interpreter speaks every word with the same meaning: NumPy (``numpy_xp.NP``, the numeric
path), symgrad's own differentiable ops (the tensor interpreter, built by :mod:`symgrad.ops`
from its public functions, for ``create_graph``) and SymPy object arrays (``sympy_xp.SX``, for
closed forms). A test checks that each one covers the whole vocabulary.
"""

from __future__ import annotations

from typing import Any

__all__ = ["VOCABULARY", "INTERPRETERS", "missing_words"]

VOCABULARY = (
    # reductions and shapes
    "sum",
    "mean",
    "sum_to_size",
    "reshape",
    "permute",
    "transpose",
    "unsqueeze",
    "squeeze",
    "expand",
    "flip",
    "cat",
    "cumsum",
    # indexing and its adjoints
    "getitem",
    "index_put_zeros",
    "gather",
    "scatter_zeros",
    # algebra and selection
    "matmul",
    "where",
    "masked_fill",
    "mul_scalar",
    "div_scalar",
    "eq",
    "count",
    "constant",
    "extremum",
    "prod_others",
    # matrices: determinant, inverse, solution of A X = B, adjugate (det(A) A^-1)
    "det",
    "inv",
    "solve",
    "adjugate",
    "matrix_exp",
    # element-wise
    "exp",
    "log",
    "sqrt",
    "abs",
    "sign",
    "sgn",
    "elementwise",
    "elementwise_vjp",
)


class _Interpreters:
    """The interpreters the engine hands to VJP rules; ``tensor`` is installed by ``ops``."""

    __slots__ = ("numpy", "tensor")

    def __init__(self) -> None:
        self.numpy: Any = None
        self.tensor: Any = None


INTERPRETERS = _Interpreters()


def missing_words(namespace: Any, words: tuple = VOCABULARY) -> list[str]:
    """The words of ``words`` that ``namespace`` does not provide."""
    return [w for w in words if not callable(getattr(namespace, w, None))]
