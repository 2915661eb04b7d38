"""The functions of ``torch.linalg`` as PyTorch's argument parser takes them: its keyword
names for the tensor arguments (``input``, and NumPy's ``x``, where the docs write ``A``) and
``out=`` (a tuple of tensors for the functions with several results)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad.ops.out import with_out

__all__ = ["entry"]


def entry(fn: Callable, out: bool = True, exact: bool = True, **aliases: str) -> Callable:
    """``fn`` also taking its arguments under PyTorch's keyword names ``aliases`` (PyTorch's
    name to ``fn``'s), and ``out=`` unless ``out`` is False: as PyTorch's kernels, only
    ``out`` of the result's own dtype unless not ``exact`` (then cast into ``out``'s)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        for alias, name in aliases.items():
            if alias in kwargs:
                kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return with_out(call, exact=exact) if out else call
