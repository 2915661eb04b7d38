"""The memory a tensor reads, as PyTorch's storages show it: ``Tensor.untyped_storage()``
(bytes) and the deprecated ``Tensor.storage()`` (elements of the tensor's dtype).

symgrad keeps values in NumPy arrays; a tensor and its views read the memory of one array,
the one the first of them owns. A storage object describes that memory: where it starts
(``data_ptr()``), how long it is (``nbytes()``, ``size()``), and its values. Programs use it
to check that two tensors share memory (``a.untyped_storage().data_ptr() ==
b.untyped_storage().data_ptr()``) and how much memory a view keeps alive.
"""

from __future__ import annotations

import ctypes
import warnings
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._meta import MetaArray
from symgrad.tensor import Tensor, bind_methods, live_aliases

__all__ = ["UntypedStorage", "TypedStorage"]


def memory_of(t: Tensor) -> np.ndarray:
    """The array whose memory ``t`` reads: the array of the tensor it is a view of, or the
    NumPy array that array itself is a view of (tensors loaded together from one file, or
    made from parts of one NumPy array, read the memory of one array)."""
    root, _, _ = live_aliases(t)
    data = (t if root is None else root)._data
    while isinstance(data.base, np.ndarray) and type(data.base) is not MetaArray:
        data = data.base
    return data


def _bounds(data: np.ndarray) -> tuple[int, int]:
    """The lowest address ``data`` reads and one past the highest (NumPy's ``byte_bounds``,
    which moved between NumPy 1 and 2)."""
    start = data.__array_interface__["data"][0]
    reach = [stride * (n - 1) for n, stride in zip(data.shape, data.strides)]
    low = start + sum(r for r in reach if r < 0)
    return low, start + sum(r for r in reach if r > 0) + data.itemsize


def _start(data: np.ndarray) -> int:
    """The lowest address ``data`` reads (where its memory starts)."""
    return _bounds(data)[0]


def offset_in_memory(t: Tensor) -> int:
    """Where ``t``'s first element lies in the memory it reads, in elements."""
    data = t._data
    if type(data) is MetaArray or data.size == 0:
        return 0
    start = data.__array_interface__["data"][0] - _start(memory_of(t))
    return start // data.itemsize


