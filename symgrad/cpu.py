"""``torch.cpu``: the CPU as a device module, for programs written for any device
(``getattr(torch, device_type).synchronize()``); symgrad computes on the CPU, one device.

Examples
--------
>>> import symgrad
>>> symgrad.cpu.is_available(), symgrad.cpu.device_count(), symgrad.cpu.current_device()
(True, 1, 'cpu')
"""

from __future__ import annotations

from typing import Any

from symgrad.amp import cpu as amp

__all__ = [
    "amp",
    "current_device",
    "device_count",
    "is_available",
    "is_initialized",
    "set_device",
    "synchronize",
]


def is_available() -> bool:
    """True: there is always a CPU."""
    return True


def is_initialized() -> bool:
    """True: the CPU needs no initialisation."""
    return True


def device_count() -> int:
    """1: the CPU counts as one device, as in PyTorch."""
    return 1


def current_device() -> str:
    """``"cpu"``."""
    return "cpu"


def set_device(device: Any) -> None:
    """Accepted and ignored, as PyTorch's: there is one CPU device."""


def synchronize(device: Any = None) -> None:
    """Returns at once: CPU ops are finished when they return."""
