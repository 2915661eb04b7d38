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

from symgrad.amp._deprecated import deprecated_names

__all__ = ["GradScaler", "autocast"]

GradScaler, autocast = deprecated_names("cuda", cache_default=None)
