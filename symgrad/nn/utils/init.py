"""``torch.nn.utils.init``: :func:`skip_init`."""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["skip_init"]


def skip_init(module_cls: type, *args: Any, **kwargs: Any) -> Any:
    """An instance of the module class ``module_cls(*args, **kwargs)`` whose parameters and
    buffers are left uninitialized (made on the meta device, then given new storage on
    ``device``); the class must take a ``device`` argument.

    Examples
    --------
    >>> from symgrad import nn
    >>> layer = nn.utils.skip_init(nn.Linear, 5, 2)
    >>> layer.weight.shape, type(layer.weight).__name__
    (symgrad.Size([2, 5]), 'Parameter')
    """
    from symgrad.nn.modules.module import Module

    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=device)
