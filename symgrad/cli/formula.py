"""Formulas typed by people, read without ever running them.

A formula such as ``a*b + c*log(d)`` is read with :func:`ast.parse` and checked node by node
against a whitelist: numbers, names, ``+ - * / **``, unary ``-`` and ``+``, and calls of a few
element-wise functions by bare name with positional arguments. Anything else is rejected with a
one-line :class:`FormulaError` saying what was found and at which column. The checked tree is
copied into a small tree of our own (constants folded on the way), which
:meth:`Formula.evaluate` computes with symgrad tensors: nothing the user typed is ever executed,
and names only ever become tensor names (SymPy symbols), never code.

Examples
--------
>>> from symgrad.cli.formula import parse
>>> formula = parse("a*b + c*log(d)")
>>> formula.names
('a', 'b', 'c', 'd')
>>> out, leaves = formula.evaluate({"a": 2, "b": 3, "c": 5, "d": 10})
>>> round(out.item(), 4)
17.5129
>>> parse("().__class__")
Traceback (most recent call last):
    ...
symgrad.cli.formula.FormulaError: attribute access "().__class__" at column 1 is not allowed ...
"""

from __future__ import annotations

import ast
import re
import sys

import numpy as np

import symgrad
from symgrad.cli._compute import (
    EXACT_INT,
    Const,
    DomainError,
    Evaluation,
    Op,
    Tree,
    Var,
    fold,
    short,
)
from symgrad.cli._functions import FUNCTIONS
from symgrad.cli._syntax import WHAT, operator_text, quote, syntax_error
from symgrad.tensor import Tensor

__all__ = ["parse", "Formula", "FormulaError", "FUNCTIONS", "MAX_LENGTH", "MAX_DEPTH"]

MAX_LENGTH = 10_000  # characters
MAX_DEPTH = 200  # nested operations; SymPy's recursive algorithms struggle well before 1,000

_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_HINT = "(use numbers, names, + - * / ** and functions such as exp(x))"


class FormulaError(ValueError):
    """A formula that cannot be read or computed; the message is one line and says where."""


class Formula:
    """A checked formula: its variables, and the computation it stands for.

    Attributes
    ----------
    text : str
        The formula as typed.
    names : tuple of str
        The variables, in order of first appearance.
    operations : int
        The number of operations left once constants are folded (``2*3*x`` has one).
    """

    def __init__(self, text: str, tree: Tree, names: tuple[str, ...], operations: int) -> None:
        self.text = text
        self.names = names
        self.operations = operations
        self._tree = tree

    def __repr__(self) -> str:
        return f"Formula({self.text.strip()!r})"

    def evaluate(self, values: dict, *, check: bool = True) -> tuple[Tensor, dict[str, Tensor]]:
        """Compute the formula with symgrad tensors, recording the graph.

        Every variable becomes a float64 leaf tensor that requires grad, named after the
        variable; intermediate tensors stay unnamed (the symbolic layer names them ``v1``,
        ``v2``, ...) unless a variable has such a name. A formula that is a lone variable
        gives a copy of it (``CloneBackward0``), so the output always has a graph.

        Parameters
        ----------
        values : dict
            A number for every name in :attr:`names`, and nothing else.
        check : bool
            Raise :class:`FormulaError` where an operation gives a non-finite result from
            finite inputs (``log(-1)``, a division by zero), naming it.

        Returns
        -------
        (Tensor, dict)
            The output, and the leaf tensor of each name.

        Examples
        --------
        >>> out, leaves = parse("x**2*sin(x)").evaluate({"x": 1.5})
        >>> out.grad_fn.name(), leaves["x"].name
        ('MulBackward0', 'x')
        """
        _check_values(self.names, values)
        leaves = {
            n: symgrad.tensor(float(values[n]), dtype=symgrad.float64, requires_grad=True, name=n)
            for n in self.names
        }
        run = Evaluation(leaves, check)
        with np.errstate(all="ignore"):  # non-finite results are reported, not warned about
            try:
                out = run.value(self._tree)
            except DomainError as e:
                raise FormulaError(str(e)) from None
        if not isinstance(out, Tensor):
            out = symgrad.tensor(float(out), dtype=symgrad.float64)
        elif out.grad_fn is None:
            out = out.clone()
        return out, leaves


