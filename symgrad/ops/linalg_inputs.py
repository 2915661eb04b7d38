"""PyTorch's checks of the input of a linear-algebra function: a batch of (square) matrices,
of a floating dtype its kernels take, with PyTorch's errors naming the check or the CPU
kernel that refuses the input."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["square_matrices", "floating_input"]


def square_matrices(op: str, a: Any, *, floating: bool = True, square: bool = True) -> None:
    """PyTorch's errors for an input that is not a batch of (square) floating matrices."""
    if not isinstance(a, Tensor):
        raise TypeError(f"{op}(): argument 'A' must be Tensor, not {type(a).__name__}")
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )
    if floating:
        floating_input(op, a)


def floating_input(op: str, a: Tensor, half: bool = False) -> None:
    """PyTorch's error for an integer or boolean input to a linear-algebra function (and for
    float16, unless ``half``)."""
    if a._data.dtype.kind not in "fc" and op in ("linalg.eigh", "linalg.eigvalsh"):
        kernel = "linalg_eigh_cpu"  # PyTorch dispatches these before it checks
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{a.dtype.scalar_type}'")
    if a._data.dtype.kind not in "fc":
        checked_by = "linalg.svd" if op in ("linalg.svdvals", "svd") else op  # (PyTorch's svd)
        raise RuntimeError(
            f"{checked_by}: Expected a floating point or complex tensor as input. Got "
            f"{a.dtype.scalar_type}"
        )
    if half or a._data.dtype != np.float16:
        return
    if op in ("linalg.inv", "linalg.slogdet", "logdet"):  # refused before PyTorch's kernels
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got Half")
    kernel = _HALF_KERNELS.get(op, op)
    raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'\n(use float32 or float64)")


# the CPU kernel PyTorch names when it finds no float16 version of it
_HALF_KERNELS = {
    "linalg.eigh": "linalg_eigh_cpu",
    "linalg.eigvalsh": "linalg_eigh_cpu",
    "linalg.svd": "linalg_svd_cpu",
    "linalg.svdvals": "linalg_svd_cpu",
    "svd": "linalg_svd_cpu",
    "linalg.qr": "geqrf_cpu",
    "qr": "geqrf_cpu",
    "linalg.cholesky": "cholesky_cpu",
    "cholesky": "cholesky_cpu",
    "linalg.det": "lu_cpu",
    "linalg.solve": "lu_cpu",
    "linalg.lu": "lu_cpu",
    "linalg.lu_factor": "lu_cpu",
    "linalg.lu_factor_ex": "lu_cpu",
    "lu": "lu_cpu",
}
