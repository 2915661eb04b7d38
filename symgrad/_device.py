"""Devices: ``symgrad.device``, the default device, and the check that a device is the CPU.

symgrad computes on the CPU with NumPy. Device objects for other types (``device("cuda")``)
can be made, as in PyTorch, so that ``device = "cuda" if cuda.is_available() else "cpu"``
runs; putting a tensor on one raises PyTorch's error for a build without that backend.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["device", "set_default_device", "get_default_device"]

# PyTorch's device types, in the order its error message lists them
_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()
_NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_CPU_ONLY = (
    "Torch not compiled with CUDA enabled: symgrad computes on the CPU (with NumPy), so only "
    "device 'cpu' exists; pick the device with "
    "'cuda' if symgrad.cuda.is_available() else 'cpu'"
)


class device:
    """Where a tensor's values live: for symgrad always ``device(type='cpu')``.

    Made from a string (``"cpu"``, ``"cpu:0"``, ``"cuda:1"``), a type and an index, or another
    device. Equal only to devices of the same type and index (not to strings, as in PyTorch:
    compare ``str(t.device) == "cpu"`` or ``t.device.type == "cpu"``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.device("cpu")
    device(type='cpu')
    >>> symgrad.ones(2).device == symgrad.device("cpu")
    True
    >>> str(symgrad.device("cpu", 0))
    'cpu:0'
    """

    __slots__ = ("_type", "_index", "_previous")

    def __init__(self, type: Any, index: Any = None) -> None:  # noqa: A002 - PyTorch's name
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        elif isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError(_NO_ACCELERATOR)  # an int names an accelerator's device
        elif not isinstance(type, str):
            raise TypeError(
                "device() received an invalid combination of arguments: expected a string "
                f"such as 'cpu' or a device, got {_type_name(type)}"
            )
        else:
            type, parsed = _parse(type)
            if parsed is not None:
                if index is not None:
                    raise RuntimeError(
                        f"type (string) must not include an index because index was passed "
                        f"explicitly: {type}:{parsed}"
                    )
                index = parsed
        if index is not None:
            if not isinstance(index, int) or isinstance(index, bool):
                raise TypeError(
                    f"device(): argument 'index' (position 2) must be int, not {_type_name(index)}"
                )
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self._type = type
        self._index = index

    @property
    def type(self) -> str:
        """The device type, e.g. ``'cpu'``."""
        return self._type

    @property
    def index(self) -> int | None:
        """The device index, or None when none was given."""
        return self._index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return (self._type, self._index) == (other._type, other._index)

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type={self._type!r})"
        return f"device(type={self._type!r}, index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __reduce__(self) -> tuple:
        return (device, (self._type, self._index))

    def __enter__(self) -> device:
        self._previous = _default[0]
        set_default_device(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _default[0] = self._previous


_Device = device  # the class, where a parameter named device hides it


def _type_name(value: Any) -> str:
    return type(value).__name__


def _parse(text: str) -> tuple[str, int | None]:
    match = re.fullmatch(r"([a-z_]+)(?::(\d+))?", text)
    if match is None:
        if re.fullmatch(r"[a-z_]+:.*", text) and text.split(":")[0] in _TYPES:
            raise RuntimeError(f"Invalid device string: {text!r}")
        raise RuntimeError(
            f"Expected one of {', '.join(_TYPES)} device type at start of device string: {text}"
        )
    name, index = match.groups()
    if name not in _TYPES:
        raise RuntimeError(
            f"Expected one of {', '.join(_TYPES)} device type at start of device string: {text}"
        )
    return name, None if index is None else int(index)


_CPU = device("cpu")
_META = device("meta")
_default: list[device | None] = [None]  # what set_default_device chose (None: the CPU)


def as_device(value: Any) -> device:
    """``value`` (a string, device or None for the default device) as a CPU or meta device,
    raising PyTorch's error for a device symgrad cannot compute on."""
    if value is None:
        value = _default[0]
        if value is None:
            return _CPU
    d = value if isinstance(value, device) else device(value)
    if d.type == "cpu":
        return _CPU if d.index is None else d
    if d.type == "meta":
        return _META
    if d.type == "cuda":
        raise AssertionError(_CPU_ONLY)
    if d.type == "mps":
        raise RuntimeError(
            "PyTorch is not linked with support for mps devices: symgrad computes on the CPU "
            "(with NumPy); use device 'cpu'"
        )
    raise RuntimeError(
        f"symgrad computes on the CPU (with NumPy): device {str(d)!r} is not available; use "
        "device 'cpu'"
    )


def cuda_unavailable() -> AssertionError:
    """PyTorch's error for a CUDA call in a build without CUDA."""
    return AssertionError(_CPU_ONLY)


def set_default_device(device: Any) -> None:
    """The device factories use when given no ``device=`` (None: the CPU again).

    Only the CPU exists; a CUDA device is accepted here, as in PyTorch, and the factories then
    raise.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_default_device("cpu")
    >>> symgrad.get_default_device()
    device(type='cpu')
    >>> symgrad.set_default_device(None)
    """
    if device is None:
        _default[0] = None
        return
    _default[0] = _Device(device)


def get_default_device() -> device:
    """The device factories use when given no ``device=`` (``device(type='cpu')``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.get_default_device()
    device(type='cpu')
    """
    return as_device(None)


# its public home, as PyTorch's is torch: <class 'symgrad.device'>
device.__module__ = "symgrad"
