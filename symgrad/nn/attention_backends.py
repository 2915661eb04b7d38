"""PyTorch's choice of attention kernels (``torch.nn.attention.SDPBackend`` and
``sdpa_kernel``), re-exported by :mod:`symgrad.nn.attention`.

symgrad's ``scaled_dot_product_attention`` is one NumPy computation whatever is chosen, so
``sdpa_kernel`` only switches the flags of :mod:`symgrad.backends.cuda` on for the given
kernels and off for the others while it is active, as PyTorch does, and restores them.
"""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

from symgrad.backends import cuda

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """The attention kernels PyTorch can choose from (its numbering)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


# each kernel's switch in backends.cuda
_SWITCHES = {
    SDPBackend.MATH: (cuda.math_sdp_enabled, cuda.enable_math_sdp),
    SDPBackend.FLASH_ATTENTION: (cuda.flash_sdp_enabled, cuda.enable_flash_sdp),
    SDPBackend.EFFICIENT_ATTENTION: (cuda.mem_efficient_sdp_enabled, cuda.enable_mem_efficient_sdp),
    SDPBackend.CUDNN_ATTENTION: (cuda.cudnn_sdp_enabled, cuda.enable_cudnn_sdp),
}


@contextlib.contextmanager
def sdpa_kernel(backends: Any, set_priority: bool = False) -> Iterator[None]:
    """Allow only ``backends`` (one ``SDPBackend`` or a list) inside the block (also a
    decorator); the values computed are the same whichever is allowed.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.nn.attention import SDPBackend, sdpa_kernel
    >>> with sdpa_kernel(SDPBackend.MATH):
    ...     symgrad.backends.cuda.flash_sdp_enabled()
    False
    >>> symgrad.backends.cuda.flash_sdp_enabled()
    True
    """
    chosen = [backends] if isinstance(backends, SDPBackend) else backends
    if not isinstance(chosen, (list, tuple, set)) or not all(
        isinstance(b, SDPBackend) for b in chosen
    ):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    before = {b: enabled() for b, (enabled, _) in _SWITCHES.items()}
    for b, (_, enable) in _SWITCHES.items():
        enable(b in chosen)
    try:
        yield
    finally:
        for b, (_, enable) in _SWITCHES.items():
            enable(before[b])
