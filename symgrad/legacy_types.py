"""PyTorch's legacy tensor types: ``FloatTensor``, ``LongTensor`` and the other CPU ones.

Each is a factory that makes a plain :class:`symgrad.Tensor` of its dtype
(``LongTensor([1, 2])``, ``FloatTensor(2, 3)``), and ``isinstance(t, FloatTensor)`` is true for
any tensor of that dtype, as in PyTorch; none is a subclass of ``Tensor``. ``Tensor.type()``
names a tensor's type the same way (``'torch.FloatTensor'``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import sizes, to_array
from symgrad._device import as_device
from symgrad.tensor import Tensor

__all__ = [
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "LongTensor",
    "IntTensor",
    "ShortTensor",
    "CharTensor",
    "ByteTensor",
    "BoolTensor",
    "type_name",
    "as_tensor_type",
]

_EXPECTED = (
    "(), (*sizes), (torch.Size size), (Tensor other) or (object data), each with an optional "
    "device= keyword"
)


class tensortype(type):  # noqa: N801 - PyTorch's name for the legacy types' metaclass
    """The class of the legacy tensor types: a tensor is an instance of one when it has its
    dtype."""

    dtype: dtypes.dtype

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and instance.dtype is cls.dtype

    def __call__(cls, *args: Any, device: Any = None, **kwargs: Any) -> Tensor:
        if kwargs:
            raise TypeError(
                f"new() received an invalid combination of arguments - got keywords "
                f"{sorted(kwargs)}, but {cls.__name__} takes {_EXPECTED}; use "
                f"symgrad.tensor(data, dtype=..., requires_grad=...) for those"
            )
        as_device(device)
        return _make(cls, args)


def _make(cls: tensortype, args: tuple) -> Tensor:
    d = cls.dtype
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        shape = sizes(args, cls.__name__) if args else (0,)
        if any(n < 0 for n in shape):
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}"
            )
        return Tensor._make(np.zeros(shape, d.numpy))
    if len(args) == 1 and isinstance(args[0], tuple) and type(args[0]).__name__ == "Size":
        return Tensor._make(np.zeros(tuple(args[0]), d.numpy))
    if len(args) == 1 and isinstance(args[0], Tensor):
        if args[0].dtype is not d:
            raise TypeError(
                f"{cls.__name__}(other) shares other's memory, so other must be "
                f"{d.name}, not {args[0].dtype.name}; convert with other.to({d!r})"
            )
        return args[0].detach()  # the same memory, as PyTorch's alias
    if len(args) == 1:
        if isinstance(args[0], str):
            raise TypeError(f"new(): invalid data type '{type(args[0]).__name__}'")
        if args[0] is None or isinstance(args[0], (float, bool, complex, np.generic)):
            raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
        return Tensor._make(to_array(args[0], d))
    raise TypeError(
        f"new() received an invalid combination of arguments - got "
        f"({', '.join(type(a).__name__ for a in args)}), but {cls.__name__} takes {_EXPECTED}"
    )


def _legacy_type(name: str, d: dtypes.dtype) -> tensortype:
    doc = (
        f"Make a {d.name} tensor from data or sizes (``{name}([1, 2])``, ``{name}(2, 3)``); "
        f"``isinstance(t, {name})`` is true for {d.name} tensors."
    )
    cls = tensortype(name, (), {"dtype": d, "is_cuda": False, "is_sparse": False, "__doc__": doc})
    cls.__module__ = "symgrad"
    return cls


FloatTensor = _legacy_type("FloatTensor", dtypes.float32)
DoubleTensor = _legacy_type("DoubleTensor", dtypes.float64)
HalfTensor = _legacy_type("HalfTensor", dtypes.float16)
LongTensor = _legacy_type("LongTensor", dtypes.int64)
IntTensor = _legacy_type("IntTensor", dtypes.int32)
ShortTensor = _legacy_type("ShortTensor", dtypes.int16)
CharTensor = _legacy_type("CharTensor", dtypes.int8)
ByteTensor = _legacy_type("ByteTensor", dtypes.uint8)
BoolTensor = _legacy_type("BoolTensor", dtypes.bool_)

_TYPES = (
    FloatTensor,
    DoubleTensor,
    HalfTensor,
    LongTensor,
    IntTensor,
    ShortTensor,
    CharTensor,
    ByteTensor,
    BoolTensor,
)
_BY_NAME = {cls.__name__: cls for cls in _TYPES}


def type_name(t: Tensor) -> str:
    """PyTorch's name of ``t``'s type, e.g. ``'torch.FloatTensor'`` (PyTorch's spelling, so
    code comparing it with PyTorch's strings keeps working).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.ones(2).type()
    'torch.FloatTensor'
    >>> symgrad.ones(2).type(symgrad.LongTensor)
    tensor([1, 1])
    """
    return f"torch.{t.dtype.scalar_type}Tensor"


def as_tensor_type(value: Any) -> dtypes.dtype:
    """The dtype a ``Tensor.type(value)`` call asks for: a legacy type, its name (with the
    ``torch.`` or ``symgrad.`` prefix) or a dtype."""
    if isinstance(value, tensortype):
        return value.dtype
    if isinstance(value, dtypes.dtype):
        return value
    if isinstance(value, str):
        for prefix in ("torch.", "symgrad."):
            cls = _BY_NAME.get(value[len(prefix) :]) if value.startswith(prefix) else None
            if cls is not None:
                return cls.dtype
        raise ValueError(f"invalid type: '{value}'")
    if value is Tensor:
        return dtypes.get_default_dtype()
    if isinstance(value, type):  # a class, but no tensor type (float, numpy.float32)
        module = "" if value.__module__ == "builtins" else f"{value.__module__}."
        raise ValueError(
            f"invalid type: '{module}{value.__name__}' (give a dtype such as symgrad.float64, "
            "or a tensor type such as symgrad.DoubleTensor)"
        )
    raise TypeError("dtype must be a type, str, or dtype object")
