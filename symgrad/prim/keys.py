"""Index keys that say what they pick, for interpreters that read structure (matrix forms);
NumPy indexes with them as with the plain tuples they are."""

from __future__ import annotations

from typing import Any

__all__ = ["ClassKey"]


class ClassKey(tuple):
    """The index ``(rows, classes)`` that picks each row's class (``nll_loss``), with the class
    target tensor it came from, so the matrix interpreter reads it as a one-hot matrix."""

    target: Any = None

    def __new__(cls, key: tuple, target: Any) -> ClassKey:
        obj = super().__new__(cls, key)
        obj.target = target
        return obj
