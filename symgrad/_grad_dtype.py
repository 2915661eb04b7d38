"""The ``grad_dtype`` of leaf tensors that were given one (PyTorch 2.13): the dtype their
gradients are cast to, or None for any dtype. A leaf without an entry has its own dtype."""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["CUSTOM", "grad_dtype_of", "set_grad_dtype"]

# id(tensor) -> (a weak reference to it, its grad dtype); the entry goes with the tensor.
# (A WeakKeyDictionary would compare tensors with ==, which is elementwise.)
CUSTOM: dict[int, tuple] = {}


def grad_dtype_of(t: Any) -> Any:
    """The dtype gradients of the leaf ``t`` take: its own unless set (None: any)."""
    if not CUSTOM:
        return t.dtype
    entry = CUSTOM.get(id(t))
    return t.dtype if entry is None or entry[0]() is not t else entry[1]


def set_grad_dtype(t: Any, dtype: Any) -> None:
    """Give the leaf ``t`` the grad dtype ``dtype`` (its own dtype: forget the entry)."""
    key = id(t)
    if dtype == t.dtype:
        CUSTOM.pop(key, None)
        return

    def forget(_: Any) -> None:
        CUSTOM.pop(key, None)

    CUSTOM[key] = (weakref.ref(t, forget), dtype)
