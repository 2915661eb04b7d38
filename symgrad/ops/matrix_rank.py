"""``linalg.matrix_rank``: how many singular values (eigenvalue sizes, for ``hermitian``)
exceed PyTorch's tolerance ``max(atol, rtol * largest)``. An integer count: no gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad.tensor import Tensor

__all__ = ["matrix_rank"]


def _tolerance(values: np.ndarray, shape: tuple, atol: Any, rtol: Any) -> np.ndarray:
    largest = values.max(axis=-1) if values.shape[-1] else np.zeros(values.shape[:-1])
    if rtol is None:
        # PyTorch: rtol defaults to eps * max(m, n), or to 0 once a positive atol is given
        given = atol is not None and np.any(np.asarray(atol) > 0)
        rtol = 0.0 if given else np.finfo(values.dtype).eps * max(shape[-2:])
    atol = 0.0 if atol is None else atol
    atol = atol._data if isinstance(atol, Tensor) else np.asarray(atol)
    rtol = rtol._data if isinstance(rtol, Tensor) else np.asarray(rtol)
    return np.maximum(atol, rtol * largest)


def matrix_rank(
    A: Tensor,
    tol: Any = None,
    hermitian: bool = False,
    *,
    atol: Any = None,
    rtol: Any = None,
) -> Tensor:
    """The numerical rank of ``A`` (or of each matrix of a batch): the number of singular
    values above ``max(atol, rtol * largest)``. Without either tolerance ``rtol`` is
    ``eps * max(m, n)``; with only a positive ``atol`` it is 0 (PyTorch's rules; the older
    positional ``tol`` is ``atol`` with ``rtol=0``). ``hermitian=True`` uses the eigenvalues'
    sizes instead.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.linalg.matrix_rank(symgrad.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    >>> symgrad.linalg.matrix_rank(symgrad.eye(3))
    tensor(3)
    """
    if A.ndim < 2:
        raise RuntimeError(
            "torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions."
        )
    if not A.is_floating_point() or A._data.dtype == np.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    data = A.detach()._data
    if 0 in data.shape[-2:]:
        return Tensor._make(np.zeros(data.shape[:-2], dtype=np.int64))
    if hermitian:
        values = np.abs(np.linalg.eigvalsh(data))
    else:
        values = np.linalg.svd(data, compute_uv=False)
    limit = _tolerance(values, data.shape, atol, rtol)
    rank = (values > np.expand_dims(limit, -1)).sum(axis=-1)
    return Tensor._make(np.asarray(rank, dtype=np.int64))
