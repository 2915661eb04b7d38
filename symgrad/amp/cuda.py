"""``torch.cuda.amp`` (``symgrad.cuda.amp``): PyTorch's deprecated names for
``amp.GradScaler("cuda")`` and ``amp.autocast("cuda")``, with its FutureWarning. There is no
CUDA here, so the scaler is disabled (with a warning) and autocast accepts only
``enabled=False``.

Examples
--------
>>> import warnings
>>> import symgrad
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     symgrad.cuda.amp.GradScaler(enabled=False).is_enabled()
False
"""

from __future__ import annotations

import warnings
from typing import Any

from symgrad._autocast import autocast as _autocast
from symgrad.amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["GradScaler", "autocast"]


def _deprecated(name: str) -> None:
    warnings.warn(
        f"`symgrad.cuda.amp.{name}(args...)` is deprecated. Please use "
        f"`symgrad.amp.{name}('cuda', args...)` instead.",
        FutureWarning,
        stacklevel=3,
    )


class GradScaler(_GradScaler):
    """``amp.GradScaler("cuda", ...)``, deprecated: disabled, as there is no CUDA."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _deprecated("GradScaler")
        super().__init__(
            "cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled
        )


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``amp.autocast("cuda", ...)``, deprecated: only ``enabled=False`` is supported."""

    def __init__(
        self, enabled: bool = True, dtype: Any = None, cache_enabled: bool | None = None
    ) -> None:
        _deprecated("autocast")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