def _check_values(names: tuple[str, ...], values: dict) -> None:
    missing = [n for n in names if n not in values]
    if missing:
        raise FormulaError(f"no value for {', '.join(missing)}")
    extra = [str(n) for n in values if n not in names]
    if extra:
        raise FormulaError(f"{', '.join(extra)} not used in the formula")


# -- reading ------------------------------------------------------------------------------------


def parse(text: str) -> Formula:
    """Read and check a formula, without executing any of it.

    Raises
    ------
    FormulaError
        For anything outside the whitelist, with a one-line message naming what was found and
        where (1-based column).

    Examples
    --------
    >>> parse("x**2*sin(x)").names
    ('x',)
    >>> parse("exp(x, y=1)")
    Traceback (most recent call last):
        ...
    symgrad.cli.formula.FormulaError: the keyword argument "y=1" at column 8 is not allowed ...
    """
    if not isinstance(text, str):
        raise FormulaError(f"a formula is a string, not {type(text).__name__}")
    _check_text(text)
    indent = len(text) - len(text.lstrip(" "))
    tree = _read(text[indent:], indent)
    _check_depth(tree, indent)
    reader = _Reader(text[indent:], indent)
    body = reader.convert(tree.body)
    return Formula(text, body, tuple(reader.names), reader.operations)


def _check_text(text: str) -> None:
    """Reject what ast would mishandle or what has no place in a formula, before parsing."""
    if not text.strip():
        raise FormulaError("the formula is empty")
    if len(text) > 10 * MAX_LENGTH:  # not worth scanning for a better message
        raise _too_long(text)
    for i, ch in enumerate(text):
        if not " " <= ch <= "~":
            raise FormulaError(
                f"character {ch!r} at column {i + 1} is not allowed (formulas "
                "are one line of ASCII letters, digits, operators and brackets)"
            )
        if ch == "#":  # Python would drop the rest of the line as a comment
            raise FormulaError(f"character '#' at column {i + 1} is not allowed in a formula")
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch in "([{") - (ch in ")]}")
        if depth > MAX_DEPTH:
            raise FormulaError(_too_deep(i + 1))
    if len(text) > MAX_LENGTH:
        raise _too_long(text)


def _too_long(text: str) -> FormulaError:
    return FormulaError(
        f"the formula is too long ({len(text)} characters; at most "
        f"{MAX_LENGTH}); split it into parts"
    )


def _too_deep(column: int) -> str:
    return (
        f"the formula is nested too deeply (more than {MAX_DEPTH} levels, at column "
        f"{column}); simplify it or split it into parts"
    )


def _read(text: str, indent: int) -> ast.Expression:
    try:
        return ast.parse(text, mode="eval")
    except SyntaxError as e:
        column, message = syntax_error(text, e)
        raise FormulaError(f"invalid syntax at column {column + indent}: {message}") from None
    except (RecursionError, MemoryError):
        # CPython's parser gives up on very deep input in these ways
        raise FormulaError(_too_deep(1)) from None


