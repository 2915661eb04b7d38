"""Using a packed LU factorization: ``lu_unpack`` (``P``, ``L``, ``U`` from ``LU`` and its
pivots) and ``linalg.lu_solve`` (``A X = B`` and its variants, ``A = P L U``), with PyTorch's
errors and gradients (``LuUnpackBackward0``, ``LinalgLuSolveBackward0``).

The pivots are not differentiable: they travel as a parameter, and ``P`` is a constant.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad._meta import MetaArray
from symgrad._tracing import TRACE, data_params, data_value
from symgrad.creation import empty
from symgrad.ops.determinants import array_dtype, require_broadcast, return_type
from symgrad.ops.lu_factorization import _factors, lu
from symgrad.ops.triangular_solves import _band, _mT, _right_solve
from symgrad.prim import lu_kernels
from symgrad.prim.factorization import Factorization
from symgrad.prim.numpy_xp import NP
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor, bind_methods

__all__ = ["lu_unpack", "lu_solve"]


def _pivots(op: str, LU: Any, pivots: Any) -> np.ndarray:
    if not isinstance(LU, Tensor) or not isinstance(pivots, Tensor):
        bad = "LU_data" if not isinstance(LU, Tensor) else "LU_pivots"
        raise TypeError(f"{op}(): argument '{bad}' must be Tensor")
    if LU.ndim < 2:
        raise RuntimeError(
            f"torch.{op}: Expected tensor with 2 or more dimensions. Got size: {list(LU.shape)} "
            "instead"
        )
    solve = op == "linalg.lu_solve"
    if pivots._data.dtype != np.int32 and solve:
        raise RuntimeError(f"{op}: pivots should be a Tensor of scalar type torch.int32")
    if pivots._data.dtype != np.int32:
        raise RuntimeError(
            f"torch.{op}: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
            "Note: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"
        )
    m, n = LU.shape[-2:]
    if solve and (pivots.ndim == 0 or pivots.shape[-1] != n):
        raise RuntimeError(
            f"{op}: Number of pivots per batch should be same as the dimension of the matrix"
        )
    if not solve and tuple(pivots.shape) != tuple(LU.shape[:-2]) + (min(m, n),):
        raise RuntimeError(
            f"torch.{op}: the pivots have shape {list(pivots.shape)}, but the LU factorization "
            f"of shape {list(LU.shape)} has {min(m, n)} pivots per matrix: pass the pivots "
            "linalg.lu_factor returned with it"
        )
    piv = pivots._data
    if isinstance(piv, MetaArray):  # no values to check
        return piv
    if piv.size and (piv.min() < 1 or piv.max() > m):
        raise RuntimeError(
            "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."
            "Did you properly pass the result of lu_factor?"
        )
    return piv


# -- lu_unpack ------------------------------------------------------------------------------------
def _unpack_kernel(lu: np.ndarray, unpack_data: bool) -> tuple:
    """A placeholder for ``P`` (found from the pivots, outside the node), ``L`` and ``U``."""
    empty = np.zeros((0,), lu.dtype)
    low, up = lu_kernels.unpack(lu) if unpack_data else (empty, empty)
    return empty, low, up


def _permutation(lu: np.ndarray, pivots: np.ndarray, unpack_pivots: bool) -> np.ndarray:
    if not unpack_pivots:
        return np.zeros((0,), lu.dtype)
    return lu_kernels.permutation_matrix(pivots, lu.shape[-2], lu.dtype)


def _unpack_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    _, gl, gu = grads
    if not c.params["unpack_data"] or (gl is None and gu is None):
        return (None,)
    shape, dtype = c.shapes[0], array_dtype(c.inputs[0])
    m, n = shape[-2:]
    k = min(m, n)
    zeros = np.zeros(shape, dtype)
    gl = xp.constant(zeros[..., :, :k]) if gl is None else _band(xp, gl, (m, k), dtype, -1, True)
    gu = xp.constant(zeros[..., :k, :]) if gu is None else _band(xp, gu, (k, n), dtype, 0, False)
    if m < n:
        gl = xp.cat([gl, xp.constant(zeros[..., :, k:])], -1)
    elif m > n:
        gu = xp.cat([gu, xp.constant(zeros[..., k:, :])], -2)
    return (gl + gu,)


_UNPACK = Factorization(
    "lu_unpack",
    _unpack_kernel,
    _unpack_vjp,
    backward="LuUnpackBackward0",
    n_outputs=3,
    differentiable=(1, 2),
    saves_outputs=(),
)


def lu_unpack(
    LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True
) -> Any:
    """``(P, L, U)`` from the output of :func:`symgrad.linalg.lu_factor`, with
    ``A = P L U``; a factor not asked for (``unpack_data``, ``unpack_pivots`` False) is an
    empty tensor.

    Examples
    --------
    >>> import symgrad
    >>> LU, pivots = symgrad.linalg.lu_factor(symgrad.tensor([[1.0, 2.0], [4.0, 2.0]]))
    >>> symgrad.lu_unpack(LU, pivots).P
    tensor([[0., 1.],
            [1., 0.]])
    """
    piv = _pivots("lu_unpack", LU_data, LU_pivots)
    _, low, up = _UNPACK(LU_data, unpack_data=bool(unpack_data))
    if isinstance(piv, MetaArray):  # P of a meta factorization: its shape, as PyTorch's
        m = LU_data.shape[-2]
        shape = tuple(LU_data.shape[:-2]) + (m, m) if unpack_pivots else (0,)
        return return_type("lu_unpack", ("P", "L", "U"))(
            empty(shape, dtype=LU_data.dtype, device="meta"), low, up
        )
    p = Tensor._make(_permutation(LU_data._data, piv, bool(unpack_pivots)))
    if TRACE.log is not None:  # a compiled program finds P afresh from the pivots
        data_value(p, lambda lu, q: _permutation(lu, q, bool(unpack_pivots)), LU_data, LU_pivots)
    return return_type("lu_unpack", ("P", "L", "U"))(p, low, up)


# -- lu_solve -------------------------------------------------------------------------------------
def _matrix(xp: Any, lu: Any, pivots: np.ndarray) -> Any:
    """``A = P L U`` on ``xp``."""
    n = lu.shape[-1]
    dtype = array_dtype(lu)
    low, up = _factors(xp, lu, n, n, dtype)
    p = lu_kernels.permutation_matrix(pivots, n, dtype)
    return xp.matmul(xp.constant(p), xp.matmul(low, up))


def _op_a(xp: Any, a: Any, adjoint: bool) -> Any:
    return _mT(xp, a) if adjoint else a


def _lu_solve_forward(xp: Any, lu: Any, b: Any, pivots: Any, left: bool, adjoint: bool) -> Any:
    a = _op_a(xp, _matrix(xp, lu, pivots), adjoint)
    return xp.solve(a, b) if left else _right_solve(xp, b, a)


def _lu_solve_kernel(xp: Any, lu: Any, b: Any, pivots: Any, left: bool, adjoint: bool) -> Any:
    """By substitution with the triangular factors, as LAPACK's ``getrs``."""
    rhs = b if left else np.swapaxes(b, -1, -2)
    y = lu_kernels.lu_solve(lu, pivots, rhs, adjoint=left == adjoint)
    return y if left else np.swapaxes(y, -1, -2)


