"""Determinants, inverses and linear solves of (batches of) square matrices: ``det``,
``slogdet``, ``logdet``, ``inv``, ``solve``, ``matrix_power``.

Each is declared once over the vocabulary words ``det``, ``inv``, ``solve`` and
``adjugate``, so the same rule gives the numeric gradient and, for small matrices, the closed
form: ``d det(A) / dA = adj(A)^T`` (the cofactor matrix, exact for singular matrices too).
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import numpy as np

from symgrad._data import broadcast_mismatch
from symgrad.ops.linalg import matmul
from symgrad.ops.linalg_inputs import floating_input, square_matrices
from symgrad.prim import linalg_kernels
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.factorization import Factorization
from symgrad.prim.numpy_xp import NP
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["det", "slogdet", "logdet", "inverse", "matrix_power"]


@cache
def return_type(op: str, fields: tuple) -> type:
    """A named tuple printed like PyTorch's return types (``torch.return_types.linalg_qr``)."""

    def __repr__(self: Any) -> str:
        inner = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"symgrad.return_types.{op}(\n{inner})"

    base = NamedTuple(op, [(f, Tensor) for f in fields])  # type: ignore[misc]
    namespace = {"__slots__": (), "__repr__": __repr__, "__module__": "symgrad.return_types"}
    return type(op, (base,), namespace)


def require_broadcast(*shapes: Any) -> None:
    """PyTorch's RuntimeError for shapes (of batches) that don't broadcast together."""
    mismatch = broadcast_mismatch([list(shape) for shape in shapes])
    if mismatch:  # " (the size of tensor a ...)" as PyTorch's sentence
        raise RuntimeError(mismatch[2].upper() + mismatch[3:-1])


def array_dtype(a: Any) -> np.dtype:
    """The NumPy dtype of an array or a tensor (constants made for it match it)."""
    return a._data.dtype if isinstance(a, Tensor) else np.asarray(a).dtype


def _per_matrix(xp: Any, s: Any, ndim: int) -> Any:
    """A value per matrix (a determinant, its gradient) made to broadcast against the batch."""
    return s if ndim == 2 else xp.unsqueeze(xp.unsqueeze(s, -1), -1)


def _cofactor(xp: Any, a: Any) -> Any:
    return xp.transpose(xp.adjugate(a), -1, -2)


# -- det --------------------------------------------------------------------------------------
def _det_vjp(xp: Any, g: Any, c: Any) -> tuple:
    a, nd = c.inputs[0], len(c.shapes[0])
    if _recorded(xp, g, a):
        return (_recorded_det_gradient(xp, g, a, nd),)
    return (_cofactor(xp, a) * _per_matrix(xp, g, nd),)


def _recorded_det_gradient(xp: Any, g: Any, a: Tensor, nd: int) -> Tensor:
    """Under ``create_graph``, PyTorch's formula: ``linalg.solve(A^T, g det(A) I)`` where no
    ``|det| < 100 eps`` (the cofactors where one is: PyTorch takes them from an SVD)."""
    if not a.numel():
        return xp.constant(np.zeros(a.shape, a._data.dtype))
    if a.shape[-1] == 1:  # (g itself, as PyTorch records it)
        return xp.expand(_per_matrix(xp, g, nd), tuple(a.shape))
    det = _DET(a)
    if bool((abs(det._data) >= 100 * np.finfo(a._data.dtype).eps).all()):
        return _transposed_solve(a, g * det, nd)
    return _cofactor(xp, a) * _per_matrix(xp, g, nd)


def _recorded(xp: Any, g: Any, a: Any) -> bool:  # (create_graph, not vmap)
    return xp is INTERPRETERS.tensor and type(g) is not BatchedTensor and type(a) is Tensor


def _transposed_solve(a: Tensor, s: Tensor, nd: int) -> Tensor:
    """``s A^-T`` (``s``: a number per matrix) as PyTorch records it: ``solve(A^T, s I)``."""
    eye = Tensor._make(np.eye(a.shape[-1], dtype=a._data.dtype))
    d = eye * _per_matrix(INTERPRETERS.tensor, s, nd)
    return _SOLVE(a.transpose(-1, -2), d, left=True, vector=False, checked="linalg.solve")


def _det_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    return xp.sum(_cofactor(xp, c.inputs[0]) * tangents[0], (-2, -1))


_DET = Structural(
    "det",
    lambda xp, a: xp.det(a),
    _det_vjp,
    saves=(0,),
    backward="LinalgDetBackward0",
    jvp=_det_jvp,
)


def det(input: Tensor) -> Tensor:
    """The determinant of each square matrix of ``A`` (``linalg.det``); its gradient is the
    cofactor matrix ``adj(A)^T``, also where ``A`` is singular.

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
    >>> d = symgrad.linalg.det(a)
    >>> d.backward()
    >>> d.item(), a.grad.tolist()
    (5.0, [[3.0, -1.0], [-1.0, 2.0]])
    """
    square_matrices("linalg.det", input)
    return _DET(input)


