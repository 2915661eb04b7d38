"""The values of PyTorch's legacy constructor ``Tensor(...)``: sizes or one data argument,
always in the default floating dtype."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import to_array
from symgrad._size import Size


def legacy_array(args: tuple) -> np.ndarray:
    """The array ``Tensor(*args)`` holds: zeros of the sizes ``Tensor(2, 3)`` or
    ``Tensor(Size([2, 3]))`` name, or the data of ``Tensor([1, 2])``; a lone number is no
    data (PyTorch's TypeError)."""
    default = dtypes.get_default_dtype()
    if len(args) == 1 and isinstance(args[0], Size):  # (Size([]): one element, 0-d)
        return np.zeros(tuple(args[0]), default.numpy)
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        shape = tuple(int(a) for a in args) if args else (0,)
        if any(n < 0 for n in shape):
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
            )
        return np.zeros(shape, default.numpy)
    if len(args) != 1:
        raise TypeError(
            "Tensor() takes either sizes (Tensor(2, 3)) or one data argument "
            f"(Tensor([1, 2])), got {args!r:.80}; prefer symgrad.tensor(data)"
        )
    data: Any = args[0]
    if data is None or isinstance(data, (float, bool, complex, np.generic)):
        raise TypeError(
            f"new(): data must be a sequence (got {type(data).__name__}); give sizes as ints, "
            "or symgrad.tensor(value) for a 0-d tensor"
        )
    return to_array(data, default)
