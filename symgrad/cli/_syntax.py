"""What the formula reader says about text it refuses: Python's syntax errors, with the column
they are at and a hint, and the names of the constructs and operators a formula may not use."""

from __future__ import annotations

import ast
import re

__all__ = ["WHAT", "operator_text", "quote", "syntax_error"]

WHAT = {
    ast.Attribute: "attribute access",
    ast.Subscript: "a subscript",
    ast.Lambda: "a lambda",
    ast.JoinedStr: "an f-string",
    ast.FormattedValue: "an f-string",
    ast.Compare: "a comparison",
    ast.BoolOp: "'and'/'or'",
    ast.IfExp: "a conditional expression (if/else)",
    ast.List: "a list",
    ast.Tuple: "a tuple",
    ast.Set: "a set",
    ast.Dict: "a dict",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a generator expression",
    ast.NamedExpr: "an assignment expression (:=)",
    ast.Starred: "a starred argument",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
    ast.Slice: "a slice",
}


def quote(text: str) -> str:
    """``text`` in double quotes, or in single quotes when it holds a double quote."""
    return f"'{text}'" if '"' in text else f'"{text}"'


# a number running straight into a name: 2x, 1e, 3.5y (Python reads no operator between them)
_NUMBER_THEN_NAME = re.compile(
    r"(?<![A-Za-z0-9_.])((?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?)"
    r"([A-Za-z_][A-Za-z0-9_]*)"
)


def syntax_error(text: str, e: SyntaxError) -> tuple[int, str]:
    """The 1-based column of a syntax error in the one-line ``text``, and what to say.

    Examples
    --------
    >>> import ast
    >>> def error(text):
    ...     try:
    ...         ast.parse(text, mode="eval")
    ...     except SyntaxError as e:
    ...         return syntax_error(text, e)
    >>> error("x +")
    (4, 'the formula ends too early, after "+"')
    >>> error("3*2x")
    (4, '"2x" is a number followed by a name: write 2*x for a product (or 1e5 for a power of ten)')
    """
    message = (e.msg or "invalid syntax").splitlines()[0]
    if "integer string conversion" in message:
        return e.offset or 1, "a number with too many digits"
    end = len(text.rstrip()) + 1
    if e.lineno != 1 or not e.offset or e.offset > end:  # the parser ran out of formula
        last = "**" if text.rstrip().endswith("**") else text.rstrip()[-1]
        return end, f"the formula ends too early, after {quote(last)}"
    if "literal" in message:
        found = _NUMBER_THEN_NAME.search(text)
        if found and found.group(2)[0] not in "jJ_":
            number, name = found.groups()
            return found.start(2) + 1, (
                f'"{number}{name}" is a number followed by a name: write {number}*{name} for a '
                "product (or 1e5 for a power of ten)"
            )
    if message == "invalid syntax" or message.startswith("invalid syntax."):
        return e.offset, f"unexpected {quote(text[e.offset - 1])}"
    return e.offset, message


def operator_text(node: ast.AST) -> str:
    """How an operator a formula may not use is written (``//``, ``^``, ``not``)."""
    symbols = {
        ast.FloorDiv: "//",
        ast.Mod: "%",
        ast.MatMult: "@",
        ast.LShift: "<<",
        ast.RShift: ">>",
        ast.BitOr: "|",
        ast.BitXor: "^",
        ast.BitAnd: "&",
        ast.Not: "not",
        ast.Invert: "~",
    }
    return symbols.get(type(node.op), type(node.op).__name__)