# -- slogdet and logdet -------------------------------------------------------------------------
SignLogAbsDet = return_type("linalg_slogdet", ("sign", "logabsdet"))


def _slogdet_kernel(a: np.ndarray) -> tuple:
    sign, logabs = np.linalg.slogdet(a)
    return np.asarray(sign, a.dtype), np.asarray(logabs, a.dtype)


def _slogdet_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    g = grads[1]
    if g is None:
        return (None,)
    a = c.inputs[0]
    if xp is NP:
        return (linalg_kernels.logabsdet_gradient(a, g),)
    nd = len(c.shapes[0])
    if _recorded(xp, g, a):  # (create_graph: PyTorch's linalg.solve(A^T, g I))
        return (_transposed_solve(a, g, nd),)
    # A^-T as adj(A)^T / det(A): infinite, not an error, where A is singular
    return (_cofactor(xp, a) * _per_matrix(xp, g / xp.det(a), nd),)


def _slogdet_forward(xp: Any, a: Any) -> tuple:
    d = xp.det(a)
    return xp.sign(d), xp.log(xp.abs(d))


_SLOGDET = Factorization(
    "slogdet",
    _slogdet_kernel,
    _slogdet_vjp,
    backward="LinalgSlogdetBackward0",
    n_outputs=2,
    forward=_slogdet_forward,
    saves_outputs=(0,),  # PyTorch saves the sign, not the log
)


def linalg_slogdet(input: Tensor) -> Any:
    """The sign and the log of the absolute value of the determinant (``linalg.slogdet``),
    which stays finite where the determinant itself would overflow.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.slogdet(symgrad.tensor([[0.0, 2.0], [1.0, 0.0]]))
    symgrad.return_types.linalg_slogdet(
    sign=tensor(-1.),
    logabsdet=tensor(0.6931))
    """
    square_matrices("linalg.slogdet", input)
    return SignLogAbsDet(*_SLOGDET(input))


_SLOGDET_TYPE = return_type("slogdet", ("sign", "logabsdet"))


def slogdet(input: Tensor) -> Any:
    """``torch.slogdet`` (and the method): :func:`symgrad.linalg.slogdet`, named ``slogdet``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.slogdet(symgrad.tensor([[0.0, 2.0], [1.0, 0.0]])).sign
    tensor(-1.)
    """
    return _SLOGDET_TYPE(*linalg_slogdet(input))


def logdet(input: Tensor) -> Tensor:
    """The log of the determinant: nan where it is negative, -inf where it is 0.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.logdet(symgrad.tensor([[2.0, 0.0], [0.0, 3.0]]))
    tensor(1.7918)
    """
    from symgrad.ops.math import where

    square_matrices("logdet", input)
    sign, logabs = _SLOGDET(input)
    return where(sign == -1, float("nan"), logabs)


# -- inv ----------------------------------------------------------------------------------------
def _inv_vjp(xp: Any, g: Any, c: Any) -> tuple:
    out_t = xp.transpose(c.out, -1, -2)
    return (-xp.matmul(xp.matmul(out_t, g), out_t),)


def _inv_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    return -xp.matmul(xp.matmul(c.out, tangents[0]), c.out)


_INV = Structural(
    "inv",
    lambda xp, a, checked=None: xp.inv(a),
    _inv_vjp,
    # checked: the function named in the error for a singular matrix, None for LAPACK's values
    kernel=lambda xp, a, checked=None: linalg_kernels.inv(a, checked),
    saves_out=True,
    backward="LinalgInvExBackward0",
    jvp=_inv_jvp,
)


def inv(A: Tensor) -> Tensor:
    """The inverse of each square matrix of ``A`` (``linalg.inv``); a singular matrix raises
    :class:`~symgrad.linalg.LinAlgError`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.inv(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    square_matrices("linalg.inv", A)
    return _INV(A, checked="linalg.inv")


def inverse(input: Tensor) -> Tensor:
    """PyTorch's ``torch.inverse``: :func:`symgrad.linalg.inv`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.inverse(symgrad.tensor([[4.0]]))
    tensor([[0.2500]])
    """
    return inv(input)


# -- solve --------------------------------------------------------------------------------------
def _solve_forward(xp: Any, a: Any, b: Any, left: bool, vector: bool, checked: Any = None) -> Any:
    if vector:
        b = xp.unsqueeze(b, -1 if left else -2)
    if left:
        x = xp.solve(a, b)
    else:  # X A = B is A^T X^T = B^T
        x = xp.transpose(xp.solve(xp.transpose(a, -1, -2), xp.transpose(b, -1, -2)), -1, -2)
    return xp.squeeze(x, -1 if left else -2) if vector else x


def _solve_kernel(xp: Any, a: Any, b: Any, left: bool, vector: bool, checked: Any = None) -> Any:
    """As PyTorch, from the LU factorization of ``A`` (for ``X A = B`` too: ``A^T X^T = B^T``
    by the factors of ``A``); ``checked``: the function named in the error for a singular
    matrix, None for LAPACK's values."""
    if vector:
        b = b[..., None] if left else b[..., None, :]
    if left:
        x = linalg_kernels.solve(a, b, checked)
    else:
        x = np.swapaxes(linalg_kernels.solve(a, np.swapaxes(b, -1, -2), checked, True), -1, -2)
    return x[..., 0] if vector and left else x[..., 0, :] if vector else x


