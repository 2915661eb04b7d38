"""Tensor names as SymPy symbols, written safely in LaTeX, text and Markdown.

A tensor's name is any non-empty string. Names made of letters and digits, with single
underscores between them (``x``, ``w1``, ``x_1``, ``alpha``), are plain :class:`sympy.Symbol`
objects and print as SymPy prints them (``x_{1}``, ``\\alpha``). Any other name (``learning
rate``, ``w[0]``, ``}\\input{...}``) is a :class:`NameSymbol`: it prints as written, with
control characters shown as escapes (``\\n``), and in LaTeX as ``\\mathrm{...}`` with every
character LaTeX, Markdown or HTML would read as markup escaped, so no name can end a formula
early, run a command or break a table.

Element symbols (``w[0, 1]``) carry their index at the end of their name; the base name is
what precedes that final index, so a tensor may itself be called ``w[0]`` or ``a[b``.

Examples
--------
>>> from symgrad._symbol_names import latex_name, name_symbol
>>> print(latex_name("x_1"), latex_name("learning rate"))
x_{1} \\mathrm{learning\\ rate}
>>> print(latex_name("}{x}"))
\\mathrm{\\}\\{x\\}}
>>> name_symbol("two\\nlines") ** 2
two\\nlines**2
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import sympy as sp

__all__ = [
    "NameSymbol",
    "name_symbol",
    "NameMatrixSymbol",
    "name_matrix_symbol",
    "is_plain",
    "latex_name",
    "visible",
    "element_parts",
    "markdown_math",
]

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*\Z")
_ELEMENT_INDEX = re.compile(r"\[([0-9]+(?:, [0-9]+)*)\]\Z")

# in math mode, inside \mathrm{}: what each character becomes so it shows as itself
_LATEX = {
    "\\": r"\backslash{}",
    "{": r"\{",
    "}": r"\}",
    "_": r"\_",
    "#": r"\#",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "^": r"\hat{}",
    "~": r"\sim{}",
    "|": r"\vert{}",  # a pipe would split a Markdown table row
    "`": r"\grave{}",  # a backtick would open a Markdown code span
    " ": r"\ ",
    "-": "{-}",  # a hyphen, not a binary minus
}


def is_plain(name: str) -> bool:
    """True for names SymPy prints well as they are: letters and digits, single underscores."""
    return bool(_PLAIN.match(name))


def visible(text: str) -> str:
    """``text`` with control characters and line breaks written as escapes (``\\n``)."""
    return "".join(
        ascii(ch)[1:-1]
        if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
        else ch
        for ch in text
    )


def latex_name(name: str, printer: Any = None) -> str:
    """LaTeX for a name: SymPy's for a plain name (``x_{1}``), else ``\\mathrm{...}`` escaped.

    ``printer`` is the SymPy LaTeX printer in use, whose settings then apply to plain names.
    """
    if is_plain(name):
        symbol = sp.Symbol(name)
        return printer._print(symbol) if printer is not None else sp.latex(symbol)
    return r"\mathrm{" + "".join(_LATEX.get(ch, ch) for ch in visible(name)) + "}"


def element_parts(name: str) -> tuple[str, tuple[str, ...]]:
    """``"w[0, 1]"`` as ``("w", ("0", "1"))``: the base name and the element index that ends
    the name of an element symbol (only the last bracket is the index: ``"w[0][1]"`` is
    element 1 of ``w[0]``)."""
    match = _ELEMENT_INDEX.search(name)
    if match is None:
        return name, ()
    return name[: match.start()], tuple(match.group(1).split(", "))


class NameSymbol(sp.Symbol):
    """A symbol whose name is not a plain identifier: shown as written, LaTeX escaped."""

    def _latex(self, printer: Any) -> str:
        return latex_name(self.name, printer)

    def _sympystr(self, printer: Any) -> str:
        return visible(self.name)


def name_symbol(name: str, **assumptions: Any) -> sp.Symbol:
    """The symbol for ``name``: a plain :class:`sympy.Symbol` when the name is plain, else a
    :class:`NameSymbol`."""
    cls = sp.Symbol if is_plain(name) else NameSymbol
    return cls(name, **assumptions)


class NameMatrixSymbol(sp.MatrixSymbol):
    """A matrix symbol whose name is not a plain identifier: shown as written, LaTeX escaped."""

    def _latex(self, printer: Any) -> str:
        return latex_name(self.name, printer)

    def _sympystr(self, printer: Any) -> str:
        return visible(self.name)


def name_matrix_symbol(name: str, rows: int, cols: int) -> sp.MatrixSymbol:
    """The matrix symbol for ``name`` (matrix-form closed forms), safe as :func:`name_symbol`."""
    cls = sp.MatrixSymbol if is_plain(name) else NameMatrixSymbol
    return cls(name, rows, cols)


def markdown_math(latex: str) -> str:
    """LaTeX that stays inside ``$...$`` in Markdown: no ``|`` (it splits table rows), no
    ``<`` or ``>`` (HTML), written as the macros MathJax and KaTeX know for them."""
    latex = latex.replace(r"\|", r"\Vert ")
    return latex.replace("|", r"\vert ").replace("<", r"\lt ").replace(">", r"\gt ")
