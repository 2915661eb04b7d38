"""The LU factorization with partial pivoting, ``A = P L U``: ``linalg.lu_factor`` (and
``lu_factor_ex``, the older ``lu``), ``linalg.lu``, ``lu_unpack`` and ``linalg.lu_solve``, with
PyTorch's pivots (1-based ``int32``), return types, errors and gradients.

The gradients are PyTorch's (``LinalgLuFactorExBackward0``, ``LinalgLuBackward0``,
``LuUnpackBackward0``, ``LinalgLuSolveBackward0``), written against ``xp`` so they also give
second derivatives; the permutation is a constant. There are no closed forms: a pivoted
factorization of symbols depends on which entries are largest.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad._meta import MetaArray
from symgrad._tracing import TRACE, data_value
from symgrad.ops.determinants import array_dtype, floating_input, return_type
from symgrad.ops.triangular_solves import _band, _mT, substitute
from symgrad.prim import lu_kernels
from symgrad.prim.factorization import Factorization
from symgrad.tensor import Tensor

__all__ = ["lu"]


def _numpy(a: Any) -> np.ndarray:
    return a._data if isinstance(a, Tensor) else np.asarray(a)


def _cols(start: int, stop: Any = None) -> tuple:
    return (Ellipsis, slice(None), slice(start, stop))


def _rows(start: int, stop: Any = None) -> tuple:
    return (Ellipsis, slice(start, stop), slice(None))


def _factors(xp: Any, lu: Any, m: int, n: int, dtype: Any) -> tuple:
    """``L`` (``m x k``, unit diagonal) and ``U`` (``k x n``) packed in ``lu``, on ``xp``."""
    k = min(m, n)
    low = xp.getitem(lu, _cols(0, k)) if n > k else lu
    up = xp.getitem(lu, _rows(0, k)) if m > k else lu
    low = _band(xp, low, (m, k), dtype, -1, True) + xp.constant(np.eye(m, k, dtype=dtype))
    return low, _band(xp, up, (k, n), dtype, 0, False)


def _lu_backward(xp: Any, gl: Any, gu: Any, p: Any, low: Any, up: Any, m: int, n: int) -> Any:
    """PyTorch's ``linalg_lu_backward``: the gradient of ``A`` from those of ``L`` and ``U``."""
    k, dtype = min(m, n), array_dtype(p)
    if m == n:
        inner = 0
        if gl is not None:
            inner = _band(xp, xp.matmul(_mT(xp, low), gl), (m, m), dtype, -1, True)
        if gu is not None:
            inner = inner + _band(xp, xp.matmul(gu, _mT(xp, up)), (m, m), dtype, 0, False)
        inner = substitute(xp, _mT(xp, up), inner, upper=False, left=False)
        ga = substitute(xp, _mT(xp, low), inner, upper=True)
    elif m < n:  # wide: U = [U1 | U2] with U1 square
        u1, zeros = xp.getitem(up, _cols(0, k)), np.zeros(p.shape[:-2] + (m, n - k), dtype)
        gu = None if gu is None else _band(xp, gu, (k, n), dtype, 0, False)
        inner = 0 if gl is None else xp.matmul(_mT(xp, low), gl)
        if gu is not None:
            inner = inner - xp.matmul(gu, _mT(xp, up))
        inner = _band(xp, inner, (m, m), dtype, -1, True)
        inner = substitute(xp, _mT(xp, u1), inner, upper=False, left=False)
        if gu is not None:
            gu1, gu2 = xp.getitem(gu, _cols(0, k)), xp.getitem(gu, _cols(k))
            inner = xp.cat([inner + gu1, gu2], -1)
        ga = substitute(xp, _mT(xp, low), inner, upper=True)
        if gu is None:
            ga = xp.cat([ga, xp.constant(zeros)], -1)
    else:  # tall: L = [L1; L2] with L1 square
        l1, zeros = xp.getitem(low, _rows(0, k)), np.zeros(p.shape[:-2] + (m - k, n), dtype)
        gl = None if gl is None else _band(xp, gl, (m, k), dtype, -1, True)
        inner = 0 if gu is None else xp.matmul(gu, _mT(xp, up))
        if gl is not None:
            inner = inner - xp.matmul(_mT(xp, low), gl)
        inner = substitute(xp, _mT(xp, l1), _band(xp, inner, (k, k), dtype, 0, False), upper=True)
        if gl is not None:
            gl1, gl2 = xp.getitem(gl, _rows(0, k)), xp.getitem(gl, _rows(k))
            inner = xp.cat([inner + gl1, gl2], -2)
        ga = substitute(xp, _mT(xp, up), inner, upper=False, left=False)
        if gl is None:
            ga = xp.cat([ga, xp.constant(zeros)], -2)
    return xp.matmul(xp.constant(p), ga)