def _solve_vjp(xp: Any, g: Any, c: Any) -> tuple:
    a, x, left, vector = c.inputs[0], c.out, c.params["left"], c.params["vector"]
    if vector:
        g, x = (xp.unsqueeze(v, -1 if left else -2) for v in (g, x))
    a_t = xp.transpose(a, -1, -2)
    if left:  # X = A^-1 B
        gb = xp.solve(a_t, g)
        ga = -xp.matmul(gb, xp.transpose(x, -1, -2)) if c.needs[0] else None
    else:  # X = B A^-1
        gb = xp.transpose(xp.solve(a, xp.transpose(g, -1, -2)), -1, -2)
        ga = -xp.matmul(xp.transpose(x, -1, -2), gb) if c.needs[0] else None
    if vector:
        gb = xp.squeeze(gb, -1 if left else -2)
    return ga, gb if c.needs[1] else None


def _solve_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    a, x, left, vector = c.inputs[0], c.out, c.params["left"], c.params["vector"]
    ta, tb = tangents
    if vector:
        x = xp.unsqueeze(x, -1 if left else -2)
        tb = None if tb is None else xp.unsqueeze(tb, -1 if left else -2)
    rhs = 0 if tb is None else tb
    if ta is not None:
        rhs = rhs - (xp.matmul(ta, x) if left else xp.matmul(x, ta))
    if left:
        t = xp.solve(a, rhs)
    else:
        t = xp.transpose(xp.solve(xp.transpose(a, -1, -2), xp.transpose(rhs, -1, -2)), -1, -2)
    return xp.squeeze(t, -1 if left else -2) if vector else t


_SOLVE = Structural(
    "solve",
    _solve_forward,
    _solve_vjp,
    kernel=_solve_kernel,
    saves=(0,),
    saves_out=True,
    backward="LinalgSolveExBackward0",
    jvp=_solve_jvp,
)


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``X A = B`` when ``left`` is False) for square
    ``A``; ``B`` may be a batch of vectors or of matrices, and batch dimensions broadcast.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.solve(symgrad.tensor([[2.0, 0.0], [0.0, 4.0]]), symgrad.tensor([1.0, 1.0]))
    tensor([0.5000, 0.2500])
    """
    return _solve(A, B, left, "linalg.solve")


def _solve(A: Tensor, B: Tensor, left: bool, checked: str | None) -> Tensor:
    square_matrices("linalg.solve", A, floating=False)
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg.solve(): argument 'B' must be Tensor, not {type(B).__name__}")
    if A._data.dtype.kind not in "fc":
        floating_input("linalg.solve", A)
    if A.dtype != B.dtype:  # (PyTorch checks before refusing float16)
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{A.dtype.scalar_type} and B of type {B.dtype.scalar_type} instead"
        )
    floating_input("linalg.solve", A)
    n = A.shape[-1]
    # only A X = B takes a batch of vectors; for X A = B, B is always a batch of matrices
    vector = left and (
        B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    )
    rows = B.shape[-1] if vector else (B.shape[-2] if left else B.shape[-1])
    if B.ndim == 0 or rows != n or (not left and B.ndim == 1):
        shape_b = f"{B.shape[-1]}x1" if vector or B.ndim < 2 else f"{B.shape[-2]}x{B.shape[-1]}"
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {shape_b})"
        )
    require_broadcast(B.shape[: -1 if vector else -2], A.shape[:-2])
    return _SOLVE(A, B, left=bool(left), vector=vector, checked=checked)


# -- matrix_power -------------------------------------------------------------------------------
def matrix_power(input: Tensor, n: int) -> Tensor:
    """``A`` multiplied by itself ``n`` times (``n`` < 0: its inverse's power), with
    PyTorch's order of products.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.matrix_power(symgrad.tensor([[1.0, 1.0], [0.0, 1.0]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    A = input
    square_matrices("linalg.matrix_power", A, floating=False)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"linalg.matrix_power(): argument 'n' must be int, not {type(n).__name__}")
    if n == 0:
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), A.shape)
        return A.clone().copy_(Tensor._make(np.array(eye)))
    if n == -1:
        return inv(A)
    if n < 0:
        A, n = inv(A), -n
    if n == 1:
        return A.clone()
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    z = result = None
    while n > 0:  # PyTorch's binary powering, least significant bit first
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# -- the tensor interpreter's matrix words --------------------------------------------------------
def xp_det(a: Tensor) -> Tensor:
    return _DET(a)


def xp_inv(a: Tensor) -> Tensor:
    return _INV(a)


def xp_solve(a: Tensor, b: Tensor) -> Tensor:
    return _SOLVE(a, b, left=True, vector=False)
