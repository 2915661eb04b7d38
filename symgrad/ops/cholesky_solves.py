"""Solves with a Cholesky factor: ``cholesky_solve`` (``A X = B`` for ``A = L L^T``) and
``cholesky_inverse`` (``A^-1``), with PyTorch's errors and gradients.

The forwards read only the factor's triangle; PyTorch's gradient of the factor is that of
``L L^T`` as a product of full matrices, so it also covers the triangle not read (its
derivative there is zero), and symgrad's is the same. ``cholesky_solve``'s gradient of ``B``
goes through the op itself, so second derivatives are PyTorch's too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_bool
from symgrad.ops.triangular_solves import (
    _batch,
    _floating,
    _matching_rows,
    _mT,
    _same_dtype,
    _square_coefficient,
    _swap,
    _triangle,
)
from symgrad.prim import lu_kernels
from symgrad.prim.linalg_kernels import LinAlgError
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor, bind_methods

__all__ = ["cholesky_solve", "cholesky_inverse"]


# -- cholesky_solve and cholesky_inverse ----------------------------------------------------------
def _gram(xp: Any, f: Any, upper: bool) -> Any:
    """``L L^T`` (``U^T U`` when ``upper``) from the triangle of ``f``."""
    t = _triangle(xp, f, upper, False)
    return xp.matmul(_mT(xp, t), t) if upper else xp.matmul(t, _mT(xp, t))


def _cholesky_solve_kernel(xp: Any, b: Any, f: Any, upper: bool) -> Any:
    if upper:  # U^T U X = B
        y = lu_kernels.triangular_solve(_swap(f), b, lower=True, unit=False)
        return lu_kernels.triangular_solve(f, y, lower=False, unit=False)
    y = lu_kernels.triangular_solve(f, b, lower=True, unit=False)
    return lu_kernels.triangular_solve(_swap(f), y, lower=False, unit=False)


def _factor_gradient(xp: Any, f: Any, sym: Any, upper: bool) -> Any:
    """PyTorch's gradient of the factor from the symmetric ``sym`` (``-sym L`` or ``-U sym``:
    all of the matrix, not only the triangle the function read)."""
    return -xp.matmul(f, sym) if upper else -xp.matmul(sym, f)


def _cholesky_solve_vjp(xp: Any, g: Any, c: Any) -> tuple:
    f, x, upper = c.inputs[1], c.out, c.params["upper"]
    if isinstance(g, Tensor):  # through the op itself, so second derivatives are PyTorch's
        gb = _CHOLESKY_SOLVE(g, f, upper=upper)
    elif isinstance(g, np.ndarray):  # by substitution: a zero on the diagonal gives inf, nan
        gb = _cholesky_solve_kernel(xp, g, f, upper)
    else:
        gb = xp.solve(_gram(xp, f, upper), g)
    gf = None
    if c.needs[1]:
        common = xp.matmul(gb, _mT(xp, x))
        gf = _factor_gradient(xp, f, common + _mT(xp, common), upper)
    return gb if c.needs[0] else None, gf


_CHOLESKY_SOLVE = Structural(
    "cholesky_solve",
    lambda xp, b, f, upper: xp.solve(_gram(xp, f, upper), b),
    _cholesky_solve_vjp,
    saves=(1,),
    saves_out=True,
    backward="CholeskySolveBackward0",
    kernel=_cholesky_solve_kernel,
)


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """The solution ``X`` of ``A X = B`` for ``A = L L^T`` given its Cholesky factor ``L``
    (``A = U^T U`` when ``upper``); batch dimensions broadcast.

    Examples
    --------
    >>> import symgrad
    >>> L = symgrad.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> symgrad.cholesky_solve(symgrad.tensor([[6.0], [4.0]]), L)
    tensor([[1.],
            [1.]])
    """
    op = "cholesky_solve"
    for name, position, value in (("input", 1, input), ("input2", 2, input2)):
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")  # fmt: skip
    require_bool(op, "upper", upper)
    if input.ndim < 2:
        raise RuntimeError(
            f"b should have at least 2 dimensions, but has {input.ndim} dimensions instead"
        )
    _square_coefficient(op, input2)
    _matching_rows(op, input, input2)
    _same_dtype(input, input2)
    _floating("cholesky_solve_cpu", input2)
    _batch(input2, input)
    return _CHOLESKY_SOLVE(input, input2, upper=bool(upper))


def _cholesky_inverse_kernel(xp: Any, f: np.ndarray, upper: bool) -> np.ndarray:
    diagonal = np.diagonal(f, axis1=-2, axis2=-1)
    if np.any(diagonal == 0):
        raise _zero_diagonal(diagonal)
    eye = np.broadcast_to(np.eye(f.shape[-1], dtype=f.dtype), f.shape)
    inverse = lu_kernels.triangular_solve(f, eye, lower=not upper, unit=False)
    return inverse @ _swap(inverse) if upper else _swap(inverse) @ inverse


def _zero_diagonal(diagonal: np.ndarray) -> LinAlgError:
    flat = diagonal.reshape((-1, diagonal.shape[-1]))
    batch, column = (int(i[0]) for i in np.nonzero(flat == 0))
    where = f"(Batch element {batch}): " if diagonal.ndim > 1 else ""
    return LinAlgError(
        f"cholesky_inverse: {where}The diagonal element {column + 1} is zero, the inversion "
        "could not be completed because the input matrix is singular."
    )


def _cholesky_inverse_vjp(xp: Any, g: Any, c: Any) -> tuple:
    f, out, upper = c.inputs[0], c.out, c.params["upper"]
    sym = xp.matmul(out, xp.matmul(g + _mT(xp, g), out))
    return (_factor_gradient(xp, f, sym, upper),)


_CHOLESKY_INVERSE = Structural(
    "cholesky_inverse",
    lambda xp, f, upper: xp.inv(_gram(xp, f, upper)),
    _cholesky_inverse_vjp,
    saves=(0,),
    saves_out=True,
    backward="CholeskyInverseBackward0",
    kernel=_cholesky_inverse_kernel,
)


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """The inverse of ``A = L L^T`` given its Cholesky factor ``L`` (``A = U^T U`` when
    ``upper``); a zero on the diagonal of the factor raises
    :class:`~symgrad.linalg.LinAlgError`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.cholesky_inverse(symgrad.tensor([[2.0, 0.0], [0.0, 1.0]]))
    tensor([[0.2500, 0.0000],
            [0.0000, 1.0000]])
    """
    op = "cholesky_inverse"
    if not isinstance(input, Tensor):
        raise TypeError(
            f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}"
        )
    require_bool(op, "upper", upper)
    if input.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {input.shape[-2]} by "
            f"{input.shape[-1]} matrices"
        )
    _floating("cholesky_inverse_out_cpu", input)
    return _CHOLESKY_INVERSE(input, upper=bool(upper))


bind_methods({"cholesky_solve": cholesky_solve, "cholesky_inverse": cholesky_inverse})
