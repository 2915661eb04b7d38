"""Where an unnamed leaf tensor lives, for naming its symbols: ``symgrad.nn`` registers a
finder that answers a parameter's path in its model (``fc1.weight``), so closed forms,
derivations and pictures call parameters as ``named_parameters()`` does without the
closed-form code importing ``nn``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["add_path_finder", "path_of"]

_finders: list[Callable[[Any], str | None]] = []


def add_path_finder(finder: Callable[[Any], str | None]) -> None:
    """Ask ``finder(tensor)`` for a path (or None) whenever an unnamed leaf needs a name."""
    _finders.append(finder)


def path_of(t: Any) -> str | None:
    """The first path a finder gives for ``t``, or None."""
    for finder in _finders:
        path = finder(t)
        if path:
            return path
    return None
