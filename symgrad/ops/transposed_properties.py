"""The properties ``Tensor.T`` (the dimensions reversed) and ``Tensor.mT`` (the last two
swapped), with PyTorch's deprecation warnings where they are not a matrix's transpose.

Examples
--------
>>> import symgrad
>>> symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).T
tensor([[1., 3.],
        [2., 4.]])
>>> symgrad.ones(4, 2, 3).mT.shape
symgrad.Size([4, 3, 2])
"""

from __future__ import annotations

import warnings

from symgrad.ops.shape import permute, transpose
from symgrad.tensor import Tensor

__all__ = ["transposed", "matrix_transposed"]

_T_DEPRECATED = {
    0: "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
    1: "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
    "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
    "dimensions of a tensor.",
}
_T_WARNED: set = set()


def transposed(self: Tensor) -> Tensor:
    """The dimensions reversed (the transpose of a matrix); PyTorch's deprecation warnings, once
    per process, for a 0-d tensor and for other numbers of dimensions than two."""
    n = self.ndim
    kind = None if n == 2 else min(n, 1)
    if kind is not None and kind not in _T_WARNED:
        _T_WARNED.add(kind)
        warnings.warn(_T_DEPRECATED[kind], UserWarning, stacklevel=2)
    return permute(self, tuple(range(n - 1, -1, -1)))  # a view, PermuteBackward0, even of 0-1 dims


def matrix_transposed(self: Tensor) -> Tensor:
    """The last two dimensions swapped."""
    if self.ndim == 0:  # PyTorch: the identity, deprecated
        warnings.warn(
            "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
            UserWarning,
            stacklevel=2,
        )
        return self
    if self.ndim == 1:
        raise RuntimeError(
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."
        )
    return transpose(self, -2, -1)
