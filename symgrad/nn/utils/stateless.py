"""``torch.nn.utils.stateless``: the deprecated home of ``functional_call``."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["functional_call"]


def functional_call(
    module: Any,
    parameters_and_buffers: dict,
    args: Any = None,
    kwargs: dict | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """:func:`symgrad.func.functional_call`, with PyTorch's ``FutureWarning`` that this name
    is deprecated.

    Examples
    --------
    >>> import warnings
    >>> import symgrad
    >>> from symgrad import nn
    >>> layer = nn.Linear(2, 1, bias=False)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     nn.utils.stateless.functional_call(
    ...         layer, {"weight": symgrad.ones(1, 2)}, (symgrad.ones(1, 2),)
    ...     )
    tensor([[2.]])
    """
    from symgrad.func import functional_call as call

    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
        "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
        "instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
