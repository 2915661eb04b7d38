"""Tensors over memory that other code owns: ``frombuffer`` (any object with Python's buffer
protocol) and ``from_dlpack``/``to_dlpack`` (the DLPack exchange, through NumPy's support of
it), all sharing that memory rather than copying it.

Examples
--------
>>> import numpy as np
>>> import symgrad
>>> a = np.arange(3.0)
>>> t = symgrad.from_dlpack(a)
>>> a[0] = 7.0
>>> t
tensor([7., 1., 2.], dtype=symgrad.float64)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.tensor import Tensor, bind_methods

__all__ = ["frombuffer", "from_dlpack", "to_dlpack"]

_CPU = 1  # DLPack's device type of the CPU (kDLCPU)


def _wrap(array: np.ndarray, op: str, requires_grad: bool = False) -> Tensor:
    if array.dtype not in dtypes._BY_NUMPY:
        raise TypeError(
            f"{op}(): symgrad does not support the dtype {array.dtype} (its dtypes are the "
            "float, int, unsigned and bool ones); convert the data first"
        )
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad = True
    return t


def frombuffer(
    buffer: Any,
    *,
    dtype: dtypes.dtype,
    count: int = -1,
    offset: int = 0,
    requires_grad: bool = False,
) -> Tensor:
    """A 1-d tensor over the memory of ``buffer`` (a ``bytearray``, an ``array.array``, a
    ``memoryview``, ...), read as ``dtype``: ``count`` elements (all by default) from byte
    ``offset``. It shares that memory: a change to either shows in the other. A read-only
    buffer (``bytes``) gives a tensor that can't be written to.

    Examples
    --------
    >>> import symgrad
    >>> data = bytearray(b"\\x01\\x00\\x02\\x00")
    >>> symgrad.frombuffer(data, dtype=symgrad.int16)
    tensor([1, 2], dtype=symgrad.int16)
    """
    if not isinstance(dtype, dtypes.dtype):
        raise TypeError(
            f"frombuffer(): argument 'dtype' must be symgrad.dtype, not {type(dtype).__name__}"
        )
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = view.nbytes
    item = dtype.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
            f"({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % item:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be "
                f"a multiple of element size ({item})"
            )
        count = (length - offset) // item
    elif offset + count * item > length:
        raise ValueError(
            f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) "
            f"must not be greater than actual buffer length ({length} bytes)"
        )
    if view.readonly:
        warnings.warn(
            "The given buffer is not writable: the tensor shares its memory and can't be "
            "written to in place. Copy the buffer (bytearray(buffer)) to get a writable tensor.",
            UserWarning,
            stacklevel=2,
        )
    flat = view.cast("B") if view.ndim != 1 or view.format != "B" else view
    array = np.frombuffer(flat, dtype=dtype.numpy, count=count, offset=offset)
    return _wrap(array, "frombuffer", requires_grad)


class _Capsule:
    """A DLPack capsule as the object NumPy's ``from_dlpack`` takes (a CPU one)."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple:
        return (_CPU, 0)


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor sharing the memory of ``ext_tensor``: any object of the DLPack protocol (a
    NumPy array, a symgrad or PyTorch CPU tensor) or a DLPack capsule.

    Examples
    --------
    >>> import numpy as np
    >>> import symgrad
    >>> symgrad.from_dlpack(np.array([1, 2], dtype=np.int32))
    tensor([1, 2], dtype=symgrad.int32)
    """
    if type(ext_tensor).__name__ == "PyCapsule":
        ext_tensor = _Capsule(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise RuntimeError(
            f"from_dlpack received an invalid capsule: a {type(ext_tensor).__name__} is "
            "neither a DLPack capsule nor an object with __dlpack__ (a NumPy array, a tensor)"
        )
    return _wrap(np.from_dlpack(ext_tensor), "from_dlpack")


def to_dlpack(tensor: Tensor) -> Any:
    """A DLPack capsule of ``tensor``'s memory, for another library's ``from_dlpack``.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.tensor([1.0, 2.0])
    >>> symgrad.from_dlpack(symgrad.to_dlpack(x))
    tensor([1., 2.])
    """
    if not isinstance(tensor, Tensor):
        raise TypeError(
            f"to_dlpack(): argument 'tensor' (position 1) must be Tensor, not "
            f"{type(tensor).__name__}"
        )
    return tensor._data.__dlpack__(max_version=(1, 0))


def _dlpack(
    self: Tensor,
    *,
    stream: Any = None,
    max_version: Any = None,
    dl_device: Any = None,
    copy: Any = None,
) -> Any:
    """The DLPack capsule of this tensor's memory (refused for one that requires grad)."""
    if self._requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    return self._data.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)


def _dlpack_device(self: Tensor) -> tuple:
    """DLPack's device of this tensor: the CPU."""
    return (_CPU, 0)


bind_methods({"__dlpack__": _dlpack, "__dlpack_device__": _dlpack_device})
