"""Writing PyTorch's zip checkpoint format, without PyTorch, so ``torch.load`` reads
``symgrad.save``'s files.

The pickle is written with symgrad's own stand-in functions (``_rebuild_tensor_v2`` and the
others below), then each GLOBAL opcode naming a stand-in is renamed to the PyTorch global
``torch.load`` expects. Protocol 2 pickles refer to earlier objects by memo index, not by byte
offset, so renaming changes nothing else. Only opcodes found by ``pickletools`` are renamed:
text inside a user's strings is never touched.
"""

from __future__ import annotations

import io
import pickle
import pickletools
import sys
import zipfile
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import Size
from symgrad._device import device
from symgrad._meta import MetaArray
from symgrad.tensor import Tensor

_LEGACY_STORAGES = {
    "float32": "FloatStorage",
    "float64": "DoubleStorage",
    "float16": "HalfStorage",
    "int64": "LongStorage",
    "int32": "IntStorage",
    "int16": "ShortStorage",
    "int8": "CharStorage",
    "uint8": "ByteStorage",
    "bool": "BoolStorage",
}


class NeedsSymgradFormat(Exception):
    """The object holds something PyTorch's format can't (a meta tensor, a lazy parameter)."""


# stand-ins: pickled under these names, renamed to PyTorch's in the file
def _rebuild_tensor_v2(*args: Any) -> None: ...


def _rebuild_tensor_v3(*args: Any) -> None: ...


def _rebuild_parameter(*args: Any) -> None: ...


def _rebuild_parameter_with_state(*args: Any) -> None: ...


def _rebuild_from_type_v2(*args: Any) -> None: ...


class Tensor_:  # noqa: N801 - pickled as torch.Tensor, the type of a tensor with attributes
    """Pickled as ``torch.Tensor``: the type ``_rebuild_from_type_v2`` rebuilds."""


def _size(*args: Any) -> None: ...


def _device(*args: Any) -> None: ...


def _untyped_storage() -> None: ...


_RENAMES = {
    "_rebuild_tensor_v2": "torch._utils _rebuild_tensor_v2",
    "_rebuild_tensor_v3": "torch._utils _rebuild_tensor_v3",
    "_rebuild_parameter": "torch._utils _rebuild_parameter",
    "_rebuild_parameter_with_state": "torch._utils _rebuild_parameter_with_state",
    "_rebuild_from_type_v2": "torch._tensor _rebuild_from_type_v2",
    "Tensor_": "torch Tensor",
    "_size": "torch Size",
    "_device": "torch device",
    "_untyped_storage": "torch.storage UntypedStorage",
}


class _StorageTypeStandIn:
    """Pickled as a global of this module named after PyTorch's legacy storage class."""


class _Storage:
    __slots__ = ("array", "key")

    def __init__(self, array: np.ndarray, key: str) -> None:
        self.array, self.key = array, key