def _lu_gradient(xp: Any, ga: Any, lu: Any, pivots: Any) -> Any:
    """The gradient of the packed ``LU`` from that of ``A = P L U``."""
    n, dtype = lu.shape[-1], array_dtype(lu)
    low, up = _factors(xp, lu, n, n, dtype)
    p_t = np.swapaxes(lu_kernels.permutation_matrix(pivots, n, dtype), -1, -2)
    pt_ga = xp.matmul(xp.constant(p_t), ga)
    gl = _band(xp, xp.matmul(pt_ga, _mT(xp, up)), (n, n), dtype, -1, True)
    return gl + _band(xp, xp.matmul(_mT(xp, low), pt_ga), (n, n), dtype, 0, False)


def _lu_solve_vjp(xp: Any, g: Any, c: Any) -> tuple:
    (lu, _), x, params = c.inputs, c.out, c.params
    left, adjoint = params["left"], params["adjoint"]
    gb = _adjoint_solve(xp, lu, g, params)
    if left:  # op(A) X = B
        g_op = -xp.matmul(gb, _mT(xp, x))
    else:  # X op(A) = B
        g_op = -xp.matmul(_mT(xp, x), gb)
    glu = None
    if c.needs[0]:
        glu = _lu_gradient(xp, _op_a(xp, g_op, adjoint), lu, params["pivots"])
    return glu, gb if c.needs[1] else None


