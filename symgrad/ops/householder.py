"""Householder reflectors in LAPACK's packed form: ``geqrf`` (the QR factorization as
reflectors and their scales), ``linalg.householder_product`` (``orgqr``: the first columns of
their product) and ``ormqr`` (their product applied to a matrix), with PyTorch's errors and
gradients.

Reflector ``i`` is ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` column ``i`` of the packed
matrix below the diagonal, 1 on it and 0 above it. Each product is applied one reflector at a
time, ``Y - tau v (v^T Y)``, written against ``xp``: so the same rule runs on NumPy, on tensors
(second derivatives) and on symbols (closed forms). The backward rule walks the chain of
reflectors back, one reflector at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.ops.determinants import array_dtype, return_type
from symgrad.ops.joining import cat
from symgrad.ops.triangular import tril
from symgrad.prim.batching import BatchedTensor
from symgrad.prim.factorization import Factorization
from symgrad.prim.structural import Structural
from symgrad.prim.tangents import no_forward_rule
from symgrad.prim.vocab import INTERPRETERS
from symgrad.tensor import Tensor, bind_methods

__all__ = ["geqrf", "orgqr", "ormqr"]


def _mT(xp: Any, a: Any) -> Any:
    return xp.transpose(a, -1, -2)


def _reflector(xp: Any, a: Any, tau: Any, i: int) -> tuple:
    """``v_i`` as a column (``(..., m, 1)``) and ``tau_i`` shaped to scale matrices."""
    m, dtype = a.shape[-2], array_dtype(a)
    below = np.zeros((m, 1), dtype)
    below[i + 1 :] = 1
    unit = np.zeros((m, 1), dtype)
    unit[i] = 1
    v = xp.getitem(a, (Ellipsis, slice(None), slice(i, i + 1))) * xp.constant(below)
    t = xp.unsqueeze(xp.getitem(tau, (Ellipsis, slice(i, i + 1))), -1)
    return v + xp.constant(unit), t


def _reflect(xp: Any, v: Any, t: Any, y: Any) -> Any:
    """``H y = y - tau v (v^T y)``."""
    return y - t * xp.matmul(v, xp.matmul(_mT(xp, v), y))


def _order(k: int, reverse: bool) -> list:
    """The reflectors in the order they are applied: ``H_1 (H_2 (... (H_k Y)))`` is the
    product ``Q Y``; reversed, ``Q^T Y``."""
    return list(range(k)) if reverse else list(range(k - 1, -1, -1))


def _apply(xp: Any, a: Any, tau: Any, y: Any, reverse: bool) -> Any:
    for i in _order(tau.shape[-1], reverse):
        v, t = _reflector(xp, a, tau, i)
        y = _reflect(xp, v, t, y)
    return y


def _apply_vjp(xp: Any, a: Any, tau: Any, y: Any, g: Any, reverse: bool) -> tuple:
    """The gradients of ``a``, ``tau`` and ``y`` from ``g``, that of ``_apply``'s result."""
    m, n, k = a.shape[-2], a.shape[-1], tau.shape[-1]
    dtype = array_dtype(a)
    steps = []
    for i in _order(k, reverse):  # the chain forward, keeping each reflector's input
        v, t = _reflector(xp, a, tau, i)
        steps.append((i, v, t, y))
        y = _reflect(xp, v, t, y)
    columns, scales = [None] * k, [None] * k
    for i, v, t, y in reversed(steps):
        vg = xp.matmul(_mT(xp, v), g)  # (..., 1, p)
        vy = xp.matmul(_mT(xp, v), y)
        scales[i] = -xp.sum(vg * vy, (-2, -1))
        gv = -t * (xp.matmul(g, _mT(xp, vy)) + xp.matmul(y, _mT(xp, vg)))
        below = np.zeros((m, 1), dtype)
        below[i + 1 :] = 1
        columns[i] = gv * xp.constant(below)
        g = g - t * xp.matmul(v, vg)
    if n > k:
        batch = tuple(columns[0].shape[:-2]) if k else tuple(a.shape[:-2])
        columns.append(xp.constant(np.zeros(batch + (m, n - k), dtype)))
    if xp is INTERPRETERS.tensor and type(g) is not BatchedTensor and k:
        return (*_recorded(columns, scales, tau), g)
    ga = xp.cat(columns, -1) if columns else None
    gtau = xp.cat([xp.unsqueeze(s, -1) for s in scales], -1) if k else None
    return ga, gtau, g


