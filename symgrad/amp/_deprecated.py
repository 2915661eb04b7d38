"""The deprecated per-device amp names (``torch.cuda.amp``, ``torch.cpu.amp``): the classes of
:mod:`symgrad.amp` for one device, with PyTorch's FutureWarning on construction."""

from __future__ import annotations

import warnings
from typing import Any

from symgrad._autocast import autocast as _autocast
from symgrad.amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["deprecated_names"]


def deprecated_names(device: str, cache_default: Any) -> tuple[type, type]:
    """``(GradScaler, autocast)`` of ``symgrad.<device>.amp``: ``amp.GradScaler(device, ...)``
    and ``amp.autocast(device, ...)`` that warn as PyTorch's deprecated names do."""

    def warn(name: str) -> None:
        warnings.warn(
            f"`symgrad.{device}.amp.{name}(args...)` is deprecated. Please use "
            f"`symgrad.amp.{name}('{device}', args...)` instead.",
            FutureWarning,
            stacklevel=3,
        )

    class GradScaler(_GradScaler):
        __doc__ = f'``amp.GradScaler("{device}", ...)``, deprecated.'

        def __init__(
            self,
            init_scale: float = 2.0**16,
            growth_factor: float = 2.0,
            backoff_factor: float = 0.5,
            growth_interval: int = 2000,
            enabled: bool = True,
        ) -> None:
            warn("GradScaler")
            super().__init__(
                device, init_scale, growth_factor, backoff_factor, growth_interval, enabled
            )

    class autocast(_autocast):  # noqa: N801 - PyTorch's name
        __doc__ = f'``amp.autocast("{device}", ...)``, deprecated: only ``enabled=False``.'

        def __init__(
            self, enabled: bool = True, dtype: Any = None, cache_enabled: Any = cache_default
        ) -> None:
            warn("autocast")
            super().__init__(device, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    module = f"symgrad.amp.{device}"
    GradScaler.__module__ = autocast.__module__ = module
    return GradScaler, autocast
