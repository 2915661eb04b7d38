"""SymPy, loaded on first use: ``import symgrad`` stays fast, and a program that never asks
for a derivative or a closed form never loads it."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["sympy"]


class _LazyModule:
    """A module imported the first time one of its attributes is read."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self) -> str:
        state = "loaded" if self._module is not None else "not loaded yet"
        return f"<module {self._name!r}, {state}>"


sympy = _LazyModule("sympy")
