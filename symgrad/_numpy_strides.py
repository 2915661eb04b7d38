"""PyTorch's refusal of NumPy arrays with a negative stride (``a[::-1]``), which no tensor
can share."""

from __future__ import annotations

import numpy as np


def refuse_negative_strides(array: np.ndarray) -> None:
    """PyTorch's ValueError for ``array`` with a negative stride."""
    if any(stride < 0 for stride in array.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with "
            "negative strides are not currently supported. (You can probably work around "
            "this by making a copy of your array  with array.copy().) "
        )
