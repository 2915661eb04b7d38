"""The names given to tensors (``Tensor.name``), which closed forms show as symbols."""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["NAMES"]


class _Names:
    """Whether any tensor has been named: only then do unrecorded ops keep their provenance;
    and the names given to live tensors, which automatic names skip."""

    __slots__ = ("used", "given")

    def __init__(self) -> None:
        self.used = False
        self.given: dict[str, set[int]] = {}  # name -> ids of the live tensors given it

    def give(self, t: Any, name: str | None) -> None:
        """``t`` is named ``name`` (None: no longer named)."""
        if t._name is not None:
            self.forget(t._name, id(t))
        if name is not None:
            self.given.setdefault(name, set()).add(id(t))
            weakref.finalize(t, self.forget, name, id(t))

    def forget(self, name: str, key: int) -> None:
        holders = self.given.get(name)
        if holders is not None:
            holders.discard(key)
            if not holders:
                del self.given[name]


NAMES = _Names()
