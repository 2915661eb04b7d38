"""functorch's ``make_fx`` name: symgrad has no FX graphs to make."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["make_fx"]


def make_fx(f: Callable, *args: Any, **kwargs: Any) -> Any:
    """Not supported: symgrad records autograd graphs, not ``torch.fx`` programs; raises
    NotImplementedError. ``symgrad.compile`` and :mod:`symgrad.symbolic` trace functions
    into code and formulas instead.

    Examples
    --------
    >>> from symgrad._functorch.python_key import make_fx
    >>> make_fx(lambda x: x)
    Traceback (most recent call last):
    ...
    NotImplementedError: make_fx: symgrad has no torch.fx graphs; ...
    """
    raise NotImplementedError(
        "make_fx: symgrad has no torch.fx graphs; trace a function with symgrad.compile or "
        "symgrad.symbolic instead"
    )