def _adjoint_solve(xp: Any, lu: Any, g: Any, params: dict) -> Any:
    """The solve with ``op(A)^T`` the gradient needs, as PyTorch's formula: by substitution
    with the factors (``lu_solve`` itself on tensors), so a zero pivot gives inf and nan."""
    flipped = dict(params, adjoint=not params["adjoint"])
    if xp is NP:
        return _lu_solve_kernel(xp, lu, g, **flipped)
    if xp is INTERPRETERS.tensor:
        return _LU_SOLVE(lu, g, **flipped)
    a = _mT(xp, _op_a(xp, _matrix(xp, lu, params["pivots"]), params["adjoint"]))
    return xp.solve(a, g) if params["left"] else _right_solve(xp, g, a)


def _lu_solve_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    (lu, _), x, params = c.inputs, c.out, c.params
    left, adjoint, pivots = params["left"], params["adjoint"], params["pivots"]
    tlu, tb = tangents
    a = _op_a(xp, _matrix(xp, lu, pivots), adjoint)
    rhs = 0 if tb is None else tb
    if tlu is not None:
        n, dtype = lu.shape[-1], array_dtype(lu)
        low, up = _factors(xp, lu, n, n, dtype)
        tl = _band(xp, tlu, (n, n), dtype, -1, True)
        tu = _band(xp, tlu, (n, n), dtype, 0, False)
        p = xp.constant(lu_kernels.permutation_matrix(pivots, n, dtype))
        ta = _op_a(xp, xp.matmul(p, xp.matmul(tl, up) + xp.matmul(low, tu)), adjoint)
        rhs = rhs - (xp.matmul(ta, x) if left else xp.matmul(x, ta))
    return xp.solve(a, rhs) if left else _right_solve(xp, rhs, a)


_LU_SOLVE = Structural(
    "lu_solve",
    _lu_solve_forward,
    _lu_solve_vjp,
    saves=(0,),
    saves_out=True,
    backward="LinalgLuSolveBackward0",
    kernel=_lu_solve_kernel,
    jvp=_lu_solve_jvp,
)


def linalg_lu_solve(
    LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False
) -> Tensor:
    """The solution ``X`` of ``A X = B`` for ``A`` given by :func:`symgrad.linalg.lu_factor`
    (``A^T X = B`` when ``adjoint``, ``X A = B`` when not ``left``); batch dimensions
    broadcast.

    Examples
    --------
    >>> import symgrad
    >>> A = symgrad.tensor([[1.0, 2.0], [4.0, 2.0]])
    >>> LU, pivots = symgrad.linalg.lu_factor(A)
    >>> symgrad.linalg.lu_solve(LU, pivots, symgrad.tensor([[3.0], [6.0]]))
    tensor([[1.],
            [1.]])
    """
    if isinstance(LU, Tensor) and LU.ndim >= 2 and LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(
            f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
            f"{LU.shape[-2]} by {LU.shape[-1]} matrices"
        )
    if isinstance(LU, Tensor) and LU._data.dtype.kind not in "fc":
        raise RuntimeError(
            "torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
            f"{LU.dtype.scalar_type}"
        )
    piv = _pivots("linalg.lu_solve", LU, pivots)
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.lu_solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if LU.dtype != B.dtype:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{LU.dtype.scalar_type} and B of type {B.dtype.scalar_type} instead"
        )
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eq} "
            f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    require_broadcast(B.shape[:-2], LU.shape[:-2])
    if LU._data.dtype == np.float16:
        raise NotImplementedError("\"linalg.lu_solve_cpu\" not implemented for 'Half'")
    flags = {"left": bool(left), "adjoint": bool(adjoint)}
    out = _LU_SOLVE(LU, B, pivots=piv, **flags)
    if TRACE.log is not None:  # a compiled program reads the pivots afresh
        data_params(out, lambda p: {"pivots": p, **flags}, pivots)
    return out


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """PyTorch's older ``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU_data,
    LU_pivots, b)``.

    Examples
    --------
    >>> import warnings, symgrad
    >>> warnings.simplefilter("ignore")
    >>> LU, pivots = symgrad.linalg.lu_factor(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
    >>> symgrad.lu_solve(symgrad.tensor([[2.0], [2.0]]), LU, pivots)
    tensor([[1.0000],
            [0.5000]])
    """
    warnings.warn(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in "
        "a future PyTorch release. Note that torch.linalg.lu_solve has its arguments reversed: "
        "X = torch.lu_solve(B, LU, pivots) should be replaced with "
        "X = torch.linalg.lu_solve(LU, pivots, B)",
        UserWarning,
        stacklevel=2,
    )
    return linalg_lu_solve(LU_data, LU_pivots, b)


bind_methods({"lu": lu, "lu_solve": lu_solve})
