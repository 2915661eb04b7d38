"""The Tensor's device methods: ``device``, ``to``, ``cpu``, ``cuda``, ``get_device``.

Every symgrad tensor lives on the CPU; moving one elsewhere raises PyTorch's error for a build
without that backend.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _memory_format as formats
from symgrad import dtypes
from symgrad._device import _CPU, _META, as_device, cuda_unavailable, device
from symgrad._device import device as device_type
from symgrad._meta import NO_DATA, MetaArray, meta_array
from symgrad.ops.shape import _TO
from symgrad.tensor import Tensor, bind_methods

__all__: list[str] = []

_TO_SIGNATURES = (
    " * (device device = None, dtype dtype = None, bool non_blocking = False, bool copy = False,"
    " *, memory_format memory_format = None)\n"
    " * (dtype dtype, bool non_blocking = False, bool copy = False, *, memory_format "
    "memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, memory_format "
    "memory_format = None)"
)
_TO_KEYWORDS = ("device", "dtype", "non_blocking", "copy", "memory_format")


def _device(self: Tensor) -> device:
    """Where the values live: ``device(type='cpu')``, or ``device(type='meta')`` for a tensor
    without values."""
    return _META if isinstance(self._data, MetaArray) else _CPU


def _is_meta(self: Tensor) -> bool:
    """Whether this is a meta tensor (a shape and a dtype, no values)."""
    return isinstance(self._data, MetaArray)


def _to_meta(self: Tensor, dtype: dtypes.dtype, strides: tuple | None) -> Tensor:
    if isinstance(self._data, MetaArray) and dtype is self.dtype and strides is None:
        return self
    strides = formats.target_strides(self._data, None) if strides is None else strides
    array = meta_array(self.shape, dtype.numpy, strides)
    return Tensor._make(array, requires_grad=self._requires_grad)


def _layout(self: Tensor, fmt: Any) -> tuple | None:
    """The strides of ``to``'s copy: None to keep ``self``'s layout (PyTorch's
    ``preserve_format``), which is also what a tensor already laid out as ``fmt`` asks."""
    if fmt is None or fmt is formats.preserve_format:
        return None
    if formats.suggest(self.shape, formats.element_strides(self._data)) is fmt:
        return None
    return formats.format_strides(fmt, self.shape)


def _is_cuda(self: Tensor) -> bool:
    """False: symgrad tensors live on the CPU."""
    return False


def _is_device_like(value: Any) -> bool:
    return isinstance(value, (str, device)) or (
        isinstance(value, int) and not isinstance(value, bool)
    )


def _bad_to(args: tuple, kwargs: dict) -> TypeError:
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    return TypeError(
        f"to() received an invalid combination of arguments - got ({', '.join(got)}), but "
        f"expected one of:\n{_TO_SIGNATURES}"
    )


def to_arguments(args: tuple, kwargs: dict) -> tuple[Any, Any, bool, Any]:
    """PyTorch's three signatures of ``to``, as (device, dtype, copy, memory format)."""
    if any(k not in _TO_KEYWORDS for k in kwargs):
        raise _bad_to(args, kwargs)
    first, rest = (args[0], args[1:]) if args else (None, ())
    target_device, target_dtype = kwargs.get("device"), kwargs.get("dtype")
    if isinstance(first, (Tensor, bool, float)) and ("device" in kwargs or "dtype" in kwargs):
        raise _bad_to(args, kwargs)  # to(other, ...) takes neither
    if isinstance(first, Tensor):
        target_device, target_dtype = first.device, first.dtype
    elif isinstance(first, (bool, float)):
        # PyTorch wraps a float or bool as the tensor `other` (float64, bool)
        target_dtype = dtypes.bool_ if isinstance(first, bool) else dtypes.float64
    elif args and (first is None or _is_device_like(first)):
        # to(device, dtype=None, non_blocking=False, copy=False): None is a device too
        if "device" in kwargs or (rest and "dtype" in kwargs):
            raise _bad_to(args, kwargs)
        target_device = first
        if rest:
            if rest[0] is not None and _as_dtype(rest[0]) is None:
                raise _bad_to(args, kwargs)
            target_dtype, rest = rest[0], rest[1:]
    elif first is not None:
        target_dtype = first
    flags = dict(zip(("non_blocking", "copy"), rest))
    given = [kwargs[k] for k in ("non_blocking", "copy") if k in kwargs]
    if len(rest) > 2 or not all(isinstance(v, bool) for v in (*flags.values(), *given)):
        raise _bad_to(args, kwargs)
    dtype = None if target_dtype is None else _as_dtype(target_dtype)
    if set(flags) & set(kwargs) or (target_dtype is not None and dtype is None):
        raise _bad_to(args, kwargs)
    fmt = kwargs.get("memory_format")
    if fmt is not None and not isinstance(fmt, formats.memory_format):
        raise _bad_to(args, kwargs)
    return target_device, dtype, bool(kwargs.get("copy", flags.get("copy", False))), fmt


