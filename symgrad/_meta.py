"""The ``meta`` device: tensors that have a shape and a dtype but no values.

A meta tensor's array is a :class:`MetaArray`, a zero-stride view of one nan (zero for
integers), so it costs no memory whatever its shape. Computing on meta arrays raises a clear
NotImplementedError: PyTorch would propagate shapes, but symgrad's meta tensors are
placeholders, enough for the ensembling idiom (a module moved to ``'meta'`` and called with
real parameters through ``functional_call``), never a source of made-up values. Mixing a meta
array with a CPU array raises PyTorch's ``RuntimeError``; reading values (``item``,
``tolist``, ``numpy``) raises PyTorch's errors. The eager path never tests for the device: the
checks live on the array type.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["MetaArray", "meta_array", "NO_DATA"]

NO_DATA = "Cannot copy out of meta tensor; no data!"
_NO_COMPUTE = (
    "{name}: symgrad does not compute on meta tensors (PyTorch would propagate only the shape "
    "and dtype): a meta tensor is a placeholder here, for moving a module to 'meta' and "
    "calling it with real parameters through symgrad.func.functional_call; compute on CPU "
    "tensors instead"
)
# NumPy functions that only look at or rearrange a meta array's shape
_SHAPE_ONLY = frozenset(
    getattr(np, n)
    for n in (
        "shape",
        "ndim",
        "size",
        "broadcast_to",
        "reshape",
        "transpose",
        "moveaxis",
        "swapaxes",
        "expand_dims",
        "squeeze",
        "result_type",
        "may_share_memory",
        "shares_memory",
        "broadcast_arrays",
        "atleast_1d",
        "atleast_2d",
        "atleast_3d",
    )
)


class MetaArray(np.ndarray):
    """A read-only, zero-stride array standing for values that do not exist."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        for x in inputs:
            if isinstance(x, np.ndarray) and not isinstance(x, MetaArray) and x.ndim > 0:
                first, other = (
                    ("meta", "cpu") if isinstance(inputs[0], MetaArray) else ("cpu", "meta")
                )
                raise RuntimeError(
                    f"Tensor on device {other} is not on the expected device {first}!"
                )
        raise NotImplementedError(_NO_COMPUTE.format(name=ufunc.__name__))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in _SHAPE_ONLY:
            return super().__array_function__(func, types, args, kwargs)
        raise NotImplementedError(_NO_COMPUTE.format(name=func.__name__))

    def item(self, *args: Any) -> Any:
        if self.size != 1:
            raise RuntimeError(f"a Tensor with {self.size} elements cannot be converted to Scalar")
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")

    def tolist(self) -> Any:
        raise NotImplementedError(NO_DATA)


def meta_array(shape: Any, dtype: Any) -> MetaArray:
    """A meta array of ``shape`` and ``dtype`` (no memory)."""
    # a floating meta array that leaks into a computation shows nan, never a plausible value
    fill = np.full((), np.nan if np.dtype(dtype).kind in "fc" else 0, dtype)
    return np.broadcast_to(fill, tuple(shape)).view(MetaArray)