# -- lu_factor ------------------------------------------------------------------------------------
def _lu_factor_kernel(a: np.ndarray) -> tuple:
    return lu_kernels.lu_factor(a)


def _lu_factor_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    g, (lu, pivots, _) = grads[0], c.out
    if g is None:
        return (None,)
    m, n = c.shapes[0][-2:]
    k, dtype = min(m, n), array_dtype(c.inputs[0])
    low, up = _factors(xp, lu, m, n, dtype)
    p = lu_kernels.permutation_matrix(_numpy(pivots), m, dtype)
    gl = _band(xp, xp.getitem(g, _cols(0, k)) if n > k else g, (m, k), dtype, -1, True)
    gu = _band(xp, xp.getitem(g, _rows(0, k)) if m > k else g, (k, n), dtype, 0, False)
    return (_lu_backward(xp, gl, gu, p, low, up, m, n),)


_LU_FACTOR = Factorization(
    "lu_factor",
    _lu_factor_kernel,
    _lu_factor_vjp,
    backward="LinalgLuFactorExBackward0",
    n_outputs=3,
    differentiable=(0,),
    reads_inputs=False,
)


def _factor(A: Tensor) -> tuple:
    lu, pivots, info = _LU_FACTOR(A)
    if TRACE.log is not None:  # a compiled program finds the pivots afresh from A
        data_value(pivots, lambda a: lu_kernels.lu_factor(a)[1], A)
        data_value(info, lambda a: lu_kernels.lu_factor(a)[2], A)
    return lu, pivots, info


def _check_pivot(op: str, pivot: bool) -> None:
    if not pivot:
        raise RuntimeError(f"{op}: LU without pivoting is not implemented on the CPU")


def _lu_input(op: str, A: Any) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A.ndim < 2:
        raise RuntimeError(
            f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(A.shape)} instead"
        )
    if A._data.dtype.kind not in "fc":
        raise NotImplementedError(
            f"\"lu_cpu\" not implemented for '{A.dtype.scalar_type}'\n(use a floating tensor)"
        )
    floating_input(op, A)


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    """``(LU, pivots, info)``: ``linalg.lu_factor`` with ``info`` the 1-based position of the
    first zero on the diagonal of ``U`` (0 where there is none) instead of an error.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.lu_factor_ex(symgrad.tensor([[1.0, 2.0], [2.0, 4.0]])).info
    tensor(2, dtype=symgrad.int32)
    """
    _lu_input("linalg.lu_factor_ex", A)
    _check_pivot("linalg.lu_factor", pivot)
    lu, pivots, info = _factor(A)
    if check_errors and np.any(info._data > 0):
        raise _zero_pivot("linalg.lu_factor_ex", info._data)
    return return_type("linalg_lu_factor_ex", ("LU", "pivots", "info"))(lu, pivots, info)


