"""``functionalize`` and ``debug_unwrap``: torch.func's names for functions of the graph's
representation, which symgrad's eager arrays make simple."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad.prim import batching

__all__ = ["functionalize", "debug_unwrap"]


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """``func`` with its in-place operations read as out-of-place ones, as PyTorch's
    ``functionalize`` makes it for its compilers. symgrad has no program to rewrite: it runs
    ``func`` as it is, which gives the same results (and the same changes to its inputs, which
    PyTorch copies back too).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import functionalize
    >>> def f(x):
    ...     y = x.clone()
    ...     y.add_(1)
    ...     return y
    >>> functionalize(f)(symgrad.ones(2))
    tensor([2., 2.])
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}."
            " Valid options are: remove='mutations' (in-place and out= operators replaced with "
            "their out-of-place equivalents) and remove='mutations_and_views' (views replaced "
            "with copies too)"
        )

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


def debug_unwrap(tensor: Any, *, recurse: bool = True) -> Any:
    """Inside ``vmap``, the tensor that holds ``tensor``'s batch: its batch dimension in front
    (``recurse=False``: one level of a nested ``vmap``; by default every level). Anything else
    is returned as it is.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.func import debug_unwrap, vmap
    >>> seen = []
    >>> _ = vmap(lambda x: seen.append(tuple(debug_unwrap(x).shape)) or x)(symgrad.ones(3, 2))
    >>> seen
    [(3, 2)]
    """
    while isinstance(tensor, batching.BatchedTensor):
        tensor = tensor._physical
        if not recurse:
            break
    return tensor