class UntypedStorage:
    """The bytes of memory a tensor and its views share.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.arange(4.0)
    >>> storage = x[1:].untyped_storage()
    >>> storage.nbytes(), storage.data_ptr() == x.data_ptr()
    (16, True)
    """

    __module__ = "symgrad.storage"  # its home, as PyTorch's is torch.storage
    __slots__ = ("_memory",)

    def __init__(self, memory: np.ndarray) -> None:
        self._memory = memory  # the array owning the memory (kept alive by the storage)

    @property
    def device(self) -> Any:
        from symgrad._device import device

        return device("meta" if type(self._memory) is MetaArray else "cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    def data_ptr(self) -> int:
        """The address of the memory's first byte (0 for a meta tensor)."""
        data = self._memory
        if type(data) is MetaArray or data.size == 0:
            return 0
        return _start(data)

    def nbytes(self) -> int:
        """The number of bytes the memory holds."""
        data = self._memory
        if type(data) is MetaArray or data.size == 0:
            return data.size * data.itemsize
        low, high = _bounds(data)
        return high - low

    def size(self) -> int:
        """The number of bytes, as ``nbytes()``."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        return 1

    def is_pinned(self, device: Any = None) -> bool:
        return False

    def type(self) -> str:
        return "torch.storage.UntypedStorage"

    def _bytes(self) -> np.ndarray:
        if type(self._memory) is MetaArray:
            raise NotImplementedError("Cannot access data pointer of a storage on the meta device")
        n = self.nbytes()
        if n == 0:
            return np.zeros(0, dtype=np.uint8)
        return np.frombuffer((ctypes.c_uint8 * n).from_address(self.data_ptr()), dtype=np.uint8)

    def tolist(self) -> list:
        """The bytes as ints."""
        return self._bytes().tolist()

    def __getitem__(self, index: int) -> int:
        return _element(self._bytes(), index, "with step 1 in UntypedStorage")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UntypedStorage):
            return NotImplemented
        if self.data_ptr() == 0 or other.data_ptr() == 0:  # no memory: only itself
            return self._memory is other._memory
        return (self.data_ptr(), self.nbytes()) == (other.data_ptr(), other.nbytes())

    def __hash__(self) -> int:
        return hash((self.data_ptr(), self.nbytes()))

    def __repr__(self) -> str:
        values = "\n".join(f" {v}" for v in self.tolist())
        head = f"[symgrad.storage.UntypedStorage(device=cpu) of size {self.nbytes()}]"
        return f"{values}\n{head}" if values else head


def _element(values: np.ndarray, index: Any, slices: str) -> Any:
    """A storage's element ``index`` as a Python number, with PyTorch's errors for a slice
    (``slices`` says where they are supported) and an index out of range."""
    if not isinstance(index, int):
        raise RuntimeError(f"slices are only supported {slices}")
    n = values.size
    if not -n <= index < n:
        raise IndexError(f"index {index} out of range for storage of size {n}")
    return values[index].item()


class TypedStorage:
    """The memory a tensor shares, read as elements of its dtype (PyTorch's deprecated view
    of a storage; :meth:`Tensor.storage` warns as PyTorch does).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     storage = symgrad.arange(3.0)[1:].storage()
    >>> storage.size(), storage.dtype, storage.tolist()
    (3, symgrad.float32, [0.0, 1.0, 2.0])
    """

    __module__ = "symgrad.storage"  # its home, as PyTorch's is torch.storage
    __slots__ = ("_untyped_storage", "dtype")

    def __init__(self, untyped: UntypedStorage, dtype: dtypes.dtype) -> None:
        self._untyped_storage = untyped
        self.dtype = dtype

    @property
    def device(self) -> Any:
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        return False

    def untyped(self) -> UntypedStorage:
        return self._untyped_storage

    def data_ptr(self) -> int:
        return self._untyped_storage.data_ptr()

    def nbytes(self) -> int:
        return self._untyped_storage.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def size(self) -> int:
        """The number of elements."""
        return self.nbytes() // self.element_size()

    def __len__(self) -> int:
        return self.size()

    def type(self) -> str:
        return f"torch.{_LEGACY.get(self.dtype.name, self.dtype.name)}Storage"

    def _values(self) -> np.ndarray:
        return self._untyped_storage._bytes().view(self.dtype.numpy)

    def tolist(self) -> list:
        """The elements as Python numbers."""
        return self._values().tolist()

    def __getitem__(self, index: int) -> Any:
        return _element(self._values(), index, "in UntypedStorage.__getitem__")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TypedStorage):
            return NotImplemented
        return self.dtype == other.dtype and self._untyped_storage == other._untyped_storage

    def __hash__(self) -> int:
        return hash(self._untyped_storage)

    def __repr__(self) -> str:
        values = "\n".join(f" {v}" for v in self.tolist())
        head = (
            f"[symgrad.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {self.size()}]"
        )
        return f"{values}\n{head}" if values else head


_LEGACY = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The bytes of memory this tensor reads, shared with its views.

    Examples
    --------
    >>> import symgrad
    >>> x = symgrad.zeros(2, 3)
    >>> x.t().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    True
    >>> x.clone().untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    False
    """
    return UntypedStorage(memory_of(self))


_warned = False


def storage(self: Tensor) -> TypedStorage:
    """The memory this tensor reads, as elements of its dtype (deprecated in PyTorch, which
    warns; :meth:`untyped_storage` is the current spelling).

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     symgrad.arange(4)[2:].storage().size()
    4
    """
    global _warned
    if not _warned:  # once per process, as PyTorch
        _warned = True
        _warn_typed()
    return TypedStorage(untyped_storage(self), self.dtype)


def _warn_typed() -> None:
    warnings.warn(
        "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will "
        "be the only storage class. This should only matter to you if you are using storages "
        "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead "
        "of tensor.storage()",
        UserWarning,
        stacklevel=3,
    )


bind_methods({"untyped_storage": untyped_storage, "storage": storage})
