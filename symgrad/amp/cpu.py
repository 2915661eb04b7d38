"""``torch.cpu.amp`` (``symgrad.cpu.amp``): PyTorch's deprecated names for
``amp.autocast("cpu")`` and ``amp.GradScaler("cpu")``, with its FutureWarning; autocast
accepts only ``enabled=False`` (see :class:`symgrad.autocast`).

Examples
--------
>>> import warnings
>>> import symgrad
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with symgrad.cpu.amp.autocast(enabled=False):
...         pass
"""

from __future__ import annotations

import warnings
from typing import Any

from symgrad._autocast import autocast as _autocast
from symgrad.amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["GradScaler", "autocast"]


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`symgrad.cpu.amp.{name}(args...)` is deprecated. Please use "
        f"`symgrad.amp.{name}('cpu', args...)` instead.",
        FutureWarning,
        stacklevel=3,
    )


class GradScaler(_GradScaler):
    """``amp.GradScaler("cpu", ...)``, deprecated."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _deprecated("GradScaler")
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``amp.autocast("cpu", ...)``, deprecated: only ``enabled=False`` is supported."""

    def __init__(self, enabled: bool = True, dtype: Any = None, cache_enabled: bool = True) -> None:
        _deprecated("autocast")
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
