"""The outputs of the commands, as text, Markdown or LaTeX."""

from __future__ import annotations

import sympy as sp

from symgrad._symbol_names import latex_name, markdown_math

__all__ = ["MAX_DERIVATION_OPERATIONS", "Report", "Skipped", "aligned", "num", "partial", "tex"]

# the step-by-step derivation grows much faster than the formula; beyond this many operations
# it takes seconds to build and pages to read
MAX_DERIVATION_OPERATIONS = 40


def num(x: float) -> str:
    """A number as shown: seven significant digits."""
    return f"{x:.7g}"


def partial(name: str, n: str, fmt: str) -> str:
    """The derivative of ``name`` by ``n``: ``df/dx`` as text, a LaTeX fraction otherwise."""
    if fmt == "text":
        return f"d{name}/d{n}"
    return rf"\frac{{\partial {tex(name)}}}{{\partial {tex(n)}}}"


def tex(e: object) -> str:
    """LaTeX for an expression, or for a name as one symbol."""
    return latex_name(e) if isinstance(e, str) else sp.latex(e)


def md(e: object) -> str:
    """:func:`tex` for Markdown's ``$...$``: without ``|`` (a table cell's end) or ``<``."""
    return markdown_math(tex(e))


def aligned(rows: list[str]) -> str:
    """LaTeX rows ``a = b``, aligned at their first equals sign."""
    body = " \\\\\n".join(r.replace(" = ", " &= ", 1) for r in rows)
    return "\\begin{aligned}\n" + body + "\n\\end{aligned}"


class Skipped:
    """Stands for a derivation too long to show, in every format."""

    def __init__(self, operations: int) -> None:
        self.message = (
            f"not shown: the formula has {operations} operations, and the "
            f"step-by-step derivation is shown for at most "
            f"{MAX_DERIVATION_OPERATIONS}; split the formula into parts"
        )

    def __str__(self) -> str:
        return self.message

    def markdown(self) -> str:
        return self.message

    def latex(self) -> str:
        return f"% chain rule {self.message}"


class Report:
    """The explain output in one of three formats."""

    def __init__(
        self,
        name: str,
        closed_output: object,
        values: dict,
        value: float,
        wrt: list[str],
        numbers: list[float],
        closed: list,
    ) -> None:
        self.name, self.expression, self.values, self.value = name, closed_output, values, value
        self.wrt, self.numbers, self.closed = wrt, numbers, closed

    def text(self, story: object) -> str:
        lines = [f"{self.name} = {self.expression}", "", "Values:"]
        lines += [f"  {n} = {num(v)}" for n, v in self.values.items()]
        lines += [f"  {self.name} = {num(self.value)}", "", "Gradient, numeric (backward):"]
        lines += [
            f"  {partial(self.name, n, 'text')} = {num(g)}" for n, g in zip(self.wrt, self.numbers)
        ]
        lines += ["", "Gradient, closed form (symbolic):"]
        lines += [f"  {partial(self.name, n, 'text')} = {c}" for n, c in zip(self.wrt, self.closed)]
        lines += ["", "Chain rule:"]
        lines += [f"  {line}" if line else "" for line in str(story).splitlines()]
        return "\n".join(lines)

    def markdown(self, story: object) -> str:
        lines = [
            f"### ${md(self.name)} = {md(self.expression)}$",
            "",
            "| name | value |",
            "|---|---|",
        ]
        lines += [f"| ${md(n)}$ | {num(v)} |" for n, v in self.values.items()]
        lines += [
            f"| ${md(self.name)}$ | {num(self.value)} |",
            "",
            "| derivative | closed form | numeric (backward) |",
            "|---|---|---|",
        ]
        lines += [
            f"| ${markdown_math(partial(self.name, n, 'latex'))}$ | ${md(c)}$ | {num(g)} |"
            for n, g, c in zip(self.wrt, self.numbers, self.closed)
        ]
        return "\n".join(lines + ["", "### Chain rule", "", story.markdown()])  # type: ignore

    def latex(self, story: object) -> str:
        rows = [f"{tex(self.name)} = {tex(self.expression)}"]
        rows += [f"{tex(n)} = {num(v)}" for n, v in self.values.items()]
        rows += [f"{tex(self.name)} = {num(self.value)}"]
        rows += [
            f"{partial(self.name, n, 'latex')} = {tex(c)} = {num(g)}"
            for n, g, c in zip(self.wrt, self.numbers, self.closed)
        ]
        return aligned(rows) + "\n\n" + story.latex()  # type: ignore[attr-defined]