def _zero_pivot(op: str, info: np.ndarray) -> RuntimeError:
    """PyTorch's error for a zero pivot: a plain ``RuntimeError``, not ``LinAlgError``."""
    flat = info.reshape(-1)
    i = int(np.flatnonzero(flat)[0])
    where = f"(Batch element {i}): " if info.ndim else ""
    return RuntimeError(
        f"torch.{op}: {where}U[{flat[i]},{flat[i]}] is zero and using it on lu_solve would "
        "result in a division by zero. If you still want to perform the factorization, "
        "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
    )


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    """``(LU, pivots)``, the LU factorization with partial pivoting packed as LAPACK packs it:
    ``L`` (unit diagonal) below the diagonal of ``LU``, ``U`` on and above it, and the rows
    exchanged at each step in ``pivots`` (1-based, ``int32``). A zero on the diagonal of
    ``U`` raises ``RuntimeError`` (``lu_factor_ex`` reports it instead).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.lu_factor(symgrad.tensor([[1.0, 2.0], [4.0, 2.0]]))
    symgrad.return_types.linalg_lu_factor(
    LU=tensor([[4.0000, 2.0000],
            [0.2500, 1.5000]]),
    pivots=tensor([2, 2], dtype=symgrad.int32))
    """
    _lu_input("linalg.lu_factor", A)
    _check_pivot("linalg.lu_factor", pivot)
    lu, pivots, info = _factor(A)
    # a meta matrix has no values to find a zero pivot in: PyTorch returns its shapes too
    if not isinstance(info._data, MetaArray) and np.any(info._data > 0):
        raise _zero_pivot("linalg.lu_factor", info._data)
    return return_type("linalg_lu_factor", ("LU", "pivots"))(lu, pivots)


def lu(*args: Any, **kwargs: Any) -> Any:
    """PyTorch's deprecated ``torch.lu(A, pivot=True, get_infos=False)``: ``(LU, pivots)``
    (a plain tuple) or, with ``get_infos``, ``(LU, pivots, info)``; it warns, as PyTorch
    does, that ``linalg.lu_factor`` replaces it.

    Examples
    --------
    >>> import warnings, symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.lu(symgrad.tensor([[2.0]]))[1]
    tensor([1], dtype=symgrad.int32)
    """
    return _old_lu(*args, **kwargs)


def _old_lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    warnings.warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)"
        "\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, "
        "compute_pivots)",
        UserWarning,
        stacklevel=3,
    )
    _lu_input("lu", A)
    _check_pivot("linalg.lu_factor", pivot)
    lu_, pivots, info = _factor(A)
    if get_infos:
        return return_type("_lu_with_info", ("LU", "pivots", "info"))(lu_, pivots, info)
    return lu_, pivots  # a singular matrix passes: PyTorch checks only LAPACK's argument errors


# -- linalg.lu ------------------------------------------------------------------------------------
def _lu_kernel(a: np.ndarray) -> tuple:
    packed, pivots, _ = lu_kernels.lu_factor(a)
    low, up = lu_kernels.unpack(packed)
    return lu_kernels.permutation_matrix(pivots, a.shape[-2], a.dtype), low, up


def _lu_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    (_, gl, gu), (p, low, up) = grads, c.out
    if gl is None and gu is None:
        return (None,)
    m, n = c.shapes[0][-2:]
    return (_lu_backward(xp, gl, gu, _numpy(p), low, up, m, n),)


_LU = Factorization(
    "lu",
    _lu_kernel,
    _lu_vjp,
    backward="LinalgLuBackward0",
    n_outputs=3,
    differentiable=(1, 2),
    reads_inputs=False,
)


def linalg_lu(A: Tensor, *, pivot: bool = True) -> Any:
    """``(P, L, U)`` with ``A = P L U``: a permutation matrix, a unit lower triangular ``L``
    (``m x k``, ``k = min(m, n)``) and an upper triangular ``U`` (``k x n``); singular and
    rectangular matrices are fine.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.lu(symgrad.tensor([[1.0, 2.0], [4.0, 2.0]])).L
    tensor([[1.0000, 0.0000],
            [0.2500, 1.0000]])
    """
    _lu_input("linalg.lu", A)
    _check_pivot("linalg.lu_factor", pivot)
    p, low, up = _LU(A)
    if TRACE.log is not None:  # a compiled program finds P afresh from A
        data_value(p, lambda a: _lu_kernel(a)[0], A)
    return return_type("linalg_lu", ("P", "L", "U"))(p, low, up)
