"""The registry of misuse programs and how one is run."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["CASES", "Case", "case", "outcome", "summary"]


@dataclass(frozen=True)
class Case:
    """A program ``fn(T)``, what PyTorch does with it (an exception or warning type, or the
    returned value) and words symgrad's message must contain. ``fresh``: PyTorch gives the
    warning once per process, so it is checked in a new one. ``xfail``: why symgrad does not
    do what PyTorch does yet."""

    name: str
    fn: Callable[[Any], Any]
    expected: Any
    says: tuple[str, ...] = ()
    fresh: bool = False
    xfail: str = ""

    @property
    def raises(self) -> bool:
        return isinstance(self.expected, type) and issubclass(self.expected, BaseException)


CASES: list[Case] = []


def case(
    expected: Any, says: tuple[str, ...] = (), fresh: bool = False, xfail: str = ""
) -> Callable:
    """Register the decorated ``fn(T)`` with its expected outcome."""

    def register(fn: Callable) -> Callable:
        CASES.append(Case(fn.__name__, fn, expected, says, fresh, xfail))
        return fn

    return register


def outcome(T: Any, c: Case) -> Any:
    """What ``c`` gives with the module ``T``: the exception (warnings raised as errors) or the
    returned value."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return c.fn(T)
        except Exception as exc:  # a Warning is an Exception
            return exc


def summary(result: Any) -> str:
    """An outcome as a line of text: the exception's type name, or the value's repr."""
    if isinstance(result, BaseException):
        return type(result).__name__
    return repr(result)
