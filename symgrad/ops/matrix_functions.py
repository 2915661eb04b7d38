"""Functions of matrices and vectors: ``matrix_exp``, ``pinv``, ``cross``, ``multi_dot`` and
the vector and matrix norms of ``torch.linalg``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad._arguments import require_same_dtype, require_tensor_sequence, require_tensors
from symgrad._user_warnings import warn_at_user
from symgrad.ops.atleast import broadcast_shapes
from symgrad.ops.determinants import array_dtype, require_broadcast, square_matrices
from symgrad.ops.linalg import matmul
from symgrad.ops.shape import expand_to
from symgrad.prim.structural import Structural
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor

__all__ = ["matrix_exp", "pinverse", "cross"]

_WARNED: set = set()  # the deprecation warnings given in this process


# -- matrix_exp -----------------------------------------------------------------------------------
def _block_exp(xp: Any, a: Any, corner: Any, shape: tuple) -> Any:
    """The top-right block of ``exp([[A, C], [0, A]])``: the derivative of ``exp`` at ``A``
    in the direction ``C`` (Najfeld and Havel)."""
    n = shape[-1]
    zeros = xp.constant(np.zeros(shape, dtype=array_dtype(a)))
    top = xp.cat([a, corner], -1)
    bottom = xp.cat([zeros, a], -1)
    block = xp.matrix_exp(xp.cat([top, bottom], -2))
    return xp.getitem(block, (Ellipsis, slice(0, n), slice(n, None)))


def _matrix_exp_vjp(xp: Any, g: Any, c: Any) -> tuple:
    return (_block_exp(xp, xp.transpose(c.inputs[0], -1, -2), g, c.shapes[0]),)


def _matrix_exp_jvp(xp: Any, tangents: tuple, c: Any) -> Any:
    return _block_exp(xp, c.inputs[0], tangents[0], c.shapes[0])


_MATRIX_EXP = Structural(
    "matrix_exp",
    lambda xp, a: xp.matrix_exp(a),
    _matrix_exp_vjp,
    saves=(0,),
    backward="LinalgMatrixExpBackward0",
    jvp=_matrix_exp_jvp,
)


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential ``sum_k A^k / k!`` of each square matrix of ``A`` (scaling and
    squaring with a Pade approximant); closed forms for small matrices of symbols.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.matrix_exp(symgrad.tensor([[0.0, 1.0], [0.0, 0.0]]))
    tensor([[1., 1.],
            [0., 1.]])
    """
    square_matrices("linalg.matrix_exp", A)
    return _MATRIX_EXP(A)


def xp_matrix_exp(a: Tensor) -> Tensor:
    return _MATRIX_EXP(a)


# -- pinv -----------------------------------------------------------------------------------------
def _pinv_kernel(xp: Any, a: np.ndarray, atol: float, rtol: float, hermitian: bool) -> Any:
    a = np.asarray(a)
    m, n = a.shape[-2:]
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (n, m), a.dtype)
    if hermitian:  # eigenvalues stand for the singular values, their signs kept
        values, vectors = np.linalg.eigh(a)
        s = np.abs(values)
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        values = s
    kept = s > np.maximum(atol, rtol * np.max(s, axis=-1, keepdims=True))
    inverse = np.where(kept, 1 / np.where(kept, values, 1), 0)
    if hermitian:
        return (vectors * inverse[..., None, :]) @ np.swapaxes(vectors, -1, -2)
    return (np.swapaxes(vh, -1, -2) * inverse[..., None, :]) @ np.swapaxes(u, -1, -2)


def _no_closed_form(name: str) -> Any:
    def forward(xp: Any, *args: Any, **params: Any) -> Any:
        raise NotImplementedError(
            f"linalg.{name} has no closed form: its value depends on the rank of the matrix; "
            "use the numeric gradient"
        )

    return forward


def _pinv_vjp(xp: Any, g: Any, c: Any) -> tuple:
    """``-P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)`` for ``P = pinv(A)``."""
    a, p = c.inputs[0], c.out

    def t(x: Any) -> Any:
        return xp.transpose(x, -1, -2)

    gt = t(g)
    left = xp.matmul(gt, xp.matmul(p, t(p)))
    right = xp.matmul(xp.matmul(t(p), p), gt)
    ga = -xp.matmul(xp.matmul(t(p), g), t(p))
    ga = ga + left - xp.matmul(a, xp.matmul(p, left))
    if xp is INTERPRETERS.tensor and a.shape[-2] <= a.shape[-1]:
        # (create_graph: PyTorch's formula for m <= n ends with an addition)
        return (ga + (right - xp.matmul(xp.matmul(right, p), a)),)
    return (ga + right - xp.matmul(xp.matmul(right, p), a),)


_PINV = Structural(
    "pinv",
    _no_closed_form("pinv"),
    _pinv_vjp,
    saves=(0,),
    saves_out=True,
    backward="LinalgPinvBackward0",
    kernel=_pinv_kernel,
)


