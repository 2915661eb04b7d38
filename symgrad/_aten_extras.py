"""``torch.hardshrink`` and ``torch.embedding_renorm_``: top-level ATen names of
:mod:`symgrad.nn.functional` ops.

``embedding_renorm_(weight, indices, max_norm, norm_type)`` scales, in place, each row of
``weight`` that ``indices`` use and whose ``norm_type``-norm exceeds ``max_norm`` down to that
norm (what ``F.embedding(..., max_norm=...)`` does before it looks the rows up). As in PyTorch
it is recorded (``EmbeddingRenormBackward0``) but has no derivative: a backward through it
raises.

Examples
--------
>>> import symgrad
>>> w = symgrad.tensor([[3.0, 4.0], [0.5, 0.0]])
>>> symgrad.embedding_renorm_(w, symgrad.tensor([0, 1]), 1.0, 2.0)
tensor([[0.6000, 0.8000],
        [0.5000, 0.0000]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._arguments import require_tensor
from symgrad.nn import activations as _activations
from symgrad.ops.inplace import inplace
from symgrad.prim.structural import Structural
from symgrad.tensor import Tensor

__all__ = ["hardshrink", "embedding_renorm_"]


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|input| > lambd``, else 0 (node ``HardshrinkBackward0``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.hardshrink(symgrad.tensor([-1.0, 0.25, 2.0]))
    tensor([-1.,  0.,  2.])
    """
    if type(input) is not Tensor:
        require_tensor("hardshrink", "input", 1, input)
    return _activations.hardshrink(input, lambd)


def _renormed(xp: Any, a: np.ndarray, rows: np.ndarray, max_norm: float, norm_type: float):
    used = a[rows]
    norms = np.linalg.norm(used.astype(np.float64), ord=norm_type, axis=1)
    scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
    out = np.array(a, copy=True)
    out[rows] = used * scale[:, None].astype(a.dtype)
    return out


def _no_derivative(xp: Any, g: Any, c: Any) -> tuple:
    raise NotImplementedError("the derivative for 'embedding_renorm' is not implemented.")


_EMBEDDING_RENORM = Structural(
    "embedding_renorm", _renormed, _no_derivative, backward="EmbeddingRenormBackward0"
)


def _rows(input: Tensor, indices: Tensor) -> np.ndarray:
    """The rows ``indices`` use, once each, with PyTorch's checks."""
    if indices.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(
            "Expected tensor for argument #2 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {indices.type()} instead (while checking arguments "
            "for embedding_renorm_)"
        )
    if input.ndim != 2:
        raise RuntimeError(
            f"Expected 2-dimensional tensor, but got {input.ndim}-dimensional tensor for "
            "argument #1 'self' (while checking arguments for embedding_renorm_)"
        )
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. Got "
            f"{input.dtype.scalar_type} instead."
        )
    idx = indices._data.astype(np.int64).reshape(-1)
    n = input.shape[0]
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(
            f"select(): index {bad[0]} out of range for tensor of size {list(input.shape)} at "
            "dimension 0"
        )
    return np.unique(idx % n) if n else idx


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Scale, in place, the rows of ``input`` that ``indices`` use and whose
    ``norm_type``-norm exceeds ``max_norm`` so that it is ``max_norm`` (up to 1e-7).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([[6.0, 8.0]])
    >>> symgrad.embedding_renorm_(w, symgrad.tensor([0]), 5.0, 2.0)
    tensor([[3., 4.]])
    """
    if type(input) is not Tensor or type(indices) is not Tensor:
        require_tensor("embedding_renorm_", "input", 1, input)
        require_tensor("embedding_renorm_", "indices", 2, indices)
    rows = _rows(input, indices)
    params = {"rows": rows, "max_norm": float(max_norm), "norm_type": float(norm_type)}
    return inplace(input, "embedding_renorm_", lambda w: _EMBEDDING_RENORM(w, **params), indices)