def _recorded(columns: list, scales: list, tau: Tensor) -> tuple:
    """The gradients of ``a`` and ``tau`` as PyTorch's formula records them under
    ``create_graph``: the strictly lower triangle of ``a``'s (``tril(-1)``), and ``tau``'s
    written into zeros one entry at a time."""
    gtau = tau.new_zeros(tau.shape, dtype=scales[0].dtype)
    for i, scale in enumerate(scales):
        gtau[..., i] = scale
    return tril(cat(columns, -1), -1), gtau


# -- householder_product --------------------------------------------------------------------------
def _eye(a: Any) -> np.ndarray:
    m, n = a.shape[-2:]
    return np.eye(m, n, dtype=array_dtype(a))


def _product_forward(xp: Any, a: Any, tau: Any) -> Any:
    out = _apply(xp, a, tau, xp.constant(_eye(a)), False)
    if tau.shape[-1] == 0:  # no reflector: the identity's columns, with a's batch
        out = out + xp.constant(np.zeros(a.shape, array_dtype(a)))
    return out


def _product_vjp(xp: Any, g: Any, c: Any) -> tuple:
    a, tau = c.inputs
    if tau.shape[-1] == 0:
        return xp.constant(np.zeros(a.shape, array_dtype(a))) if c.needs[0] else None, None
    ga, gtau, _ = _apply_vjp(xp, a, tau, xp.constant(_eye(a)), g, False)
    return ga if c.needs[0] else None, gtau if c.needs[1] else None


_HOUSEHOLDER_PRODUCT = Structural(
    "householder_product",
    _product_forward,
    _product_vjp,
    saves=(0, 1),
    backward="LinalgHouseholderProductBackward0",
)


def _tensors(op: str, *named: tuple) -> None:
    for position, (name, value) in enumerate(named, 1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                f"{type(value).__name__}"
            )


def _floating(kernel: str, t: Tensor) -> None:
    if t._data.dtype.kind not in "fc" or t._data.dtype == np.float16:
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{t.dtype.scalar_type}'\n(use float32 or float64)"
        )


def _tau_batch(op: str, input: Tensor, tau: Tensor) -> None:
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input.ndim - tau.ndim != 1:
        raise RuntimeError(
            f"torch.{op}: Expected tau to have one dimension less than input, but got "
            f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {input.ndim}"
        )
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(
            f"torch.{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], "
            f"but got {list(tau.shape[:-1])}"
        )


