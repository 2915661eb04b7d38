"""The NumPy fast path of the matrix product's backward (``mm``, every training step's hot
case) and PyTorch's test for a column-major matrix, which decides the gradients' layouts."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["_matmul_numeric_vjp", "_column_major"]


def _matmul_numeric_vjp(
    g: Any, arrays: list, out: Any, needs: list, params: dict, meta: tuple
) -> Any:
    """``_matmul_vjp``'s steps for two matrices on NumPy (``mm``, the hot case), with no
    interpreter between; None for the other pairings."""
    a, b = arrays
    if a.ndim != 2 or b.ndim != 2 or type(a) is not np.ndarray or type(b) is not np.ndarray:
        return None
    ga = gb = None
    if needs[0]:
        if _column_major(a):
            ga = np.matmul(b, g.swapaxes(-1, -2)).swapaxes(-1, -2)
        else:
            ga = np.matmul(g, b.swapaxes(-1, -2))
    if needs[1]:
        if _column_major(b):
            gb = np.matmul(g.swapaxes(-1, -2), a).swapaxes(-1, -2)
        else:
            gb = np.matmul(a.swapaxes(-1, -2), g)
    return ga, gb


def _column_major(m: Any) -> bool:
    """Whether ``m`` is an array laid out column by column (PyTorch's test: strides
    ``(1, rows)``), a matrix whose transpose is row-major."""
    if getattr(m, "ndim", None) != 2:
        return False
    if isinstance(m, Tensor):  # (the tensor interpreter's operands, under create_graph)
        return m.stride() == (1, m.shape[0])
    if not hasattr(m, "strides"):
        return False  # (a SymPy matrix: no layout)
    s = m.strides
    return s[0] == m.itemsize and s[1] == m.shape[0] * m.itemsize
