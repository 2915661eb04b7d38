"""Reading the zip checkpoints written by PyTorch's ``torch.save``, without PyTorch.

Such a file is a zip archive whose records sit in one folder: ``data.pkl``, a pickle (protocol
2) in which every tensor is a call to ``torch._utils._rebuild_tensor_v2`` over a storage named
by a persistent id ``("storage", storage type, key, location, numel)``; ``data/<key>``, the raw
bytes of that storage; and ``byteorder`` ("little" or "big"). Tensors viewing one storage are
rebuilt as NumPy views of one array, so they share memory again, as in PyTorch.

The pickle is read by a restricted unpickler: every global it names is looked up in a table of
stand-ins for PyTorch's (rebuild functions, storage types, dtypes, ``Size``, ``device``) and the
safe Python ones; nothing else is imported or called unless the caller passed
``weights_only=False`` (a file from a trusted source).
"""

from __future__ import annotations

import _codecs
import _compat_pickle
import collections
import io
import pickle
import zipfile
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import Size
from symgrad._device import device
from symgrad.tensor import Tensor

# PyTorch's legacy storage classes, by the dtype of their elements (None: not in symgrad)
_STORAGE_DTYPES = {
    "FloatStorage": "float32",
    "DoubleStorage": "float64",
    "HalfStorage": "float16",
    "LongStorage": "int64",
    "IntStorage": "int32",
    "ShortStorage": "int16",
    "CharStorage": "int8",
    "ByteStorage": "uint8",
    "BoolStorage": "bool",
    "BFloat16Storage": "bfloat16",
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
    "QInt8Storage": "qint8",
    "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
    "QUInt4x2Storage": "quint4x2",
    "QUInt2x4Storage": "quint2x4",
}
# dtypes PyTorch may name in a checkpoint that symgrad has no NumPy type for
_OTHER_DTYPES = (
    "bfloat16 complex32 complex64 complex128 qint8 quint8 qint32 quint4x2 quint2x4 "
    "float8_e4m3fn float8_e5m2 float8_e4m3fnuz float8_e5m2fnuz float8_e8m0fnu float4_e2m1fn_x2 "
    "bits1x8 bits2x4 bits4x2 bits8 bits16 uint1 uint2 uint3 uint4 uint5 uint6 uint7 "
    "int1 int2 int3 int4 int5 int6 int7"
).split()

# the safe loaders' refusal, for symgrad's files and PyTorch's
_UNSAFE = (
    "Weights only load failed: {what} is not allowed by symgrad.load's safe unpickler, which "
    "rebuilds only tensors, parameters, dtypes, sizes, devices, OrderedDict and plain Python "
    "containers and numbers. If you trust the file's source, load it with "
    "symgrad.load(f, weights_only=False), which can run arbitrary code; or allow the class "
    "with symgrad.serialization.add_safe_globals([...])."
)


class _StorageType:
    """What ``torch.FloatStorage`` (or ``torch.storage.UntypedStorage``) unpickles to."""

    def __init__(self, name: str, dtype_name: str) -> None:
        self.name, self.dtype_name = name, dtype_name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


