"""The ``meta`` device: tensors that have a shape and a dtype but no values.

A meta tensor's array is a :class:`MetaArray`, a zero-stride view of one zero, so it costs no
memory whatever its shape. Element-wise NumPy functions on meta arrays give meta arrays of the
result's shape (shape propagation); mixing a meta array with a CPU array raises PyTorch's
``RuntimeError``; reading values (``item``, ``tolist``, ``numpy``) raises PyTorch's errors. The
eager path never tests for the device: the checks live on the array type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MetaArray", "meta_array", "NO_DATA"]

NO_DATA = "Cannot copy out of meta tensor; no data!"


class MetaArray(np.ndarray):
    """A read-only, zero-stride array standing for values that do not exist."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        plain = []
        for x in inputs:
            if isinstance(x, MetaArray):
                plain.append(x.view(np.ndarray))
            elif isinstance(x, np.ndarray) and x.ndim > 0:
                first, other = ("cpu", "meta") if plain == [] else ("meta", "cpu")
                raise RuntimeError(
                    f"Tensor on device {other} is not on the expected device {first}!"
                )
            else:
                plain.append(x)
        if kwargs.get("out") is not None:
            raise RuntimeError(f"{ufunc.__name__}: a meta tensor has no data to write into")
        with np.errstate(all="ignore"):
            result = getattr(ufunc, method)(*plain, **kwargs)
        if isinstance(result, tuple):
            return tuple(meta_array(np.shape(r), np.asarray(r).dtype) for r in result)
        return meta_array(np.shape(result), np.asarray(result).dtype)

    def item(self, *args: Any) -> Any:
        if self.size != 1:
            raise RuntimeError(f"a Tensor with {self.size} elements cannot be converted to Scalar")
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def tolist(self) -> Any:
        raise NotImplementedError(NO_DATA)


def meta_array(shape: Any, dtype: Any) -> MetaArray:
    """A meta array of ``shape`` and ``dtype`` (no memory)."""
    return np.broadcast_to(np.zeros((), dtype), tuple(shape)).view(MetaArray)