def _as_dtype(value: Any) -> dtypes.dtype | None:
    """``value`` as a dtype (a symgrad dtype, NumPy's, or PyTorch's ``float``, ``int`` and
    ``bool``), or None; strings are device names to ``to``."""
    if isinstance(value, (str, Tensor)) or _is_device_like(value):
        return None
    try:
        return dtypes.as_dtype(value)
    except TypeError:
        return None


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """This tensor with another dtype and/or on another device (``self`` when nothing changes).

    Takes ``to(device=None, dtype=None, non_blocking=False, copy=False)``,
    ``to(dtype, non_blocking=False, copy=False)`` or ``to(other_tensor, ...)`` (``other``'s
    dtype and device). Only the CPU exists: a CUDA device raises PyTorch's ``AssertionError``.
    The result of a conversion or a ``copy=True`` records ``ToCopyBackward0``.

    Examples
    --------
    >>> import symgrad
    >>> t = symgrad.ones(2)
    >>> t.to("cpu") is t
    True
    >>> t.to(symgrad.device("cpu"), symgrad.float64)
    tensor([1., 1.], dtype=symgrad.float64)
    >>> t.to(symgrad.zeros(1, dtype=symgrad.int64))
    tensor([1, 1])
    >>> t.to(0.5)  # a float stands for a float64 tensor, as in PyTorch
    tensor([1., 1.], dtype=symgrad.float64)
    """
    if len(args) == 1 and not kwargs and type(self._data) is np.ndarray:
        # the commonest calls change nothing: x.to(device), x.to("cpu"), x.float() of a float
        first = args[0]
        kind = type(first)
        if (
            (kind is dtypes.dtype and first is dtypes.from_numpy_dtype(self._data.dtype))
            or (kind is device and first._type == "cpu")
            or (kind is str and first == "cpu")
        ):
            return self
    target_device, target_dtype, copy, fmt = to_arguments(args, kwargs)
    target_dtype = self.dtype if target_dtype is None else target_dtype
    strides = _layout(self, fmt)
    to_meta = target_device is not None and as_device(target_device) is _META
    if isinstance(self._data, MetaArray):
        if target_device is not None and not to_meta:
            raise NotImplementedError(NO_DATA)
    elif to_meta:
        return _to_meta(self, target_dtype, strides)
    if target_dtype is self.dtype and not copy and strides is None:
        return self
    if strides is None and fmt is not None and fmt is not formats.preserve_format:
        # a copy takes the format asked for, even one self's layout already suggests
        strides = formats.format_strides(fmt, self.shape)
    if self._requires_grad and not target_dtype.is_floating_point:
        with np.errstate(invalid="ignore", over="ignore"):  # nan to int silently, as PyTorch
            if strides is not None:
                return Tensor._make(formats.copy_strided(self._data, strides, target_dtype.numpy))
            return Tensor._make(self._data.astype(target_dtype.numpy))
    if strides is not None:
        return _TO(self, dtype=target_dtype, strides=strides)
    return _TO(self, dtype=target_dtype)


def _cpu(self: Tensor, memory_format: Any = None) -> Tensor:
    """``self``: symgrad tensors always live on the CPU.

    Examples
    --------
    >>> import symgrad
    >>> t = symgrad.ones(2)
    >>> t.cpu() is t
    True
    """
    if memory_format is not None and not isinstance(memory_format, formats.memory_format):
        raise TypeError(
            "cpu(): argument 'memory_format' must be torch.memory_format, not "
            f"{type(memory_format).__name__}"
        )
    if isinstance(self._data, MetaArray):
        raise NotImplementedError(NO_DATA)
    return self


def _cuda(self: Tensor, device: Any = None, non_blocking: bool = False, **kwargs: Any) -> Tensor:
    """Raises ``AssertionError``, as PyTorch without CUDA: symgrad computes on the CPU."""
    if device is not None and not isinstance(device, str):
        device_type(device)  # PyTorch's RuntimeError for an accelerator's index
    raise cuda_unavailable()


def _get_device(self: Tensor) -> int:
    """-1, PyTorch's answer for a CPU tensor."""
    return -1


bind_methods(
    {
        "device": property(_device),
        "is_cuda": property(_is_cuda),
        "is_meta": property(_is_meta),
        "to": _to,
        "cpu": _cpu,
        "cuda": _cuda,
        "get_device": _get_device,
    }
)
