"""PyTorch's older decompositions ``torch.cholesky``, ``torch.qr`` and ``torch.svd`` (and the
Tensor methods), over the primitives of :mod:`symgrad.ops.decompositions`; ``cholesky`` and
``qr`` warn once per process that they are deprecated, as PyTorch's do.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad._arguments import require_bool
from symgrad.ops.decompositions import _QR, _SVD, _cholesky_kernel, _cholesky_vjp
from symgrad.ops.determinants import return_type, square_matrices
from symgrad.ops.index_keys import warn_at_user
from symgrad.prim.factorization import Factorization
from symgrad.prim.tangents import no_forward_rule
from symgrad.tensor import Tensor

__all__ = ["cholesky", "qr", "svd"]

_WARNED: set = set()


def _deprecated(name: str, message: str) -> None:
    """PyTorch's deprecation warning of an older function, once per process as PyTorch's."""
    if name not in _WARNED:
        _WARNED.add(name)
        warn_at_user(message)


_CHOLESKY_OLD = Factorization(
    "cholesky",
    _cholesky_kernel("cholesky"),
    _cholesky_vjp,
    backward="CholeskyBackward0",
    reads_inputs=False,
    jvp=no_forward_rule("cholesky"),  # (torch.linalg.cholesky has one)
)


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """PyTorch's older ``torch.cholesky`` (``CholeskyBackward0``); prefer
    :func:`symgrad.linalg.cholesky`.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.cholesky(symgrad.tensor([[9.0]]))
    tensor([[3.]])
    """
    if type(upper) is not bool:
        require_bool("cholesky", "upper", upper)
    square_matrices("cholesky", input)
    _deprecated(
        "cholesky",
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in "
        "a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\n"
        "L = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
        "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will produce "
        "equivalent results for all valid (symmetric positive definite) inputs.",
    )
    return _CHOLESKY_OLD(input, upper=bool(upper))[0]


def qr(input: Tensor, some: bool = True) -> Any:
    """PyTorch's older ``torch.qr``: ``linalg.qr`` with mode 'reduced' (``some``) or
    'complete'.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.qr(symgrad.tensor([[3.0], [4.0]])).R
    tensor([[-5.]])
    """
    if type(some) is not bool:
        require_bool("qr", "some", some)
    square_matrices("qr", input, square=False)
    _deprecated(
        "qr",
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future "
        "PyTorch release.\nThe boolean parameter 'some' has been replaced with a string "
        "parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\n"
        "Q, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
    )
    q, r = _QR(input, mode="reduced" if some else "complete")
    return return_type("qr", ("Q", "R"))(q, r)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> Any:
    """PyTorch's older ``torch.svd``: ``U``, ``S`` and ``V`` (not ``Vh``); without
    ``compute_uv`` the vectors are square matrices of zeros.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.svd(symgrad.tensor([[2.0, 0.0], [0.0, 1.0]])).V
    tensor([[1., 0.],
            [0., 1.]])
    """
    if type(some) is not bool:
        require_bool("svd", "some", some)
    if type(compute_uv) is not bool:
        require_bool("svd", "compute_uv", compute_uv)
    square_matrices("svd", input, square=False)
    u, s, vh = _SVD(input, full_matrices=not some)
    if not compute_uv:  # full-size zeros, whatever ``some`` says, as PyTorch's
        batch, (m, n) = tuple(input.shape[:-2]), tuple(input.shape[-2:])
        u = Tensor._make(np.zeros(batch + (m, m), u._data.dtype))
        vh = Tensor._make(np.zeros(batch + (n, n), vh._data.dtype))
    return return_type("svd", ("U", "S", "V"))(u, s, vh.mT)
