"""``symgrad.backends.cuda``: CUDA's switches, kept so training scripts can set them.

symgrad has no CUDA backend (``is_built()`` is False) and multiplies float32 matrices in full
float32 precision whatever the flags hold. ``matmul.allow_tf32`` reads and sets
:func:`symgrad.set_float32_matmul_precision` as PyTorch's does (True for ``"high"`` and
``"medium"``); the scaled-dot-product attention switches are kept as set.

Examples
--------
>>> import symgrad
>>> symgrad.backends.cuda.matmul.allow_tf32 = True
>>> symgrad.get_float32_matmul_precision()
'high'
>>> symgrad.backends.cuda.matmul.allow_tf32 = False
>>> symgrad.backends.cuda.flash_sdp_enabled()
True
"""

from __future__ import annotations

from typing import Any

from symgrad import _runtime

__all__ = [
    "is_built",
    "matmul",
    "flash_sdp_enabled",
    "enable_flash_sdp",
    "mem_efficient_sdp_enabled",
    "enable_mem_efficient_sdp",
    "math_sdp_enabled",
    "enable_math_sdp",
    "cudnn_sdp_enabled",
    "enable_cudnn_sdp",
]


def is_built() -> bool:
    """False: symgrad has no CUDA backend.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.backends.cuda.is_built()
    False
    """
    return False


class _Matmul:
    """``backends.cuda.matmul``: the cuBLAS flags (PyTorch's ``AttributeError`` for others)."""

    _FLAGS = ("allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction")

    def __init__(self) -> None:
        object.__setattr__(self, "_flags", dict.fromkeys(self._FLAGS, True))

    def __getattr__(self, name: str) -> Any:
        if name == "allow_tf32":
            return _runtime.get_float32_matmul_precision() != "highest"
        if name in self._flags:
            return self._flags[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "allow_tf32":
            _runtime.set_float32_matmul_precision("high" if value else "highest")
        elif name in self._flags:
            self._flags[name] = value
        else:
            raise AttributeError(f"Unknown attribute {name}")


matmul = _Matmul()

_SDP = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    """Whether the flash attention kernel is switched on (a flag only: symgrad has one)."""
    return _SDP["flash"]


def enable_flash_sdp(enabled: bool) -> None:
    """Switch the flash attention kernel on or off (a flag only)."""
    _SDP["flash"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    """Whether the memory-efficient attention kernel is switched on (a flag only)."""
    return _SDP["mem_efficient"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Switch the memory-efficient attention kernel on or off (a flag only)."""
    _SDP["mem_efficient"] = bool(enabled)


def math_sdp_enabled() -> bool:
    """Whether the math attention kernel is switched on (a flag only)."""
    return _SDP["math"]


def enable_math_sdp(enabled: bool) -> None:
    """Switch the math attention kernel on or off (a flag only)."""
    _SDP["math"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    """Whether the cuDNN attention kernel is switched on (a flag only)."""
    return _SDP["cudnn"]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Switch the cuDNN attention kernel on or off (a flag only)."""
    _SDP["cudnn"] = bool(enabled)