def _half(A: Tensor) -> bool:
    return A._data.dtype == np.float16


def pinv(
    A: Tensor,
    rcond: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
) -> Tensor:
    """The Moore-Penrose pseudo-inverse: singular values below ``max(atol, rtol * s_max)``
    count as zero (``rtol`` defaults to ``eps * max(m, n)`` unless a positive ``atol`` is
    given). Tolerances given as tensors hold one per matrix, broadcast with ``A``'s batch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.pinv(symgrad.tensor([[2.0, 0.0], [0.0, 0.0]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    >>> symgrad.linalg.pinv(symgrad.tensor([[4.0]]), atol=symgrad.tensor([1.0, 5.0]))
    tensor([[[0.2500]],
    <BLANKLINE>
            [[0.0000]]])
    """
    if not isinstance(A, Tensor) or A.ndim < 2 or A._data.dtype.kind not in "fc" or _half(A):
        what = f"{A.dtype.scalar_type}{{{list(A.shape)}}}" if isinstance(A, Tensor) else A
        raise RuntimeError(
            f"linalg.pinv({what}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types"
        )
    if any(isinstance(t, Tensor) for t in (rcond, atol, rtol)):
        return _pinv_tensor_tolerances(A, rcond, hermitian, atol, rtol)
    if rcond is not None:
        rtol = rcond
    eps = float(np.finfo(A._data.dtype).eps)
    if rtol is None:
        rtol = eps * max(A.shape[-2:]) if atol is None or atol == 0 else 0.0
    if hermitian:
        square_matrices("linalg.pinv", A)
    return _PINV(A, atol=float(atol or 0.0), rtol=float(rtol), hermitian=bool(hermitian))


_PINV_SIGNATURES = (
    "Tensor input, *, Tensor atol = None, Tensor rtol = None, bool hermitian = False, "
    "Tensor out = None",
    "Tensor input, *, float atol = None, float rtol = None, bool hermitian = False, "
    "Tensor out = None",
    "Tensor input, Tensor rcond, bool hermitian = False, *, Tensor out = None",
    "Tensor input, float rcond, bool hermitian = False, *, Tensor out = None",
)


def _kind(value: Any) -> str:
    return "Tensor" if isinstance(value, Tensor) else type(value).__name__


def _pinv_tensor_tolerances(A: Tensor, rcond: Any, hermitian: Any, atol: Any, rtol: Any) -> Tensor:
    """``pinv`` with tolerances given as tensors: one tolerance per matrix, the tolerances
    broadcast with the batch dimensions of ``A`` (the result has the broadcast batch)."""
    given = [t for t in (atol, rtol) if t is not None]
    if rcond is not None:
        given.append(rcond)
    mixed = not all(isinstance(t, Tensor) for t in given)
    if mixed and rcond is None and all(t.ndim == 0 for t in given if isinstance(t, Tensor)):
        # a 0-d tensor passes for a float, so these are the overload of floats
        atol, rtol = (t.item() if isinstance(t, Tensor) else t for t in (atol, rtol))
        return pinv(A, hermitian=hermitian, atol=atol, rtol=rtol)
    if mixed or (rcond is not None and len(given) > 1):
        kinds = ["Tensor"] + ([] if rcond is None else [_kind(rcond)])
        kinds += [f"{k}={_kind(v)}" for k, v in (("atol", atol), ("rtol", rtol)) if v is not None]
        expected = "".join(f"\n * ({s})" for s in _PINV_SIGNATURES)
        raise TypeError(
            f"linalg_pinv() received an invalid combination of arguments - got "
            f"({', '.join(kinds)}), but expected one of:{expected}"
        )
    real = A._data.dtype.type(0).real.dtype
    eps = float(np.finfo(real).eps)
    tol_atol = np.zeros((), real) if atol is None else np.asarray(atol._data, real)
    if rcond is not None:
        rtol = rcond
    if rtol is None:  # PyTorch's default, 0 wherever a positive atol is given
        tol_rtol = np.where(tol_atol > 0, 0.0, eps * max(A.shape[-2:])).astype(real)
    else:
        tol_rtol = np.asarray(rtol._data, real)
    batch = tuple(broadcast_shapes(A.shape[:-2], tol_atol.shape, tol_rtol.shape))
    if hermitian:
        square_matrices("linalg.pinv", A)
    if batch != tuple(A.shape[:-2]):
        A = expand_to(A, (*batch, *A.shape[-2:]))
    return _PINV(A, atol=tol_atol[..., None], rtol=tol_rtol[..., None], hermitian=bool(hermitian))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """PyTorch's ``torch.pinverse``: :func:`symgrad.linalg.pinv` with ``rtol=rcond``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.pinverse(symgrad.tensor([[4.0]]))
    tensor([[0.2500]])
    """
    if isinstance(rcond, Tensor):
        if rcond.ndim:
            raise TypeError("pinverse(): argument 'rcond' (position 2) must be float, not Tensor")
        rcond = rcond.item()
    return pinv(input, rtol=rcond)


