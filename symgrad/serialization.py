"""``save`` and ``load``: tensors, parameters, state dicts and containers of them, in a file
or a file-like object.

``save`` writes PyTorch's zip format (see ``symgrad._torch_checkpoint_save``), which
``torch.load`` reads. Meta tensors and lazy parameters, which it can't hold, are saved in
symgrad's own format: a short header, then a pickle in which every tensor is its bytes,
dtype, shape and strides over a storage shared by the tensors that shared memory when saved
(so a tensor and its view still share after loading, as in PyTorch). ``load`` reads both,
and the zip checkpoints written by PyTorch's ``torch.save``
(``model.load_state_dict(torch.load(path))`` in a program run with ``import symgrad as
torch``), without PyTorch installed: see
``symgrad._torch_checkpoint``. Tensors of dtypes symgrad lacks (bfloat16, complex, quantized)
raise ``pickle.UnpicklingError`` naming the dtype and the record.

Loading is safe by default, as PyTorch's ``weights_only=True``: a restricted unpickler
rebuilds tensors, parameters, dtypes, sizes, devices, ``OrderedDict`` and the plain Python
containers and numbers, and refuses any other class or function, naming it. Only
``weights_only=False`` (for files from a trusted source) unpickles arbitrary objects, such as
whole modules; ``add_safe_globals`` allows more classes to the safe loader.

Examples
--------
>>> import io, symgrad
>>> buffer = io.BytesIO()
>>> symgrad.save({"w": symgrad.tensor([1.0, 2.0], requires_grad=True)}, buffer)
>>> _ = buffer.seek(0)
>>> symgrad.load(buffer)
{'w': tensor([1., 2.], requires_grad=True)}
"""

from __future__ import annotations

import io
import os
import pickle
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import Size
from symgrad._device import device
from symgrad._meta import MetaArray, meta_array
from symgrad._torch_checkpoint import _UNSAFE, PLAIN_GLOBALS, load_zip
from symgrad.tensor import Tensor

__all__ = [
    "save",
    "load",
    "add_safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "safe_globals",
]

_MAGIC = b"SYMGRAD\x00\x01"
_ZIP_MAGIC = b"PK\x03\x04"
_PROTOCOL = 4


# -- what a file holds ------------------------------------------------------------------------
class _Storage:
    """The memory of one saved array, pickled once however many tensors use it."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def _rebuild_storage(data: bytes) -> np.ndarray:
    if not isinstance(data, (bytes, bytearray)):
        raise pickle.UnpicklingError("a tensor's storage must be bytes")
    return np.frombuffer(bytearray(data), dtype=np.uint8)


def _rebuild_tensor(
    storage: np.ndarray,
    offset: int,
    shape: tuple,
    strides: tuple,
    dtype_name: str,
    requires_grad: bool,
) -> Tensor:
    d = dtypes._BY_NAME.get(dtype_name) if isinstance(dtype_name, str) else None
    if storage is None and d is not None:  # a meta tensor: a shape and a dtype, no storage
        array = meta_array(tuple(int(n) for n in shape), d.numpy)
    elif d is None or not isinstance(storage, np.ndarray) or storage.dtype != np.uint8:
        raise pickle.UnpicklingError(f"not a tensor saved by symgrad.save: dtype {dtype_name!r}")
    else:  # numpy checks that shape, strides and offset stay inside the storage
        array = np.ndarray(
            tuple(int(n) for n in shape),
            d.numpy,
            storage,
            int(offset),
            tuple(int(s) for s in strides),
        )
    t = Tensor._make(array)
    if requires_grad:
        t.requires_grad = True
    return t


def _rebuild_parameter(data: Tensor, requires_grad: bool) -> Any:
    from symgrad.nn.parameter import Parameter

    if not isinstance(data, Tensor):
        raise pickle.UnpicklingError("a Parameter's data must be a tensor")
    return Parameter(data.detach(), requires_grad=bool(requires_grad))


def _rebuild_size(sizes: tuple) -> Size:
    return Size(int(n) for n in sizes)


def _rebuild_device(name: str) -> device:
    return device(str(name))


def _dtype(name: str) -> dtypes.dtype:
    return dtypes.named(name)


class _Pickler(pickle.Pickler):
    """Writes tensors over shared storages, and symgrad's small types by value."""

    def __init__(self, file: Any, protocol: int) -> None:
        super().__init__(file, protocol)
        self._storages: dict[int, tuple[_Storage, np.ndarray]] = {}

    def reducer_override(self, obj: Any) -> Any:
        from symgrad.nn.parameter import Parameter, is_lazy

        if is_lazy(obj):  # no values yet: rebuilt from its flags, as PyTorch pickles it
            return obj.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
        if isinstance(obj, Parameter):
            reduced = _rebuild_parameter, (Tensor._make(obj._data), obj._requires_grad)
            return _with_attributes(reduced, obj)
        if isinstance(obj, Tensor):
            return _with_attributes(self._tensor(obj), obj)
        if isinstance(obj, _Storage):
            return _rebuild_storage, (obj.array.tobytes(),)
        if type(obj) is Size:
            return _rebuild_size, (tuple(obj),)
        if type(obj) is device:
            return _rebuild_device, (str(obj),)
        if type(obj) is dtypes.dtype:
            return _dtype, (obj.name,)
        return NotImplemented

    def _tensor(self, t: Tensor) -> tuple:
        array = t._data
        if isinstance(array, MetaArray):  # no values to save
            return _rebuild_tensor, (None, 0, array.shape, (), t.dtype.name, t._requires_grad)
        root = array
        while isinstance(root.base, np.ndarray):
            root = root.base
        if not root.flags.c_contiguous or root.base is not None:
            root = array = np.ascontiguousarray(array)  # memory symgrad doesn't own: a copy
        entry = self._storages.get(id(root))
        if entry is None:  # the root is kept alive with its entry, so its id stays unique
            entry = self._storages[id(root)] = (_Storage(root.reshape(-1).view(np.uint8)), root)
        start = root.__array_interface__["data"][0]
        offset = array.__array_interface__["data"][0] - start
        args = (entry[0], offset, array.shape, array.strides, t.dtype.name, t._requires_grad)
        return _rebuild_tensor, args


