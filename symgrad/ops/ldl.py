"""The LDL factorization of symmetric matrices: ``linalg.ldl_factor`` (``_ex``) and
``linalg.ldl_solve``, packed and pivoted as LAPACK's ``sytrf`` (Bunch-Kaufman), with
PyTorch's errors. PyTorch declares no derivative for either: their nodes raise when a backward
reaches them (``NotImplemented``), as PyTorch's do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_bool
from symgrad.ops.determinants import return_type, square_matrices
from symgrad.prim import ldl_kernels
from symgrad.prim.factorization import Factorization
from symgrad.prim.structural import Structural
from symgrad.prim.tangents import not_differentiable
from symgrad.tensor import Tensor

__all__: list = []


def _factor_kernel(a: np.ndarray) -> tuple:
    return ldl_kernels.ldl_factor(a)


def _no_factor_derivative(xp: Any, grads: tuple, c: Any) -> tuple:
    raise RuntimeError("derivative for aten::linalg_ldl_factor_ex is not implemented")


_LDL_FACTOR = Factorization(
    "ldl_factor", _factor_kernel, _no_factor_derivative, backward="NotImplemented", n_outputs=3,
    differentiable=(0,), saves_outputs=(), jvp=not_differentiable("linalg_ldl_factor_ex"),
)  # fmt: skip


def _checked_factor(op: str, A: Any, hermitian: Any) -> tuple:
    require_bool(op.replace(".", "_"), "hermitian", hermitian)
    square_matrices("torch.linalg.ldl_factor_ex", A, floating=False)
    if A._data.dtype.kind not in "fc":
        raise RuntimeError(
            "torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. "
            f"Got {A.dtype.scalar_type}"
        )
    if A._data.dtype == np.float16:
        raise NotImplementedError(
            "\"ldl_factor_kernel_cpu\" not implemented for 'Half'\n(use float32 or float64)"
        )
    return _LDL_FACTOR(A)


def _singular(op: str, info: np.ndarray) -> RuntimeError:
    # PyTorch 2.13 reports a zero block of D through an internal assertion (RuntimeError)
    k = int(info.reshape(-1)[np.flatnonzero(info.reshape(-1))[0]])
    return RuntimeError(
        f"torch.{op}: the factorization found a zero block of D (info {k}): the matrix is singular"
    )


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False) -> Any:
    """``(LD, pivots, info)``: :func:`ldl_factor` with ``info`` the 1-based position of the
    first zero block of ``D`` (0 where there is none) instead of an error.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.ldl_factor_ex(symgrad.zeros(2, 2)).info
    tensor(1, dtype=symgrad.int32)
    """
    require_bool("linalg_ldl_factor_ex", "check_errors", check_errors)
    ld, pivots, info = _checked_factor("linalg_ldl_factor_ex", A, hermitian)
    if check_errors and np.any(info._data > 0):
        raise _singular("linalg.ldl_factor_ex", info._data)
    return return_type("linalg_ldl_factor_ex", ("LD", "pivots", "info"))(ld, pivots, info)


def ldl_factor(A: Tensor, *, hermitian: bool = False) -> Any:
    """``(LD, pivots)`` with ``A = P L D L^T P^T`` for symmetric ``A`` (only its lower
    triangle is read): ``L`` unit lower triangular below the diagonal of ``LD``, the 1 x 1
    and 2 x 2 blocks of ``D`` on its diagonal and first subdiagonal, LAPACK's 1-based
    ``int32`` pivots (negative for a 2 x 2 block). A singular matrix raises
    ``RuntimeError``; not differentiable, as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.ldl_factor(symgrad.tensor([[4.0, 2.0], [2.0, 3.0]]))
    symgrad.return_types.linalg_ldl_factor(
    LD=tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]]),
    pivots=tensor([1, 2], dtype=symgrad.int32))
    """
    ld, pivots, info = _checked_factor("linalg_ldl_factor", A, hermitian)
    if np.any(info._data > 0):
        raise _singular("linalg.ldl_factor", info._data)
    return return_type("linalg_ldl_factor", ("LD", "pivots"))(ld, pivots)


def _solve_kernel(xp: Any, ld: np.ndarray, b: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    return ldl_kernels.ldl_solve(ld, pivots, b)


def _no_closed_form(xp: Any, ld: Any, b: Any, pivots: Any) -> Any:
    raise NotImplementedError(
        "linalg.ldl_solve has no closed form: its pivots depend on the values of the matrix"
    )


def _no_solve_derivative(xp: Any, g: Any, c: Any) -> tuple:
    raise RuntimeError("derivative for aten::linalg_ldl_solve is not implemented")


_LDL_SOLVE = Structural(
    "ldl_solve", _no_closed_form, _no_solve_derivative, backward="NotImplemented",
    kernel=_solve_kernel, jvp=not_differentiable("linalg_ldl_solve"),
)  # fmt: skip


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False) -> Tensor:
    """The solution ``X`` of ``A X = B`` from :func:`ldl_factor`'s output for ``A``; batch
    dimensions broadcast. Not differentiable, as in PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> LD, pivots = symgrad.linalg.ldl_factor(symgrad.tensor([[4.0, 2.0], [2.0, 3.0]]))
    >>> symgrad.linalg.ldl_solve(LD, pivots, symgrad.tensor([[6.0], [5.0]]))
    tensor([[1.],
            [1.]])
    """
    op = "linalg_ldl_solve"
    for position, (name, value) in enumerate((("LD", LD), ("pivots", pivots), ("B", B)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")  # fmt: skip
    require_bool(op, "hermitian", hermitian)
    square_matrices("torch.linalg.ldl_solve", LD, floating=False)
    if tuple(pivots.shape) != tuple(LD.shape[:-1]):
        raise RuntimeError(
            "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, "
            f"but got pivots with shape {list(pivots.shape)} instead"
        )
    if B.dtype is not LD.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {B.dtype.scalar_type} "
            f"and A of type {LD.dtype.scalar_type} instead."
        )
    if B.ndim < 2:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [-{max(B.ndim, 1)}, "
            f"{max(B.ndim, 1) - 1}], but got -2)"
        )
    n = LD.shape[-1]
    if B.shape[-2] != n:
        raise RuntimeError(
            f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is {n} by {n} "
            f"but each b matrix is {B.shape[-2]} by {B.shape[-1]}"
        )
    if LD._data.dtype.kind not in "fc" or LD._data.dtype == np.float16:
        raise NotImplementedError(
            f"\"ldl_solve_cpu\" not implemented for '{LD.dtype.scalar_type}'; use float32 or "
            "float64"
        )
    return _LDL_SOLVE(LD, B, pivots=np.asarray(pivots._data))