class _Pickler(pickle.Pickler):
    def __init__(self, file: Any) -> None:
        super().__init__(file, 2)
        self.storages: dict[int, tuple[_Storage, np.ndarray]] = {}

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is not _Storage:
            return None
        name = str(obj.array.dtype)
        if name in _LEGACY_STORAGES:
            return ("storage", _storage_type(name), obj.key, "cpu", obj.array.size)
        return ("storage", _untyped_storage, obj.key, "cpu", obj.array.nbytes)

    def reducer_override(self, obj: Any) -> Any:
        from symgrad.nn.parameter import Parameter, is_lazy

        if is_lazy(obj) or (isinstance(obj, Tensor) and isinstance(obj._data, MetaArray)):
            raise NeedsSymgradFormat
        if isinstance(obj, Parameter):
            args = (Tensor._make(obj._data), obj._requires_grad, _empty_hooks())
            if obj.__dict__:  # the user's attributes, as PyTorch pickles them
                return _rebuild_parameter_with_state, (*args, dict(obj.__dict__))
            return _rebuild_parameter, args
        if isinstance(obj, Tensor):
            reduced = self._tensor(obj)
            if obj.__dict__:
                return _rebuild_from_type_v2, (reduced[0], Tensor_, reduced[1], dict(obj.__dict__))
            return reduced
        if type(obj) is Size:
            return _size, (tuple(obj),)
        if type(obj) is device:
            return _device, ((str(obj),) if obj.index is None else (obj.type, obj.index))
        return NotImplemented

    def _tensor(self, t: Tensor) -> tuple:
        array = t._data
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        item = array.itemsize
        foreign = root.base is not None or not root.flags.c_contiguous
        if foreign or root.dtype != array.dtype or any(s % item for s in array.strides):
            root = array = np.ascontiguousarray(array)  # PyTorch's storages are typed: a copy
        entry = self.storages.get(id(root))
        if entry is None:  # the root is kept alive with its entry, so its id stays unique
            storage = _Storage(root.reshape(-1), str(len(self.storages)))
            entry = self.storages[id(root)] = (storage, root)
        start = root.__array_interface__["data"][0]
        offset = (array.__array_interface__["data"][0] - start) // item
        stride = tuple(s // item for s in array.strides)
        if array.size == 0:  # NumPy's strides of an empty array are zeros; PyTorch's are not
            stride = tuple(t.stride())
        common = (entry[0], offset, array.shape, stride, t._requires_grad, _empty_hooks())
        if str(array.dtype) in _LEGACY_STORAGES:
            return _rebuild_tensor_v2, common
        return _rebuild_tensor_v3, (*common, t.dtype)


def _empty_hooks() -> Any:
    import collections

    return collections.OrderedDict()


def _storage_type(dtype_name: str) -> Any:
    return _STORAGE_TYPES[dtype_name]


def _storage_stand_ins() -> dict[str, Any]:
    """One class per legacy storage, each pickled as this module's global of that name."""
    made = {}
    for dtype_name, name in _LEGACY_STORAGES.items():
        cls = type(name, (_StorageTypeStandIn,), {"__module__": __name__})
        made[dtype_name] = cls
    return made


_STORAGE_TYPES = _storage_stand_ins()


def __getattr__(name: str) -> Any:
    """The storage stand-ins by name, which pickle looks up to check it can name them."""
    for cls in _STORAGE_TYPES.values():
        if cls.__name__ == name:
            return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _renamed(pickled: bytes) -> bytes:
    """``pickled`` with each GLOBAL opcode naming a stand-in renamed to PyTorch's global."""
    out, last = [], 0
    for op, arg, pos in pickletools.genops(pickled):
        if op.name != "GLOBAL":
            continue
        module, name = arg.split(" ", 1)
        target = None
        if module == __name__:
            target = _RENAMES.get(name) or f"torch {name}"
        elif module == "symgrad.dtypes" and name in dtypes._BY_NAME:
            target = f"torch {name}"
        if target is not None:
            new_module, new_name = target.split(" ")
            out += [pickled[last:pos], f"c{new_module}\n{new_name}\n".encode()]
            last = pos + len(f"c{module}\n{name}\n".encode())
    out.append(pickled[last:])
    return b"".join(out)


def save_zip(obj: Any, file: Any) -> None:
    """Write ``obj`` to the binary file ``file`` in PyTorch's zip format."""
    buffer = io.BytesIO()
    pickler = _Pickler(buffer)
    pickler.dump(obj)
    records = {
        "data.pkl": _renamed(buffer.getvalue()),
        ".format_version": b"1",
        ".storage_alignment": b"64",
        "byteorder": sys.byteorder.encode(),
    }
    for storage, _ in pickler.storages.values():
        records[f"data/{storage.key}"] = storage.array.tobytes()
    records["version"] = b"3\n"
    with zipfile.ZipFile(file, "w", zipfile.ZIP_STORED) as archive:
        for name, data in records.items():
            archive.writestr(f"archive/{name}", data)