def _with_attributes(reduced: tuple, t: Tensor) -> tuple:
    """A tensor's reduction with the attributes the user set on it (``t.note = ...``) as its
    state, which loading sets again, as PyTorch keeps them."""
    return (*reduced, dict(t.__dict__)) if t.__dict__ else reduced


def save(
    obj: Any,
    f: Any,
    pickle_module: Any = None,
    pickle_protocol: int = _PROTOCOL,
    _use_new_zipfile_serialization: bool = True,
    **_: Any,
) -> None:
    """Save ``obj`` (a tensor, a state dict, nested lists, tuples and dicts of them, or any
    picklable object) to ``f``, a path or a binary file-like object.

    Tensors keep their dtype, shape and ``requires_grad`` (not their graph or ``.grad``), and
    tensors sharing memory share it again after :func:`load`. The file is in PyTorch's zip
    format, which ``torch.load`` reads; ``_use_new_zipfile_serialization=False`` (and meta
    tensors or lazy parameters) write symgrad's own format instead.

    Examples
    --------
    >>> import io, symgrad
    >>> buffer = io.BytesIO()
    >>> symgrad.save([symgrad.arange(3), (symgrad.ones(1), "tag")], buffer)
    >>> _ = buffer.seek(0)
    >>> symgrad.load(buffer)
    [tensor([0, 1, 2]), (tensor([1.]), 'tag')]
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("symgrad.save writes with Python's pickle module only")
    from symgrad._torch_checkpoint_save import NeedsSymgradFormat, save_zip

    with _opened(f, "wb") as file:
        if _use_new_zipfile_serialization:
            try:
                return save_zip(obj, file)
            except NeedsSymgradFormat:  # meta tensors, lazy parameters: symgrad's own format
                pass
        file.write(_MAGIC)
        _Pickler(file, pickle_protocol).dump(obj)


# -- loading ----------------------------------------------------------------------------------
_SAFE = {
    **PLAIN_GLOBALS,
    (__name__, "_rebuild_storage"): _rebuild_storage,
    (__name__, "_rebuild_tensor"): _rebuild_tensor,
    (__name__, "_rebuild_parameter"): _rebuild_parameter,
    (__name__, "_rebuild_size"): _rebuild_size,
    (__name__, "_rebuild_device"): _rebuild_device,
    (__name__, "_dtype"): _dtype,
}
_USER_SAFE: dict[tuple[str, str], Any] = {}


def add_safe_globals(safe_globals: list) -> None:
    """Allow the classes or functions in ``safe_globals`` to ``load`` with
    ``weights_only=True`` (PyTorch's ``torch.serialization.add_safe_globals``).

    Examples
    --------
    >>> import collections
    >>> from symgrad import serialization
    >>> Point = collections.namedtuple("Point", "x y")
    >>> serialization.add_safe_globals([Point])
    >>> Point in serialization.get_safe_globals()
    True
    >>> serialization.clear_safe_globals()
    """
    for entry in safe_globals:
        if isinstance(entry, tuple):  # (obj, "module.name"): the name the file uses
            obj, name = entry
            module, _, qualname = name.rpartition(".")
            _USER_SAFE[(module, qualname)] = obj
        else:
            _USER_SAFE[(entry.__module__, entry.__qualname__)] = entry


class safe_globals:  # noqa: N801 - PyTorch's name for a context manager
    """Allow the classes or functions in ``safe_globals`` (as :func:`add_safe_globals`) only
    inside a ``with`` block (PyTorch's ``torch.serialization.safe_globals``).

    Examples
    --------
    >>> import io
    >>> import symgrad
    >>> buffer = io.BytesIO()
    >>> symgrad.save(frozenset([1]), buffer)
    >>> with symgrad.serialization.safe_globals([frozenset]):
    ...     _ = buffer.seek(0)
    ...     symgrad.load(buffer)
    frozenset({1})
    >>> frozenset in symgrad.serialization.get_safe_globals()
    False
    """

    def __init__(self, safe_globals: list) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        self._before = dict(_USER_SAFE)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: Any) -> None:
        _USER_SAFE.clear()
        _USER_SAFE.update(self._before)


def get_safe_globals() -> list:
    """The classes and functions allowed with :func:`add_safe_globals`."""
    return list(_USER_SAFE.values())


def clear_safe_globals() -> None:
    """Forget the classes and functions allowed with :func:`add_safe_globals`."""
    _USER_SAFE.clear()


class _SafeUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        found = _SAFE.get((module, name)) or _USER_SAFE.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(_UNSAFE.format(what=f"the global {module}.{name}"))
        return found

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError(_UNSAFE.format(what="a persistent id"))


def load(
    f: Any,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: Any = None,
    **pickle_load_args: Any,
) -> Any:
    """Load an object saved by :func:`save` from ``f`` (a path or a binary file-like object).

    By default (``weights_only=True``, as PyTorch) only tensors, parameters, dtypes, sizes,
    devices, ``OrderedDict`` and plain Python containers and numbers are rebuilt; anything
    else raises ``pickle.UnpicklingError`` naming it. ``weights_only=False`` unpickles any
    object, which can run arbitrary code: use it only for files you trust. Files written by
    PyTorch's ``torch.save`` (zip archives) are read the same way, with the globals PyTorch's
    own weights-only loader allows. Everything loads on the CPU: ``map_location`` may be
    ``"cpu"``, a CPU device, a dict of locations or a function ``(storage, location)``; a
    PyTorch storage saved on another device needs one, as in PyTorch without that device.

    Examples
    --------
    >>> import io, symgrad
    >>> buffer = io.BytesIO()
    >>> symgrad.save(symgrad.nn.Linear(2, 1).state_dict(), buffer)
    >>> _ = buffer.seek(0)
    >>> list(symgrad.load(buffer))
    ['weight', 'bias']
    """
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError("symgrad.load reads with Python's pickle module only")
    safe = weights_only is None or bool(weights_only)
    with _opened(f, "rb") as file:
        start = file.tell() if _seekable(file) else None
        head = file.read(len(_MAGIC))
        if head.startswith(_ZIP_MAGIC):
            return _load_pytorch_file(file, start, head, map_location, safe, pickle_load_args)
        if not head:  # an empty file: the unpickler's EOFError, as PyTorch
            raise EOFError("Ran out of input")
        if head != _MAGIC:
            raise _unknown_format(head)
        unpickler = (_SafeUnpickler if safe else pickle.Unpickler)(file, **pickle_load_args)
        return unpickler.load()


def _seekable(file: Any) -> bool:
    try:
        return bool(file.seekable()) if hasattr(file, "seekable") else hasattr(file, "seek")
    except (OSError, ValueError):
        return False


def _load_pytorch_file(
    file: Any, start: int | None, head: bytes, map_location: Any, safe: bool, args: dict
) -> Any:
    if start is None:  # a stream: the zip reader needs to seek
        file = io.BytesIO(head + file.read())
    else:
        file.seek(start)
    user_safe = _USER_SAFE if safe else {}
    return load_zip(file, map_location, safe, user_safe, args)


def _unknown_format(head: bytes) -> Exception:
    return pickle.UnpicklingError(
        f"not a file written by symgrad.save (it starts with {head[:8]!r})"
    )


class _opened:
    """``f`` opened as a binary file if it is a path; a file-like object as it is."""

    def __init__(self, f: Any, mode: str) -> None:
        self.f, self.mode, self.owned = f, mode, None

    def __enter__(self) -> Any:
        if isinstance(self.f, (str, os.PathLike)):
            self.owned = open(self.f, self.mode)  # noqa: SIM115 - closed in __exit__
            return self.owned
        needed = "write" if "w" in self.mode else "read"
        if not hasattr(self.f, needed):
            raise AttributeError(
                f"expected a path or a binary file-like object with a '{needed}' method, got "
                f"{type(self.f).__name__}"
            )
        if isinstance(self.f, io.TextIOBase):
            raise TypeError("symgrad.save and load need a binary file: open it with 'wb'/'rb'")
        return self.f

    def __exit__(self, *exc: Any) -> None:
        if self.owned is not None:
            self.owned.close()
