"""How large a closed form the command line builds and prints.

A short formula can have an enormous closed form: the derivative of ``x**x**...**x`` with 150
levels, or of a product of 190 factors, runs to millions of symbols and takes minutes to print.
Closed forms are first built in assignment form (``sympy.cse``-like, linear in the size of the
graph), whose size once written out in full is counted without writing it; only closed forms
within the limit are then built and printed.

The limit counts the symbols, numbers and operations of the written-out expression (its tree
size). It is :data:`DEFAULT_MAX_SIZE` unless the environment variable ``SYMGRAD_MAX_SIZE`` or
the option ``--max-size`` gives another; ``0`` means no limit.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import sympy as sp

from symgrad.cli._arguments import CommandError

__all__ = ["DEFAULT_MAX_SIZE", "ENVIRONMENT", "max_size", "tree_size", "bounded"]

DEFAULT_MAX_SIZE = 50_000  # a few seconds to build and print, the slowest way (LaTeX)
ENVIRONMENT = "SYMGRAD_MAX_SIZE"


def max_size(option: int | None) -> int:
    """The limit: ``--max-size``, else ``$SYMGRAD_MAX_SIZE``, else the default (0: none)."""
    if option is not None:
        return option
    text = os.environ.get(ENVIRONMENT, "").strip()
    if not text:
        return DEFAULT_MAX_SIZE
    if not text.isdigit():
        shown = text if len(text) <= 20 else text[:17] + "..."
        raise CommandError(
            f"{ENVIRONMENT}={shown}: expected a whole number (the largest closed form to build, "
            "0 for no limit)"
        )
    return int(text)


def tree_size(exprs: list, definitions: list | None = None) -> list[int]:
    """The tree size of each expression written out in full: every symbol defined in
    ``definitions`` (``[(symbol, expression), ...]`` in order) counts as its definition does.

    Shared subexpressions are counted once per use, as printing writes them, but visited once,
    so this takes time linear in the size of the assignment form.

    Examples
    --------
    >>> import sympy as sp
    >>> x, v = sp.symbols("x v")
    >>> tree_size([v * x, v**2], [(v, sp.sin(x) + 1)])  # x*(sin(x) + 1), (sin(x) + 1)**2
    [6, 6]
    """
    size: dict[Any, int] = {}
    for symbol, definition in definitions or []:
        size[symbol] = _size(definition, size)
    return [_size(sp.sympify(e, strict=True), size) for e in exprs]


def _size(expr: Any, size: dict) -> int:
    stack = [(expr, False)]
    while stack:
        node, ready = stack.pop()
        if node in size:
            continue
        if not node.args:
            size[node] = 1
        elif ready:
            size[node] = 1 + sum(size[a] for a in node.args)
        else:
            stack.append((node, True))
            stack.extend((a, False) for a in node.args if a not in size)
    return size[expr]


def bounded(build: Callable[[bool], Any], what: list[str], limit: int) -> list:
    """``build(False)``, the closed forms named ``what`` (``df/dx``), once ``build(True)``, the
    same in assignment form ``(definitions, closed forms)``, shows each within ``limit``."""
    if limit:
        definitions, exprs = build(True)
        _check(tree_size(exprs, definitions), what, limit)
    closed = build(False)
    if limit:  # written out, SymPy may distribute a factor: check the real size before printing
        _check(tree_size(closed), what, limit)
    return closed


def _check(sizes: list[int], what: list[str], limit: int) -> None:
    for size, name in zip(sizes, what):
        if size > limit:
            raise CommandError(
                f"the closed form of {name} is too large to show (about {size:,} symbols and "
                f"operations; the limit is {limit:,}): simplify the formula or split it into "
                f"parts, or raise the limit with --max-size N or {ENVIRONMENT}=N (0: no limit)"
            )
