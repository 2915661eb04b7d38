"""A formula's tree, and computing it: with tensors, or as constants while it is read.

The reader in :mod:`symgrad.cli.formula` builds the tree; operators map to Python's own
(on tensors, the Tensor methods) and functions to :data:`symgrad.cli._functions.TABLE`. Where an
operation gives a non-finite result from finite inputs, :class:`DomainError` names it.
"""

from __future__ import annotations

import math
import operator
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from symgrad.cli._functions import TABLE
from symgrad.tensor import Tensor

__all__ = ["EXACT_INT", "Const", "Var", "Op", "Tree", "DomainError", "Evaluation", "fold", "short"]

_OPERATORS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
    "neg": operator.neg,
}
# where these give an infinite result from finite inputs, the result was too large for a float
_OVERFLOWING = {
    "+",
    "-",
    "*",
    "/",
    "**",
    "pow",
    "neg",
    "exp",
    "expm1",
    "square",
    "softplus",
    "gelu",
}
_AUTOMATIC = re.compile(r"v[0-9]+\Z")  # the symbolic layer's own names for intermediates
EXACT_INT = 2**53  # beyond this an int is no longer exact as a float


class DomainError(ValueError):
    """An operation with a non-finite result from finite inputs; the message names it."""


@dataclass(frozen=True)
class Const:
    value: int | float


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Op:
    op: str  # "+", "-", "*", "/", "**", "neg" or a function name
    args: tuple
    text: str  # the source of this sub-formula, for messages
    column: int  # 1-based


Tree = Const | Var | Op


class Evaluation:
    """One run of a formula's tree with tensors; recursion is bounded by the reader's depth."""

    def __init__(self, leaves: dict, check: bool) -> None:
        self.leaves = leaves
        self.check = check
        self.prefix = _intermediate_prefix(tuple(leaves))
        self.count = 0

    def value(self, node: Tree) -> Any:
        if isinstance(node, Const):
            return node.value
        if isinstance(node, Var):
            return self.leaves[node.name]
        args = [self.value(a) for a in node.args]
        out = _apply(node.op, args)
        if self.check:
            _check_finite(node, args, out)
        if self.prefix is not None and isinstance(out, Tensor):
            self.count += 1
            out.name = f"{self.prefix}{self.count}"
        return out


def _intermediate_prefix(names: tuple[str, ...]) -> str | None:
    """None (automatic names) unless a variable looks like one; then a prefix no variable uses."""
    if not any(_AUTOMATIC.match(n) for n in names):
        return None
    prefix = "w"
    while any(re.fullmatch(prefix + "[0-9]+", n) for n in names):
        prefix += "w"
    return prefix


def _apply(op: str, args: list) -> Any:
    if op in _OPERATORS:
        return _OPERATORS[op](*args)
    return TABLE[op].compute(*args)


def _number(x: Any) -> str:
    x = float(x.item() if isinstance(x, Tensor) else x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else f"{x:.7g}"


def _check_finite(node: Op, args: list, out: Any) -> None:
    """Raise where ``out`` is not finite although every input is."""
    numbers = [a.item() if isinstance(a, Tensor) else a for a in args]
    result = out.item() if isinstance(out, Tensor) else out
    if math.isfinite(result) or not all(math.isfinite(x) for x in numbers):
        return
    raise DomainError(_domain_message(node, numbers, result))


def _domain_message(node: Op, numbers: list, result: float) -> str:
    where = f'in "{short(node.text)}" at column {node.column}'
    shown = [_number(x) for x in numbers]
    if (node.op == "/" and numbers[1] == 0) or (node.op in ("**", "pow") and numbers[0] == 0):
        return f"division by zero {where}"
    if node.op in ("+", "-", "*", "/", "**"):
        a, b = (s if float(x) >= 0 else f"({s})" for s, x in zip(shown, numbers))
        call = f"{a}{node.op}{b}"
    elif node.op == "neg":
        call = f"-{shown[0]}"
    else:
        call = f"{node.op}({', '.join(shown)})"
    if math.isnan(result):
        kind = "is undefined (nan)"
    elif node.op in _OVERFLOWING:
        kind = f"overflows ({result})"
    else:
        kind = f"is infinite ({result})"
    return f"{call} {kind} {where}"


def short(text: str, limit: int = 40) -> str:
    """``text``, cut to ``limit`` characters with "..." at the end if longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def fold(node: Op) -> int | float:
    """The value of an operation on constants, computed as floats (never as huge ints)."""
    numbers = [a.value for a in node.args]
    exact = all(isinstance(x, int) for x in numbers)
    try:
        if node.op in ("**", "pow"):
            result = math.pow(*(float(x) for x in numbers))
        elif node.op in _OPERATORS:
            result = _OPERATORS[node.op](*(float(x) for x in numbers))
        else:
            with np.errstate(all="ignore"):
                result = _apply(node.op, [float(x) for x in numbers]).item()
    except ZeroDivisionError:
        raise DomainError(f'division by zero in "{node.text}" at column {node.column}') from None
    except OverflowError:
        result = math.inf
    except ValueError:  # math.pow of a negative base to a fractional power, or of 0 to a negative
        result = math.nan
    if not math.isfinite(result):
        raise DomainError(_domain_message(node, numbers, result))
    if exact and float(result).is_integer() and abs(result) < EXACT_INT and node.op != "/":
        # small integer results stay exact, so x**(1+1) shows as x**2
        return int(result)
    return result