# -- cross ----------------------------------------------------------------------------------------
def _cross(xp: Any, a: Any, b: Any, dim: int) -> Any:
    def part(x: Any, i: int) -> Any:
        return xp.getitem(x, (Ellipsis, slice(i, i + 1)) + (slice(None),) * (-1 - dim))

    a0, a1, a2 = (part(a, i) for i in range(3))
    b0, b1, b2 = (part(b, i) for i in range(3))
    return xp.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def _cross_vjp(xp: Any, g: Any, c: Any) -> tuple:
    a, b = c.inputs
    dim = c.params["dim"]
    ga = _cross(xp, b, g, dim) if c.needs[0] else None
    return ga, (_cross(xp, g, a, dim) if c.needs[1] else None)


_CROSS = Structural(
    "cross",
    _cross,
    _cross_vjp,
    saves=(0, 1),
    backward="LinalgCrossBackward0",
    jvp="bilinear",
)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (other dimensions broadcast).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.cross(symgrad.tensor([1.0, 0.0, 0.0]), symgrad.tensor([0.0, 1.0, 0.0]))
    tensor([0., 0., 1.])
    """
    if input.ndim != other.ndim:
        raise RuntimeError(
            f"linalg.cross: inputs must have the same number of dimensions, got {input.ndim} "
            f"and {other.ndim}"
        )
    ndim = input.ndim
    if not -ndim <= dim < ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but "
            f"got {dim})"
        )
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got "
            f"{input.shape[dim]} and {other.shape[dim]}"
        )
    require_broadcast(input.shape, other.shape)
    for t in (input, other):
        if t.dtype.scalar_type == "Bool":
            raise NotImplementedError("\"cross\" not implemented for 'Bool'")
    require_same_dtype(input, other, "other")
    return _CROSS(input, other, dim=dim - ndim if dim >= 0 else dim)


def cross(input: Tensor, other: Tensor, dim: Any = None) -> Tensor:
    """``torch.cross``: :func:`symgrad.linalg.cross` along ``dim``, by default the first
    dimension of size 3 (as PyTorch, with its deprecation warning).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.cross(symgrad.tensor([0.0, 1.0, 0.0]), symgrad.tensor([0.0, 0.0, 1.0]), dim=0)
    tensor([1., 0., 0.])
    """
    if type(input) is not Tensor or type(other) is not Tensor:
        require_tensors("cross", input, "other", other)
    if dim is None:
        if "cross" not in _WARNED:  # once per process, as PyTorch's TORCH_WARN_ONCE
            _WARNED.add("cross")
            warn_at_user(
                "Using torch.cross without specifying the dim arg is deprecated.\nPlease either "
                "pass the dim explicitly or simply use torch.linalg.cross.\nThe default value "
                "of dim will change to agree with that of linalg.cross in a future release."
            )
        require_broadcast(input.shape, other.shape)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((d for d, n in enumerate(shape) if n == 3), -1)
    return linalg_cross(input, other, dim=dim)


def linalg_diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the matrices of ``A`` (a view): ``torch.diagonal`` with the last two
    dimensions by default.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.diagonal(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    tensor([1., 4.])
    """
    from symgrad.ops.triangular import diagonal

    return diagonal(A, offset, dim1, dim2)


# -- multi_dot ------------------------------------------------------------------------------------
def _chain_order(dims: list) -> Any:
    """The cheapest parenthesisation of a chain of matrices (the classic dynamic program)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(tensors: Any) -> Tensor:
    """The product of a chain of matrices, multiplied in the cheapest order; the first may
    be a row vector and the last a column vector (1-D).

    Examples
    --------
    >>> import symgrad
    >>> a = symgrad.ones(2, 3)
    >>> symgrad.linalg.multi_dot([a, a.T, a])
    tensor([[6., 6., 6.],
            [6., 6., 6.]])
    """
    tensors = list(tensors)
    require_tensor_sequence(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    mats = [first.unsqueeze(0) if first.ndim == 1 else first, *tensors[1:-1]]
    mats.append(last.unsqueeze(-1) if last.ndim == 1 else last)
    for i in range(len(mats) - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(mats[i].shape)} and "
                f"{list(mats[i + 1].shape)} cannot be multiplied"
            )
    split = _chain_order([m.shape[0] for m in mats] + [mats[-1].shape[1]])

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return mats[i]
        k = split[i][j]
        return matmul(product(i, k), product(k + 1, j))

    out = product(0, len(mats) - 1)
    shape = tuple(out.shape[:1] if first.ndim == 2 else ()) + tuple(
        out.shape[1:] if last.ndim == 2 else ()
    )
    return out.view(shape)