def _check_depth(tree: ast.AST, indent: int) -> None:
    """Measure the nesting iteratively: a deep tree must not reach a recursive walk."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, ast.expr):
            depth += 1
            if depth > MAX_DEPTH:
                raise FormulaError(_too_deep(node.col_offset + 1 + indent))
        stack.extend((child, depth) for child in ast.iter_child_nodes(node))


class _Reader:
    """Turns a depth-checked ast tree into a formula tree, whitelisting every node."""

    def __init__(self, text: str, indent: int) -> None:
        self.text = text
        self.indent = indent
        self.names: dict[str, None] = {}  # insertion-ordered set
        self.operations = 0

    def where(self, node: ast.AST) -> tuple[str, int]:
        # one line of ASCII (checked before parsing), so offsets index the text directly
        segment = self.text[node.col_offset : node.end_col_offset]
        return short(segment), node.col_offset + 1 + self.indent

    def reject(self, node: ast.AST, what: str) -> FormulaError:
        segment, column = self.where(node)
        return FormulaError(
            f"{what} {quote(segment)} at column {column} is not allowed in a formula {_HINT}"
        )

    def convert(self, node: ast.AST) -> Tree:
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name(node)
        if isinstance(node, ast.BinOp):
            return self.binary(node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.reject(node, WHAT.get(type(node), type(node).__name__))

    def constant(self, node: ast.Constant) -> Const:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            what = {
                str: "a string",
                bytes: "bytes",
                bool: "a boolean",
                complex: "a complex number",
                type(None): "None",
                type(...): "an ellipsis",
            }
            raise self.reject(node, what.get(type(value), "a constant"))
        if abs(value) > sys.float_info.max:  # exact for ints; catches 1e400 (inf) too
            segment, column = self.where(node)
            raise FormulaError(
                f'the number "{segment}" at column {column} is too large (it overflows a float)'
            )
        return Const(value if isinstance(value, float) or abs(value) < EXACT_INT else float(value))

    def name(self, node: ast.Name) -> Var:
        segment, column = self.where(node)
        if node.id.startswith("_") or not _NAME.match(node.id):
            raise FormulaError(
                f'the name "{segment}" at column {column} is not allowed '
                "(names start with a letter)"
            )
        if node.id in FUNCTIONS:
            raise FormulaError(
                f'"{segment}" at column {column} is a function; call it as {node.id}(...)'
            )
        self.names.setdefault(node.id, None)
        return Var(node.id)

    def binary(self, node: ast.BinOp) -> Tree:
        if type(node.op) not in _BINARY:
            symbol = operator_text(node)
            # the operator itself, between its operands (brackets and spaces may surround it)
            start = self.text.find(symbol, node.left.end_col_offset, node.right.col_offset)
            start = start if start >= 0 else node.col_offset
            column = start + 1 + self.indent
            if isinstance(node.op, ast.BitXor):
                left = self.text[node.col_offset : start]
                power = f"{left}**{self.text[start + 1 : node.end_col_offset]}"
                raise FormulaError(
                    f"the operator '^' at column {column} is not a power in a formula (it is "
                    f"exclusive or in Python): write ** instead, as in {quote(short(power))}"
                )
            segment, _ = self.where(node)
            raise FormulaError(
                f"the operator '{symbol}' in {quote(segment)} at column {column} is not allowed "
                f"in a formula {_HINT}"
            )
        return self.operation(node, _BINARY[type(node.op)], [node.left, node.right])

    def unary(self, node: ast.UnaryOp) -> Tree:
        if isinstance(node.op, ast.UAdd):
            return self.convert(node.operand)
        if not isinstance(node.op, ast.USub):
            raise self.reject(node, f"the operator '{operator_text(node)}' in")
        return self.operation(node, "neg", [node.operand])

    def call(self, node: ast.Call) -> Tree:
        segment, column = self.where(node)
        if not isinstance(node.func, ast.Name):
            raise FormulaError(
                f"{quote(segment)} at column {column} calls something other "
                "than a function named directly, such as exp(x)"
            )
        name = node.func.id
        if name not in FUNCTIONS:
            raise FormulaError(
                f'unknown function "{short(name)}" at column {column} '
                f"(known: {', '.join(sorted(FUNCTIONS))})"
            )
        for keyword in node.keywords:
            raise self.reject(
                keyword.value if keyword.arg is None else keyword,
                "the keyword argument" if keyword.arg else "the ** argument",
            )
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.reject(arg, "the starred argument")
        if len(node.args) != FUNCTIONS[name]:
            want = FUNCTIONS[name]
            raise FormulaError(
                f"{name}() takes {want} argument{'s' * (want > 1)}, got "
                f"{len(node.args)}, in {quote(segment)} at column {column}"
            )
        return self.operation(node, name, node.args)

    def operation(self, node: ast.AST, op: str, children: list) -> Tree:
        args = tuple(self.convert(c) for c in children)
        segment, column = self.where(node)
        tree = Op(op, args, segment, column)
        if op == "/" and isinstance(args[1], Const) and args[1].value == 0:
            # 0 ** -1 is refused as it is folded; x / 0 has no constant value to fold
            raise FormulaError(f'division by zero in "{segment}" at column {column}')
        if all(isinstance(a, Const) for a in args):
            try:
                return Const(fold(tree))
            except DomainError as e:
                raise FormulaError(str(e)) from None
        self.operations += 1
        return tree
