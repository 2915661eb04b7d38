"""The ``symgrad`` command line: the chain rule for a formula, in the terminal.

``symgrad explain FORMULA --at a=2 b=3 ...`` prints the values, the output value, the numeric
gradients (from ``backward``), the closed forms (symbolic gradients) and the chain-rule
derivation; ``symgrad grad FORMULA --wrt x`` prints closed-form derivatives. The output is
called ``f`` unless the formula uses that name (``--name`` chooses another, e.g. ``e`` for
PyTorch's tutorial graph).

Formulas are read by :mod:`symgrad.formula`, which never executes them. ``--at`` values are
read with ``float()`` and must be finite (``nan`` and ``inf`` are refused, so every non-finite
result can be blamed on a domain error and reported as one). Every user error is one line on
stderr starting with ``symgrad: error:`` and exit code 2; anything unexpected is one line and
exit code 1. Warnings are silenced: a non-finite result is an error, reported by name.

Examples
--------
>>> from symgrad.cli import main
>>> main(["grad", "x**2*sin(x)", "--wrt", "x"])
df/dx = x**2*cos(x) + 2*x*sin(x)
0
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import warnings
from collections.abc import Sequence

import numpy as np
import sympy as sp

from symgrad.formula import Formula, FormulaError, parse
from symgrad.symbolic import SymbolicDepthError, derivation, expression, gradient
from symgrad.tensor import Tensor

__all__ = ["main"]

EXIT_ERROR = 2  # the user's input is wrong
EXIT_INTERNAL = 1  # a bug of ours
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_INTERMEDIATE = re.compile(r"[A-Za-z]+[0-9]+\Z")  # the look of v1, w2: intermediate results
_OUTPUT_NAMES = ("f", "g", "h", "y", "out")
_LONG_OPTION = re.compile(r"--([A-Za-z][A-Za-z0-9_-]*(=.*)?)?\Z")  # and "--" itself
_OPTIONS = {"-h", "--help", "--at", "--wrt", "--format", "--name", "--svg"}
_PICTURE_SUFFIXES = (".svg", ".png", ".pdf")
# the step-by-step derivation grows much faster than the formula; beyond this many operations
# it takes seconds to build and pages to read
MAX_DERIVATION_OPERATIONS = 40
_TOO_DEEP = "the formula is too deeply nested for a closed form; simplify it or split it into parts"


class CommandError(Exception):
    """A mistake in the command line; its message is shown as one line."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors become one line instead of usage text and an exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CommandError(f"{message} (see symgrad --help)")


# -- the command line -----------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="symgrad",
        allow_abbrev=False,
        description="Derivatives of a formula: numbers, closed forms and the chain rule.",
        epilog='Example: symgrad explain "a*b + c*log(d)" --at a=2 b=3 c=5 d=10',
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    explain = commands.add_parser(
        "explain",
        allow_abbrev=False,
        help="values, gradients, closed forms and the chain rule",
        description="Print the values, the gradients from backward(), their closed forms and "
        "the chain-rule derivation of a formula at given values.",
    )
    grad = commands.add_parser(
        "grad",
        allow_abbrev=False,
        help="closed-form derivatives",
        description="Print the closed-form derivatives of a formula (and their values with --at).",
    )
    for sub, at_required in ((explain, True), (grad, False)):
        sub.add_argument(
            "formula",
            metavar="FORMULA",
            help='e.g. "a*b + c*log(d)": numbers, names, + - * / ** and functions',
        )
        sub.add_argument(
            "--at",
            nargs="+",
            action="extend",
            required=at_required,
            metavar="NAME=VALUE",
            help="a value for every name, e.g. --at a=2 b=3",
        )
        sub.add_argument(
            "--wrt",
            nargs="+",
            action="extend",
            metavar="NAME",
            help="the names to differentiate by (default: all)",
        )
        sub.add_argument("--format", choices=("text", "markdown", "latex"), default="text")
        sub.add_argument(
            "--name", help="the output's name (default: f, or g, h, ... when the formula uses f)"
        )
    explain.add_argument(
        "--svg", metavar="PATH", help="also draw the graph into PATH (.svg, .png or .pdf)"
    )
    return parser