class _UnsupportedDtype:
    """A PyTorch dtype symgrad can't hold: loads as a value, but no tensor is made of it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self) -> tuple:
        return _unsupported_dtype, (self.name,)


def _unsupported_dtype(name: str) -> _UnsupportedDtype:
    return _UnsupportedDtype(name)


class _Storage:
    """One storage of the archive: its elements as a flat, writable NumPy array."""

    def __init__(self, array: np.ndarray, record: str, big_endian: bool) -> None:
        self.array, self.record, self.big_endian = array, record, big_endian


class _TensorType:
    """``torch.Tensor`` or ``torch.nn.parameter.Parameter`` named as a type in the pickle."""

    def __init__(self, parameter: bool) -> None:
        self.parameter = parameter


def _ints(values: Any, what: str) -> tuple[int, ...]:
    if not isinstance(values, (tuple, list)) or not all(type(v) is int for v in values):
        raise pickle.UnpicklingError(f"a tensor's {what} must be a tuple of ints, got {values!r}")
    return tuple(values)


def _unsupported(dtype_name: str, record: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(
        f"symgrad.load can't read the tensor stored in record '{record}': its dtype "
        f"torch.{dtype_name} has no symgrad equivalent (symgrad has "
        f"{', '.join(sorted(dtypes._BY_NAME))}); convert it where PyTorch is installed, e.g. "
        f"with t.float() before torch.save"
    )


def _view(storage: Any, offset: Any, size: Any, stride: Any, d: dtypes.dtype) -> Tensor:
    if not isinstance(storage, _Storage):
        raise pickle.UnpicklingError("a tensor's storage must come from the archive")
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if type(offset) is not int or len(size) != len(stride):
        raise pickle.UnpicklingError("a tensor's offset, size and stride don't match")
    array = storage.array
    if array.dtype != d.numpy:
        if array.dtype != np.uint8 or array.size % d.numpy.itemsize:
            raise pickle.UnpicklingError(f"record '{storage.record}' doesn't hold {d} elements")
        array = array.view(d.numpy)
        if storage.big_endian:  # swapped once, in place: later views share the swapped array
            array.byteswap(inplace=True)
            storage.array = array
    item = array.itemsize
    try:  # numpy checks that the view stays inside the storage
        view = np.ndarray(size, array.dtype, array, offset * item, tuple(s * item for s in stride))
    except (ValueError, TypeError) as error:
        raise pickle.UnpicklingError(
            f"a tensor of size {size}, stride {stride} and offset {offset} doesn't fit in "
            f"record '{storage.record}' ({array.size} elements): {error}"
        ) from None
    return Tensor._make(view)


def _storage_dtype(storage: Any) -> dtypes.dtype:
    if not isinstance(storage, _Storage):
        raise pickle.UnpicklingError("a tensor's storage must come from the archive")
    return dtypes._BY_NAME[str(storage.array.dtype)]


def _rebuild_tensor(storage: Any, offset: Any, size: Any, stride: Any) -> Tensor:
    return _view(storage, offset, size, stride, _storage_dtype(storage))


def _rebuild_tensor_v2(
    storage: Any,
    offset: Any,
    size: Any,
    stride: Any,
    requires_grad: Any = False,
    backward_hooks: Any = None,
    metadata: Any = None,
) -> Tensor:
    t = _view(storage, offset, size, stride, _storage_dtype(storage))
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_tensor_v3(
    storage: Any,
    offset: Any,
    size: Any,
    stride: Any,
    requires_grad: Any,
    backward_hooks: Any,
    dtype: Any,
    metadata: Any = None,
) -> Tensor:
    if isinstance(dtype, _UnsupportedDtype):
        raise _unsupported(dtype.name, getattr(storage, "record", "?"))
    if not isinstance(dtype, dtypes.dtype):
        raise pickle.UnpicklingError(f"a tensor's dtype must be a dtype, got {dtype!r}")
    t = _view(storage, offset, size, stride, dtype)
    if requires_grad:
        t.requires_grad = True
    return t


def _set_state(obj: Any, state: Any) -> Any:
    """Attributes pickled with a tensor (``t.note = ...``), set on it again."""
    if isinstance(state, tuple) and len(state) == 2:  # (dict state, slots state)
        state = {**(state[0] or {}), **(state[1] or {})}
    if not isinstance(state, dict):
        raise pickle.UnpicklingError("a tensor's pickled attributes must be a dict")
    for name, value in state.items():
        if not isinstance(name, str) or name.startswith("__"):
            raise pickle.UnpicklingError(f"a tensor can't get the attribute {name!r}")
        try:
            setattr(obj, name, value)
        except AttributeError:
            raise pickle.UnpicklingError(
                f"symgrad.load can't set the attribute {name!r} saved with a "
                f"{type(obj).__name__}: it is a read-only property of symgrad's tensors"
            ) from None
    return obj


def _rebuild_parameter(data: Any, requires_grad: Any, backward_hooks: Any = None) -> Any:
    from symgrad.nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError("a Parameter's data must be a tensor")
    return Parameter(data.detach(), requires_grad=bool(requires_grad))


def _rebuild_parameter_with_state(
    data: Any, requires_grad: Any, backward_hooks: Any, state: Any
) -> Any:
    parameter = _rebuild_parameter(data, requires_grad)
    return _set_state(parameter, state) if state else parameter


_REBUILDERS = (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3)


def _rebuild_from_type_v2(func: Any, new_type: Any, args: Any, state: Any) -> Any:
    if func not in _REBUILDERS and func is not _rebuild_parameter:
        raise pickle.UnpicklingError(f"{func!r} can't rebuild a tensor")
    if not isinstance(new_type, _TensorType) or not isinstance(args, tuple):
        raise pickle.UnpicklingError("symgrad.load rebuilds only tensors and Parameters")
    t = func(*args)
    if new_type.parameter and func is not _rebuild_parameter:
        t = _rebuild_parameter(t, t.requires_grad)
    return _set_state(t, state) if state else t


def _size(sizes: Any = ()) -> Size:
    return Size(_ints(tuple(sizes) if isinstance(sizes, list) else sizes, "size"))


def _device(kind: Any, index: Any = None) -> device:
    if not isinstance(kind, str) or not (index is None or type(index) is int):
        raise pickle.UnpicklingError(f"not a device: {kind!r}, {index!r}")
    return device(kind) if index is None else device(kind, index)


def _encode(text: Any, encoding: Any = "utf-8") -> bytes:
    """``_codecs.encode``, with which protocol 2 pickles ``bytes``: text to bytes only."""
    if not isinstance(text, str) or encoding not in ("latin1", "latin-1"):
        raise pickle.UnpicklingError("_codecs.encode is allowed only to turn text into bytes")
    return _codecs.encode(text, encoding)


# the plain containers both loaders (this one and symgrad's own) rebuild: PyTorch's
# weights-only ones (frozenset, slice and range need add_safe_globals there too)
PLAIN_GLOBALS: dict[tuple[str, str], Any] = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("collections", "Counter"): collections.Counter,
    ("builtins", "set"): set,
    ("builtins", "complex"): complex,
    ("builtins", "bytearray"): bytearray,
}


def _stand_ins() -> dict[tuple[str, str], Any]:
    table: dict[tuple[str, str], Any] = {
        **PLAIN_GLOBALS,
        ("_codecs", "encode"): _encode,
        ("torch", "Size"): _size,
        ("torch", "device"): _device,
        ("torch", "Tensor"): _TensorType(parameter=False),
        ("torch.nn.parameter", "Parameter"): _TensorType(parameter=True),
        ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type_v2,
        ("torch.storage", "UntypedStorage"): _StorageType("storage.UntypedStorage", "uint8"),
    }
    for f in (*_REBUILDERS, _rebuild_parameter, _rebuild_parameter_with_state):
        table["torch._utils", f.__name__] = f
    for name, dtype_name in _STORAGE_DTYPES.items():
        table["torch", name] = _StorageType(name, dtype_name)
    for name in _OTHER_DTYPES:
        table["torch", name] = _UnsupportedDtype(name)
    for name, d in dtypes._BY_NAME.items():
        table["torch", name] = d
    return table


_STAND_INS = _stand_ins()


class _Unpickler(pickle.Unpickler):
    def __init__(
        self, file: Any, archive: _Archive, safe: bool, user_safe: dict, **kwargs: Any
    ) -> None:
        super().__init__(file, **kwargs)
        self.archive, self.safe, self.user_safe = archive, safe, user_safe

    def find_class(self, module: str, name: str) -> Any:
        # protocol 2 names Python 2's modules (__builtin__.set): their Python 3 names
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        found = _STAND_INS.get((module, name))
        if found is None:
            found = self.user_safe.get((module, name))
        if found is not None:
            return found
        if module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError(
                f"symgrad.load can't rebuild {module}.{name} from a PyTorch file: it reads "
                "tensors, Parameters, dtypes, sizes, devices and plain Python containers and "
                "numbers (save a module's state_dict() rather than the module)"
            )
        if self.safe:
            raise pickle.UnpicklingError(_UNSAFE.format(what=f"the global {module}.{name}"))
        try:  # weights_only=False: the caller trusts the file
            return super().find_class(module, name)
        except (ImportError, AttributeError) as error:
            raise pickle.UnpicklingError(
                f"can't find {module}.{name}, which the file needs: {error}"
            ) from None

    def persistent_load(self, pid: Any) -> Any:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unknown persistent id in a PyTorch file: {pid!r}")
        _, kind, key, location, numel = pid
        if not isinstance(kind, (_StorageType, _UnsupportedDtype)):
            raise pickle.UnpicklingError(f"not a storage type: {kind!r}")
        well_formed = isinstance(key, str) and isinstance(location, str) and type(numel) is int
        if not well_formed or numel < 0 or "/" in key or key.startswith("."):
            raise pickle.UnpicklingError(f"malformed storage id {pid!r}")
        return self.archive.storage(kind, key, location, numel)


class _Archive:
    """The records of one PyTorch zip file, and the storages read from them so far."""

    def __init__(self, file: Any, map_location: Any) -> None:
        try:
            self.zip = zipfile.ZipFile(file)
            names = self.zip.namelist()
        except (zipfile.BadZipFile, EOFError, OSError) as error:
            raise RuntimeError(
                f"PytorchStreamReader failed reading zip archive: {error} (the file is not a "
                "complete zip archive written by torch.save)"
            ) from None
        pickles = [n for n in names if n.count("/") == 1 and n.endswith("/data.pkl")]
        if not pickles:
            raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
        self.prefix = pickles[0][: -len("data.pkl")]
        self.map_location = map_location
        self.storages: dict[str, _Storage] = {}
        order = self.read("byteorder").decode() if self.has("byteorder") else "little"
        if order not in ("little", "big"):
            raise RuntimeError(f"unknown byte order {order!r} in a PyTorch file")
        self.byteorder = "<" if order == "little" else ">"

    def has(self, name: str) -> bool:
        try:
            self.zip.getinfo(self.prefix + name)
        except KeyError:
            return False
        return True

    def read(self, name: str) -> bytearray:
        try:
            info = self.zip.getinfo(self.prefix + name)
        except KeyError:
            raise RuntimeError(
                f"PytorchStreamReader failed locating file {name}: file not found"
            ) from None
        data = bytearray(info.file_size)
        try:
            with self.zip.open(info) as record:
                got = record.readinto(data)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {error}") from None
        if got != info.file_size:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: truncated")
        return data

    def storage(self, kind: Any, key: str, location: str, numel: int) -> _Storage:
        record = self.prefix + "data/" + key
        dtype_name = kind.dtype_name if isinstance(kind, _StorageType) else kind.name
        d = dtypes._BY_NAME.get(dtype_name)
        if d is None:
            raise _unsupported(dtype_name, record)
        found = self.storages.get(key)
        if found is None:
            _check_location(location, self.map_location)
            data = self.read("data/" + key)
            itemsize = d.numpy.itemsize
            if len(data) < numel * itemsize or len(data) % itemsize:
                raise RuntimeError(
                    f"record '{record}' holds {len(data)} bytes, too few for {numel} "
                    f"elements of {d}"
                )
            array = np.frombuffer(data, d.numpy.newbyteorder(self.byteorder))
            if not array.dtype.isnative:
                array = array.astype(d.numpy)
            found = self.storages[key] = _Storage(array[:numel], record, self.byteorder == ">")
        return found


def _check_location(location: str, map_location: Any) -> None:
    """Everything loads on the CPU: refuse what would need another device, as PyTorch does
    on a machine without one."""
    target = location
    if callable(map_location) and not isinstance(map_location, (str, device)):
        result = map_location(_MappedStorage(location), location)
        target = location if result is None else getattr(result, "location", "cpu")
    elif isinstance(map_location, dict):
        target = str(map_location.get(location, location))
    elif map_location is not None:
        target = str(device(map_location) if isinstance(map_location, str) else map_location)
    if target.split(":")[0] != "cpu":
        raise RuntimeError(
            f"Attempting to deserialize object on a {target.split(':')[0].upper()} device but "
            "symgrad computes on the CPU only. Please use symgrad.load with "
            "map_location=symgrad.device('cpu') to map your storages to the CPU."
        )


class _MappedStorage:
    """What a ``map_location`` function receives: returning it (or None) keeps the storage
    where it was saved; ``.cpu()`` moves it to the CPU."""

    def __init__(self, location: str) -> None:
        self.location = location

    def cpu(self) -> _MappedStorage:
        return _MappedStorage("cpu")


def load_zip(
    file: Any, map_location: Any, safe: bool, user_safe: dict, pickle_load_args: dict
) -> Any:
    """The object pickled in the PyTorch zip archive ``file`` (positioned at its start)."""
    archive = _Archive(file, map_location)
    data = archive.read("data.pkl")
    unpickler = _Unpickler(io.BytesIO(bytes(data)), archive, safe, user_safe, **pickle_load_args)
    return unpickler.load()