def _same_dtype(op: str, input: Tensor, name: str, other: Tensor) -> None:
    if input.dtype is not other.dtype:
        raise RuntimeError(
            f"torch.{op}: {name} dtype {other.dtype.scalar_type} does not match input dtype "
            f"{input.dtype.scalar_type}"
        )


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first ``n`` columns of the product ``H_1 ... H_k`` of the Householder reflectors
    packed in ``A`` (``m x n``, ``m >= n``) with scales ``tau`` (``k <= n``): the ``Q`` of a
    QR factorization from :func:`symgrad.geqrf`'s output.

    Examples
    --------
    >>> import symgrad
    >>> A = symgrad.tensor([[3.0, 1.0], [4.0, 2.0]])
    >>> a, tau = symgrad.geqrf(A)
    >>> symgrad.linalg.householder_product(a, tau)
    tensor([[-0.6000, -0.8000],
            [-0.8000,  0.6000]])
    """
    op = "linalg.householder_product"
    _tensors("linalg_householder_product", ("input", A), ("tau", tau))
    if A.ndim < 2:
        raise RuntimeError(f"torch.{op}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(
            f"torch.{op}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    if tau.ndim and A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(
            f"torch.{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]"
        )
    _tau_batch(op, A, tau)
    _same_dtype(op, A, "tau", tau)
    _floating("orgqr_cpu", A)
    return _HOUSEHOLDER_PRODUCT(A, tau)


def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    """PyTorch's LAPACK-named ``orgqr``: :func:`symgrad.linalg.householder_product`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.orgqr(*symgrad.geqrf(symgrad.tensor([[0.0], [2.0]])))
    tensor([[ 0.],
            [-1.]])
    """
    _tensors("orgqr", ("input", input), ("input2", input2))
    return householder_product(input, input2)


# -- ormqr ----------------------------------------------------------------------------------------
def _ormqr_forward(xp: Any, a: Any, tau: Any, c: Any, left: bool, transpose: bool) -> Any:
    if left:  # Q C or Q^T C
        return _apply(xp, a, tau, c, transpose)
    return _mT(xp, _apply(xp, a, tau, _mT(xp, c), not transpose))  # C Q = (Q^T C^T)^T


def _ormqr_vjp(xp: Any, g: Any, ctx: Any) -> tuple:
    a, tau, c = ctx.inputs
    left, transpose = ctx.params["left"], ctx.params["transpose"]
    if left:
        ga, gtau, gc = _apply_vjp(xp, a, tau, c, g, transpose)
    else:
        ga, gtau, gc = _apply_vjp(xp, a, tau, _mT(xp, c), _mT(xp, g), not transpose)
        gc = _mT(xp, gc)
    needs = ctx.needs
    if needs[2] and xp is INTERPRETERS.tensor and type(g) is not BatchedTensor:
        gc = _ORMQR(a, tau, g, left=left, transpose=not transpose)  # (PyTorch's formula)
    return ga if needs[0] else None, gtau if needs[1] else None, gc if needs[2] else None


_ORMQR = Structural(
    "ormqr",
    _ormqr_forward,
    _ormqr_vjp,
    saves=(0, 1, 2),
    backward="OrmqrBackward0",
    jvp=no_forward_rule("ormqr"),
)


def ormqr(
    input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False
) -> Tensor:
    """The product ``Q`` of the Householder reflectors packed in ``input`` with scales
    ``input2`` (:func:`symgrad.geqrf`'s output) times ``input3``: ``Q C`` (``Q^T C`` when
    ``transpose``; ``C Q`` or ``C Q^T`` when not ``left``), without forming ``Q``.

    Examples
    --------
    >>> import symgrad
    >>> a, tau = symgrad.geqrf(symgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> symgrad.ormqr(a, tau, symgrad.tensor([[1.0], [0.0]]))
    tensor([[-0.6000],
            [-0.8000]])
    """
    from symgrad._arguments import require_bool

    op = "ormqr"
    _tensors(op, ("input", input), ("input2", input2), ("input3", input3))
    require_bool(op, "left", left)
    require_bool(op, "transpose", transpose)
    _ormqr_shapes(input, input2, input3, bool(left))
    for name, t in (("tau", input2), ("other", input3)):
        if t.dtype is not input.dtype:
            raise RuntimeError(
                f"torch.ormqr: Expected input and {name} to have the same dtype, but input has "
                f"dtype {input.dtype.scalar_type} and {name} has dtype {t.dtype.scalar_type}"
            )
    _floating("ormqr_cpu", input)
    return _ORMQR(input, input2, input3, left=bool(left), transpose=bool(transpose))


def _ormqr_shapes(input: Tensor, tau: Tensor, other: Tensor, left: bool) -> None:
    for name, t in (("input", input), ("other", other)):
        if t.ndim < 2:
            raise RuntimeError(f"torch.ormqr: {name} must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(
            f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])"
        )
    _tau_batch("ormqr", input, tau)
    if other.ndim != input.ndim:
        raise RuntimeError(
            "torch.ormqr: Expected other to have the same number of dimensions as input, but "
            f"got other.ndim equal to {other.ndim} and input.ndim is equal to {input.ndim}"
        )
    if tuple(other.shape[:-2]) != tuple(input.shape[:-2]):
        raise RuntimeError(
            "torch.ormqr: Expected batch dimensions of other to be equal to input.shape[:-2], "
            f"but got {list(other.shape[:-2])}"
        )


# -- geqrf ----------------------------------------------------------------------------------------
def _geqrf_kernel(a: np.ndarray) -> tuple:
    m, n = a.shape[-2:]
    if a.size == 0:
        return a.copy(), np.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    packed, tau = np.linalg.qr(a, mode="raw")
    return np.ascontiguousarray(np.swapaxes(packed, -1, -2)).astype(a.dtype), tau.astype(a.dtype)


def _geqrf_vjp(xp: Any, grads: tuple, c: Any) -> tuple:
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_GEQRF = Factorization(
    "geqrf", _geqrf_kernel, _geqrf_vjp, backward="GeqrfBackward0", n_outputs=2, saves_outputs=()
)


def geqrf(input: Tensor) -> Any:
    """The QR factorization in LAPACK's packed form: ``(a, tau)``, ``R`` on and above the
    diagonal of ``a`` and the Householder reflectors of ``Q`` below it, with their scales
    ``tau`` (see :func:`symgrad.linalg.householder_product`); not differentiable, as in
    PyTorch.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.geqrf(symgrad.tensor([[3.0], [4.0]])).a
    tensor([[-5.0000],
            [ 0.5000]])
    """
    _tensors("geqrf", ("input", input))
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _floating("geqrf_cpu", input)
    a, tau = _GEQRF(input)
    return return_type("geqrf", ("a", "tau"))(a, tau)


bind_methods({"geqrf": geqrf, "orgqr": orgqr, "ormqr": ormqr})