def _arguments(argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; a formula right after the command may start with '-' (``-x**2``)."""
    formula = None
    if (
        len(argv) >= 2
        and argv[1].startswith("-")
        and not _LONG_OPTION.match(argv[1])
        and argv[1] not in _OPTIONS
    ):
        formula, argv = argv[1], [argv[0], "formula", *argv[2:]]
    try:
        args = _parser().parse_args(argv)
    except CommandError as e:
        if any(
            a.startswith("-") and not _LONG_OPTION.match(a) and a not in _OPTIONS for a in argv[1:]
        ):
            raise CommandError(
                f"{e}; a formula starting with '-' goes right after the "
                'command, as in: symgrad grad "-x**2" --wrt x'
            ) from None
        raise
    if formula is not None:
        args.formula = formula
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    Examples
    --------
    >>> main(["grad", "a*b", "--wrt", "a", "b", "--at", "a=2", "b=3"])
    df/da = b = 3
    df/db = a = 2
    0
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _run(_arguments(argv))
    except (CommandError, FormulaError) as e:
        return _fail(str(e), EXIT_ERROR)
    except (SymbolicDepthError, RecursionError):
        return _fail(_TOO_DEEP, EXIT_ERROR)
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except Exception as e:  # a bug: still one line, never a traceback
        return _fail(f"internal error ({type(e).__name__}: {e})", EXIT_INTERNAL)


def _fail(message: str, code: int) -> int:
    one_line = " ".join(message.splitlines())
    # what the user typed is echoed back: escape control characters so none reach the terminal
    shown = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in one_line)
    print(f"symgrad: error: {shown}", file=sys.stderr)
    return code


def _run(args: argparse.Namespace) -> int:
    formula = parse(args.formula)
    if not formula.names:
        raise CommandError(
            f'the formula "{_short(args.formula.strip())}" has no names, so '
            "nothing to differentiate; use names such as x"
        )
    wrt = _wrt(args.wrt, formula.names)
    name = _output_name(args.name, formula.names)
    values = _values(args.at, formula.names) if args.at else None
    if args.command == "explain":
        text = _explain(formula, values, wrt, name, args.format, args.svg)
    else:
        text = _grad(formula, values, wrt, name, args.format)
    sys.stdout.write(text + "\n")
    return 0


# -- checking the arguments ----------------------------------------------------------------------


def _values(items: list[str], names: tuple[str, ...]) -> dict[str, float]:
    """``["a=2", "b=3"]`` as ``{"a": 2.0, "b": 3.0}``, with one value for every name."""
    values: dict[str, float] = {}
    for part in (part for entry in items for part in entry.split(",") if part):
        item = _short(part)
        key, equals, text = part.partition("=")
        key = key.strip()
        if not equals or not _NAME.match(key):
            raise CommandError(f"--at {item}: expected NAME=VALUE, such as x=1.5")
        if key not in names:
            raise CommandError(
                f"--at {item}: {key} is not in the formula (its names: {_short(', '.join(names))})"
            )
        if key in values:
            raise CommandError(f"--at {item}: {key} is given twice")
        values[key] = _float(item, text)
    missing = [n for n in names if n not in values]
    if missing:
        raise CommandError(
            f"no value for {', '.join(missing)}: add "
            f"{' '.join(n + '=...' for n in missing)} to --at"
        )
    return values


def _float(item: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        shown = _short(text.strip()) or "nothing"
        raise CommandError(f"--at {item}: {shown} is not a number") from None
    if not math.isfinite(value):
        raise CommandError(f"--at {item}: the value must be a finite number")
    return value


def _wrt(requested: list[str] | None, names: tuple[str, ...]) -> list[str]:
    if not requested:
        return list(names)
    for n in requested:
        if n not in names:
            raise CommandError(
                f"--wrt {_short(n)}: it is not in the formula (its names: "
                f"{_short(', '.join(names))})"
            )
    return list(dict.fromkeys(requested))


def _output_name(requested: str | None, names: tuple[str, ...]) -> str:
    if requested is None:
        free = [n for n in _OUTPUT_NAMES if n not in names]
        name = free[0] if free else "out"
        while name in names:
            name += "_"
        return name
    if not _NAME.match(requested):
        raise CommandError(
            f"--name {_short(requested)}: a name starts with a letter and holds "
            "letters, digits and '_'"
        )
    if requested in names:
        raise CommandError(f"--name {requested}: the formula already uses {requested}")
    if _INTERMEDIATE.match(requested):
        raise CommandError(
            f"--name {requested}: names like v1 are kept for intermediate results; choose another"
        )
    return requested


# -- computing ------------------------------------------------------------------------------------


def _evaluate(formula: Formula, values: dict | None) -> tuple[Tensor, dict[str, Tensor]]:
    """The graph of the formula; without values, at 1.0 (closed forms do not depend on them)."""
    if values is None:
        return formula.evaluate(dict.fromkeys(formula.names, 1.0), check=False)
    try:
        return formula.evaluate(values)
    except FormulaError as e:
        raise CommandError(f"{e}; check the values given with --at") from None


def _numeric_gradients(out: Tensor, leaves: dict, wrt: list[str], name: str) -> list[float]:
    """Gradients by backward(), refusing non-finite ones with the derivative's name."""
    at = ", ".join(f"{n} = {_num(t.item())}" for n, t in leaves.items())
    out.backward(retain_graph=True)
    numbers = []
    for n in wrt:
        g = leaves[n].grad
        value = 0.0 if g is None else g.item()
        if not math.isfinite(value):
            kind = "undefined (nan)" if math.isnan(value) else f"infinite ({value})"
            raise CommandError(
                f"the derivative d{name}/d{n} is {kind} at {_short(at)}: the "
                "formula is not differentiable there"
            )
        numbers.append(value)
    return numbers


def _closed_forms(out: Tensor, leaves: dict, wrt: list[str]) -> list:
    return list(gradient(out, [leaves[n] for n in wrt]))


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _num(x: float) -> str:
    return f"{x:.7g}"


def _partial(name: str, n: str, fmt: str) -> str:
    if fmt == "text":
        return f"d{name}/d{n}"
    return rf"\frac{{\partial {_tex(name)}}}{{\partial {_tex(n)}}}"


def _tex(e: object) -> str:
    return sp.latex(sp.Symbol(e) if isinstance(e, str) else e)


# -- grad -----------------------------------------------------------------------------------------


def _grad(formula: Formula, values: dict | None, wrt: list[str], name: str, fmt: str) -> str:
    out, leaves = _evaluate(formula, values)
    closed = _closed_forms(out, leaves, wrt)
    numbers = _numeric_gradients(out, leaves, wrt, name) if values is not None else None
    rows = []
    for k, (n, form) in enumerate(zip(wrt, closed)):
        shown = str(form) if fmt == "text" else _tex(form)
        row = f"{_partial(name, n, fmt)} = {shown}"
        if numbers is not None and shown != _num(numbers[k]):
            row += f" = {_num(numbers[k])}"
        rows.append(row)
    if fmt == "markdown":
        return "\n".join(f"- ${r}$" for r in rows)
    if fmt == "latex":
        return _aligned(rows)
    return "\n".join(rows)


def _aligned(rows: list[str]) -> str:
    body = " \\\\\n".join(r.replace(" = ", " &= ", 1) for r in rows)
    return "\\begin{aligned}\n" + body + "\n\\end{aligned}"


# -- explain --------------------------------------------------------------------------------------


def _explain(
    formula: Formula, values: dict, wrt: list[str], name: str, fmt: str, picture: str | None
) -> str:
    out, leaves = _evaluate(formula, values)
    numbers = _numeric_gradients(out, leaves, wrt, name)
    closed = _closed_forms(out, leaves, wrt)
    story = _derivation(formula, out, [leaves[n] for n in wrt], name)
    report = _Report(name, expression(out), values, out.item(), wrt, numbers, closed)
    if picture is not None:
        _draw(out, picture)
    text = {"text": report.text, "markdown": report.markdown, "latex": report.latex}[fmt](story)
    if picture is not None and fmt == "text":
        text += f"\n\nGraph drawn to {picture}"
    return text


class _Skipped:
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


def _derivation(formula: Formula, out: Tensor, xs: list[Tensor], name: str) -> object:
    if formula.operations > MAX_DERIVATION_OPERATIONS:
        return _Skipped(formula.operations)
    return derivation(out, xs, name=name)


class _Report:
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
        lines += [f"  {n} = {_num(v)}" for n, v in self.values.items()]
        lines += [f"  {self.name} = {_num(self.value)}", "", "Gradient, numeric (backward):"]
        lines += [
            f"  {_partial(self.name, n, 'text')} = {_num(g)}"
            for n, g in zip(self.wrt, self.numbers)
        ]
        lines += ["", "Gradient, closed form (symbolic):"]
        lines += [
            f"  {_partial(self.name, n, 'text')} = {c}" for n, c in zip(self.wrt, self.closed)
        ]
        lines += ["", "Chain rule:"]
        lines += [f"  {line}" if line else "" for line in str(story).splitlines()]
        return "\n".join(lines)

    def markdown(self, story: object) -> str:
        lines = [
            f"### ${_tex(self.name)} = {_tex(self.expression)}$",
            "",
            "| name | value |",
            "|---|---|",
        ]
        lines += [f"| ${_tex(n)}$ | {_num(v)} |" for n, v in self.values.items()]
        lines += [
            f"| ${_tex(self.name)}$ | {_num(self.value)} |",
            "",
            "| derivative | closed form | numeric (backward) |",
            "|---|---|---|",
        ]
        lines += [
            f"| ${_partial(self.name, n, 'latex')}$ | ${_tex(c)}$ | {_num(g)} |"
            for n, g, c in zip(self.wrt, self.numbers, self.closed)
        ]
        return "\n".join(lines + ["", "### Chain rule", "", story.markdown()])  # type: ignore

    def latex(self, story: object) -> str:
        rows = [f"{_tex(self.name)} = {_tex(self.expression)}"]
        rows += [f"{_tex(n)} = {_num(v)}" for n, v in self.values.items()]
        rows += [f"{_tex(self.name)} = {_num(self.value)}"]
        rows += [
            f"{_partial(self.name, n, 'latex')} = {_tex(c)} = {_num(g)}"
            for n, g, c in zip(self.wrt, self.numbers, self.closed)
        ]
        return _aligned(rows) + "\n\n" + story.latex()  # type: ignore[attr-defined]


def _draw(out: Tensor, path: str) -> None:
    """Draw the graph with symgrad.viz, imported only here: it needs the graphviz package."""
    if not path.lower().endswith(_PICTURE_SUFFIXES):
        raise CommandError(
            f"--svg {path}: the file name must end in {', '.join(_PICTURE_SUFFIXES)}"
        )
    try:
        from symgrad import viz
    except ImportError as e:
        missing = getattr(e, "name", None) or "symgrad.viz"
        raise CommandError(
            f"--svg needs {missing}, which is not installed (pip install 'symgrad[viz]')"
        ) from None
    try:
        viz.draw(out, values=True, grads=True, formulas=True).render(path)
    except (OSError, RuntimeError, ValueError, ImportError) as e:
        raise CommandError(f"--svg {path}: {' '.join(str(e).split())}") from None
