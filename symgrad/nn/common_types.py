"""``symgrad.nn.common_types``: the type aliases custom layers written for PyTorch annotate
their arguments with (``kernel_size: _size_2_t``): an int, or a tuple of ints per spatial
dimension; sizes that may be None; ratios; tensors.

Examples
--------
>>> from symgrad.nn.common_types import _size_2_t
>>> def kernel(k: _size_2_t) -> tuple:
...     return k if isinstance(k, tuple) else (k, k)
>>> kernel(3)
(3, 3)
"""

from __future__ import annotations

from typing import TypeVar

from symgrad.tensor import Tensor

T = TypeVar("T")
_scalar_or_tuple_any_t = T | tuple[T, ...]
_scalar_or_tuple_1_t = T | tuple[T]
_scalar_or_tuple_2_t = T | tuple[T, T]
_scalar_or_tuple_3_t = T | tuple[T, T, T]

_size_any_t = int | tuple[int, ...]
_size_1_t = int | tuple[int]
_size_2_t = int | tuple[int, int]
_size_3_t = int | tuple[int, int, int]
_size_any_opt_t = int | None | tuple[int | None, ...]
_size_2_opt_t = int | None | tuple[int | None, int | None]
_size_3_opt_t = int | None | tuple[int | None, int | None, int | None]
_ratio_2_t = float | tuple[float, float]
_ratio_3_t = float | tuple[float, float, float]
_ratio_any_t = float | tuple[float, ...]
_tensor_list_t = Tensor | tuple[Tensor, ...]
_maybe_indices_t = Tensor | tuple[Tensor, Tensor]
