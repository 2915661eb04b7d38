"""``linalg.cholesky_ex``: the Cholesky factor and an ``info`` per matrix instead of an error.

Where a matrix is not positive-definite, ``info`` is the order of its first leading minor that
is not, and the factor is what LAPACK's unblocked ``potf2`` leaves: the columns before that
order factored, the offending diagonal entry holding the value whose square root failed, and
the rest of the lower triangle as given. The gradient is ``linalg.cholesky``'s
(``LinalgCholeskyExBackward0``); ``info`` is an ``int32`` tensor without one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_bool
from symgrad.ops.decompositions import _cholesky_vjp
from symgrad.ops.determinants import return_type, square_matrices
from symgrad.prim.factorization import Factorization
from symgrad.prim.linalg_kernels import LinAlgError, cholesky_lower, potf2
from symgrad.prim.primitive import Ctx
from symgrad.tensor import Tensor

__all__: list = []


def _kernel(a: np.ndarray, upper: bool) -> tuple:
    info = np.zeros(a.shape[:-2], np.int32)
    try:
        low = cholesky_lower(a, upper)
    except np.linalg.LinAlgError:
        flat = (np.swapaxes(a, -1, -2) if upper else a).reshape((-1,) + a.shape[-2:])
        parts = [potf2(m) for m in flat]
        low = np.stack([p for p, _ in parts]).reshape(a.shape) if parts else a.copy()
        info = np.array([i for _, i in parts], np.int32).reshape(a.shape[:-2])
    return (np.swapaxes(low, -1, -2) if upper else low), info


def _vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    one = Ctx(c.inputs, c.out[:1], c.shapes, c.needs, c.params)
    return _cholesky_vjp(xp, grads[:1], one)


_CHOLESKY_EX = Factorization(
    "cholesky_ex", _kernel, _vjp, backward="LinalgCholeskyExBackward0", n_outputs=2,
    differentiable=(0,),
    reads_inputs=False,
)  # fmt: skip


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> Any:
    """``(L, info)``: :func:`symgrad.linalg.cholesky` with ``info`` 0 for a positive-definite
    matrix, else the order of its first leading minor that is not (then ``L`` is only
    partly factored); ``check_errors`` raises :class:`~symgrad.linalg.LinAlgError` instead.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.cholesky_ex(symgrad.tensor([[4.0, 2.0], [2.0, 5.0]]))
    symgrad.return_types.linalg_cholesky_ex(
    L=tensor([[2., 0.],
            [1., 2.]]),
    info=tensor(0, dtype=symgrad.int32))
    >>> symgrad.linalg.cholesky_ex(symgrad.tensor([[1.0, 2.0], [2.0, 1.0]])).info
    tensor(2, dtype=symgrad.int32)
    """
    require_bool("linalg_cholesky_ex", "upper", upper)
    require_bool("linalg_cholesky_ex", "check_errors", check_errors)
    square_matrices("linalg.cholesky", A)
    low, info = _CHOLESKY_EX(A, upper=bool(upper))
    if check_errors and np.any(info._data > 0):
        raise _not_positive_definite(info._data)
    return return_type("linalg_cholesky_ex", ("L", "info"))(low, info)


def _not_positive_definite(info: np.ndarray) -> LinAlgError:
    flat = info.reshape(-1)
    batch = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {batch}): " if info.ndim else ""
    return LinAlgError(
        f"linalg.cholesky_ex: {where}The factorization could not be completed because the "
        f"input is not positive-definite (the leading minor of order {flat[batch]} is not "
        "positive-definite)."
    )
