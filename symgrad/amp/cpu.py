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

from symgrad.amp._deprecated import deprecated_names

__all__ = ["GradScaler", "autocast"]

GradScaler, autocast = deprecated_names("cpu", cache_default=True)
