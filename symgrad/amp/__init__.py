"""``torch.amp``: :class:`GradScaler`, and autocast, which symgrad supports only switched
off (see :class:`symgrad.autocast`).

Examples
--------
>>> import symgrad
>>> symgrad.amp.GradScaler("cpu").get_scale()
65536.0
>>> with symgrad.amp.autocast("cpu", enabled=False):
...     pass
"""

from __future__ import annotations

from typing import Any

from symgrad._autocast import autocast
from symgrad.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    """False: symgrad's autocast can't be switched on (see :class:`symgrad.autocast`)."""
    return False


def custom_fwd(fwd: Any = None, *, device_type: str, cast_inputs: Any = None) -> Any:
    """PyTorch's decorator for a custom Function's ``forward`` under autocast: autocast is
    never on here, so the function is returned as it is.

    >>> import symgrad
    >>> f = symgrad.amp.custom_fwd(lambda ctx, x: x * 2, device_type="cpu")
    >>> f(None, 3)
    6
    """
    if fwd is None:
        return lambda fn: custom_fwd(fn, device_type=device_type, cast_inputs=cast_inputs)
    return fwd


def custom_bwd(bwd: Any = None, *, device_type: str) -> Any:
    """PyTorch's decorator for a custom Function's ``backward`` under autocast: returned as
    it is (autocast is never on)."""
    if bwd is None:
        return lambda fn: custom_bwd(fn, device_type=device_type)
    return bwd
