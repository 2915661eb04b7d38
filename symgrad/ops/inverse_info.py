"""``linalg.inv_ex`` and ``linalg.solve_ex``: the inverse or the solution, and an ``info`` per
matrix instead of an error.

``info`` is the 1-based position of the first zero pivot of the matrix's LU factorization (0
for none); a singular matrix's result is what LAPACK's substitution with its factors gives
(inf and nan), and its gradient follows from it, as PyTorch's. The nodes are those of
``linalg.inv`` and ``linalg.solve`` (``LinalgInvExBackward0``, ``LinalgSolveExBackward0``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.determinants import _INV, _solve, return_type, square_matrices
from symgrad.prim import linalg_kernels, lu_kernels
from symgrad.tensor import Tensor

__all__: list = []


def inv_ex(A: Tensor, *, check_errors: bool = False) -> Any:
    """``linalg.inv`` with the ``info`` of each matrix: 0, or for a singular one the position
    of the first zero pivot of its LU factorization, its inverse LAPACK's inf and nan (an
    error with ``check_errors``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.inv_ex(symgrad.tensor([[1.0, 2.0], [2.0, 4.0]]))
    symgrad.return_types.linalg_inv_ex(
    inverse=tensor([[-inf, inf],
            [inf, -inf]]),
    info=tensor(2, dtype=symgrad.int32))
    """
    square_matrices("linalg.inv", A)
    info = _lu_info(A)
    if check_errors and info.any():
        raise linalg_kernels.singular("linalg.inv_ex", info)
    return return_type("linalg_inv_ex", ("inverse", "info"))(_INV(A), Tensor._make(info))


def _lu_info(A: Tensor) -> np.ndarray:
    """The ``info`` of ``A``'s LU factorization, as the ``_ex`` functions give it: the 1-based
    position of the first zero pivot, 0 for none."""
    if type(A._data) is not np.ndarray:  # a meta matrix: no values, nothing to find
        return np.zeros(A.shape[:-2], np.int32)
    return np.asarray(lu_kernels.lu_factor(A._data)[2])


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> Any:
    """``linalg.solve`` with the ``info`` of each system: 0, or for a singular matrix the
    position of the first zero pivot of its LU factorization, its solution LAPACK's inf and
    nan (an error with ``check_errors``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.solve_ex(symgrad.eye(2), symgrad.ones(2)).result
    tensor([1., 1.])
    """
    out = _solve(A, B, left, None)
    info = _lu_info(A)
    if check_errors and info.any():
        raise linalg_kernels.solver_error("linalg.solve_ex", info)
    return return_type("linalg_solve_ex", ("result", "info"))(out, Tensor._make(info))
