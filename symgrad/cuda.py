"""``symgrad.cuda``: what PyTorch's ``torch.cuda`` answers in a build without CUDA.

symgrad computes on the CPU with NumPy, so no GPU is ever available: the queries answer
False or 0, seeding and cache calls do nothing, and calls that need a GPU raise PyTorch's
``AssertionError``.

Examples
--------
>>> import symgrad
>>> symgrad.cuda.is_available(), symgrad.cuda.device_count()
(False, 0)
>>> "cuda" if symgrad.cuda.is_available() else "cpu"
'cpu'
"""

from __future__ import annotations

from typing import Any

from symgrad._device import cuda_unavailable

__all__ = [
    "is_available",
    "device_count",
    "is_initialized",
    "is_bf16_supported",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "empty_cache",
    "memory_allocated",
    "max_memory_allocated",
    "memory_reserved",
    "max_memory_reserved",
    "init",
    "current_device",
    "get_device_name",
    "get_device_properties",
    "synchronize",
]


def is_available() -> bool:
    """False: symgrad computes on the CPU."""
    return False


def device_count() -> int:
    """0: no GPU is visible to symgrad."""
    return 0


def is_initialized() -> bool:
    """False: CUDA is never initialised."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False, as PyTorch answers without CUDA."""
    return False


def manual_seed(seed: int) -> None:
    """Does nothing (there is no GPU generator), as PyTorch without CUDA."""


def manual_seed_all(seed: int) -> None:
    """Does nothing (there is no GPU generator), as PyTorch without CUDA."""


def seed() -> None:
    """Does nothing (there is no GPU generator), as PyTorch without CUDA."""


def seed_all() -> None:
    """Does nothing (there is no GPU generator), as PyTorch without CUDA."""


def empty_cache() -> None:
    """Does nothing: there is no GPU memory to release."""


def memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing ever lived on a GPU (training scripts log it after each epoch).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.cuda.max_memory_allocated() / 2**20
    0.0
    """
    return 0


def memory_reserved(device: Any = None) -> int:
    """0 bytes: no GPU memory is reserved."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """0 bytes: no GPU memory was ever reserved."""
    return 0


def _needs_gpu(*args: Any, **kwargs: Any) -> Any:
    raise cuda_unavailable()


def init() -> None:
    """Raises ``AssertionError``: there is no CUDA to initialise."""
    _needs_gpu()


def current_device() -> int:
    """Raises ``AssertionError``: there is no current GPU."""
    return _needs_gpu()


def get_device_name(device: Any = None) -> str:
    """Raises ``AssertionError``: there is no GPU to name."""
    return _needs_gpu()


def get_device_properties(device: Any = None) -> Any:
    """Raises ``AssertionError``: there is no GPU to describe."""
    return _needs_gpu()


def synchronize(device: Any = None) -> None:
    """Raises ``AssertionError``: there is no GPU to wait for."""
    _needs_gpu()


def __getattr__(name: str) -> Any:
    if name == "amp":  # torch.cuda.amp, loaded on first use
        import importlib

        return importlib.import_module("symgrad.amp.cuda")
    raise AttributeError(f"module 'symgrad.cuda' has no attribute {name!r}")
