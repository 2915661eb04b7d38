"""``symgrad.accelerator``: PyTorch's device-agnostic accelerator queries, answered for the CPU.

Examples
--------
>>> import symgrad
>>> symgrad.accelerator.is_available(), symgrad.accelerator.current_accelerator()
(False, None)
>>> device = symgrad.accelerator.current_accelerator() or symgrad.device("cpu")
>>> device
device(type='cpu')
"""

from __future__ import annotations

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available() -> bool:
    """False: symgrad computes on the CPU, which is not an accelerator."""
    return False


def current_accelerator(check_available: bool = False) -> None:
    """None: there is no accelerator."""
    return None


def device_count() -> int:
    """0: there is no accelerator."""
    return 0
