"""Tables of cases run with ``T`` either symgrad or torch: each case's outcome reduced to plain
data (values, dtype, grad_fn name, or the exception's type), so one table of expected data
checks symgrad always and PyTorch when it is installed."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

NAN = "nan"


def rounded(v: float) -> Any:
    """A float to 4 decimals (``-0.0`` as ``0.0``), nan as ``'nan'`` (which equals itself)."""
    return NAN if math.isnan(v) else round(v, 4) + 0.0


def values(v: Any, number: Callable[[float], Any] = rounded) -> Any:
    """Nested lists with each float reduced by ``number``."""
    if isinstance(v, list):
        return [values(e, number) for e in v]
    if isinstance(v, float):
        return number(v)
    return v


def plain(value: Any, number: Callable[[float], Any] = rounded) -> Any:
    """Tensors as (values, dtype, grad_fn name); tuples and lists element by element; a size
    as a tuple."""
    if isinstance(value, (tuple, list)):
        return tuple(plain(v, number) for v in value)
    if hasattr(value, "grad_fn") and hasattr(value, "dtype"):
        node = value.grad_fn
        return (
            values(value.detach().tolist(), number),
            str(value.dtype).rsplit(".", 1)[-1],
            None if node is None else type(node).__name__,
        )
    if hasattr(value, "__iter__") and not isinstance(value, str):
        return tuple(value)
    return value


def outcome(T: Any, fn: Callable[[Any], Any]) -> Any:
    """``fn(T)`` with warnings silenced, or ``("raises", the exception's type name)``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(T)
    except Exception as error:  # the type is the expected answer
        # torch.linalg.LinAlgError is the class torch._C._LinAlgError
        return ("raises", type(error).__name__.lstrip("_"))


def run(T: Any, fn: Callable[[Any], Any], number: Callable[[float], Any] = rounded) -> Any:
    """The outcome of ``fn(T)`` as plain data."""
    return outcome(T, lambda T: plain(fn(T), number))


def table_tests(cases: dict) -> tuple:
    """The two tests of a table ``{name: (fn, expected)}``: symgrad's outcomes always,
    PyTorch's where it is installed. A test module binds them to its own names::

        test_symgrad, test_table_is_pytorchs = table_tests(CASES)
    """
    import pytest

    @pytest.mark.parametrize("name", list(cases))
    def test_symgrad(name: str) -> None:
        import symgrad

        fn, expected = cases[name]
        assert run(symgrad, fn) == expected

    @pytest.mark.torch
    @pytest.mark.parametrize("name", list(cases))
    def test_table_is_pytorchs(name: str) -> None:
        torch = pytest.importorskip("torch")
        fn, expected = cases[name]
        assert run(torch, fn) == expected

    return test_symgrad, test_table_is_pytorchs
