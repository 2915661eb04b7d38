"""The commands: compute what a command asks for, and turn every failure into one line."""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections.abc import Sequence

import numpy as np
import sympy as sp

from symgrad._symbol_names import markdown_math
from symgrad.cli._arguments import CommandError, arguments, at_values, output_name, short, wrt_names
from symgrad.cli._limits import bounded, max_size
from symgrad.cli._report import (
    MAX_DERIVATION_OPERATIONS,
    Report,
    Skipped,
    aligned,
    num,
    partial,
    tex,
)
from symgrad.cli.formula import Formula, FormulaError, parse
from symgrad.symbolic import SymbolicDepthError, derivation, expression, gradient
from symgrad.tensor import Tensor

__all__ = ["main", "EXIT_ERROR", "EXIT_INTERNAL"]

EXIT_ERROR = 2  # the user's input is wrong
EXIT_INTERNAL = 1  # a bug of ours
_PICTURE_SUFFIXES = (".svg", ".png", ".pdf")
_TOO_DEEP = "the formula is too deeply nested for a closed form; simplify it or split it into parts"


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
            return _run(arguments(argv))
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
            f'the formula "{short(args.formula.strip())}" has no names, so '
            "nothing to differentiate; use names such as x"
        )
    wrt = wrt_names(args.wrt, formula.names)
    name = output_name(args.name, formula.names)
    values = at_values(args.at, formula.names) if args.at else None
    limit = max_size(args.max_size)
    if args.command == "explain":
        text = _explain(formula, values, wrt, name, args.format, args.svg, limit)
    else:
        text = _grad(formula, values, wrt, name, args.format, limit)
    sys.stdout.write(text + "\n")
    return 0


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
    at = ", ".join(f"{n} = {num(t.item())}" for n, t in leaves.items())
    out.backward(retain_graph=True)
    numbers = []
    for n in wrt:
        g = leaves[n].grad
        value = 0.0 if g is None else g.item()
        if not math.isfinite(value):
            kind = "undefined (nan)" if math.isnan(value) else f"infinite ({value})"
            raise CommandError(
                f"the derivative d{name}/d{n} is {kind} at {short(at)}: the "
                "formula is not differentiable there"
            )
        numbers.append(value)
    return numbers


def _closed_forms(out: Tensor, leaves: dict, wrt: list[str], name: str, limit: int) -> list:
    """The closed-form derivatives, refused when one is too large or undefined everywhere."""
    xs = [leaves[n] for n in wrt]
    what = [partial(name, n, "text") for n in wrt]
    closed = bounded(lambda cse: gradient(out, xs, cse=cse), what, limit)
    _check_defined(closed, what)
    return closed


def _closed_output(out: Tensor, name: str, limit: int) -> object:
    """The closed form of the output, refused when too large or undefined everywhere."""

    def build(cse: bool) -> object:
        form = expression(out, cse=cse)
        return (form[0], [form[1]]) if cse else [form]

    closed = bounded(build, [name], limit)
    _check_defined(closed, [name])
    return closed[0]


def _check_defined(closed: list, what: list[str]) -> None:
    for form, name in zip(closed, what):
        for bad, kind in ((sp.nan, "undefined (nan)"), (sp.zoo, "a division by zero (zoo)")):
            if form.has(bad):
                raise CommandError(
                    f"the closed form of {name} is {kind} for every value ({short(str(form))}): "
                    "the formula divides by zero, or takes the logarithm of zero, whatever the "
                    "values of its names"
                )


# -- grad -----------------------------------------------------------------------------------------


def _grad(
    formula: Formula, values: dict | None, wrt: list[str], name: str, fmt: str, limit: int
) -> str:
    out, leaves = _evaluate(formula, values)
    closed = _closed_forms(out, leaves, wrt, name, limit)
    numbers = _numeric_gradients(out, leaves, wrt, name) if values is not None else None
    rows = []
    for k, (n, form) in enumerate(zip(wrt, closed)):
        shown = str(form) if fmt == "text" else tex(form)
        row = f"{partial(name, n, fmt)} = {shown}"
        if numbers is not None and shown != num(numbers[k]):
            row += f" = {num(numbers[k])}"
        rows.append(row)
    if fmt == "markdown":
        return "\n".join(f"- ${markdown_math(r)}$" for r in rows)
    if fmt == "latex":
        return aligned(rows)
    return "\n".join(rows)


# -- explain --------------------------------------------------------------------------------------


def _explain(
    formula: Formula,
    values: dict,
    wrt: list[str],
    name: str,
    fmt: str,
    picture: str | None,
    limit: int,
) -> str:
    out, leaves = _evaluate(formula, values)
    numbers = _numeric_gradients(out, leaves, wrt, name)
    closed_output = _closed_output(out, name, limit)
    closed = _closed_forms(out, leaves, wrt, name, limit)
    story = _derivation(formula, out, [leaves[n] for n in wrt], name)
    report = Report(name, closed_output, values, out.item(), wrt, numbers, closed)
    if picture is not None:
        _draw(out, picture, name)
    text = {"text": report.text, "markdown": report.markdown, "latex": report.latex}[fmt](story)
    if picture is not None and fmt == "text":
        text += f"\n\nGraph drawn to {picture}"
    return text


def _derivation(formula: Formula, out: Tensor, xs: list[Tensor], name: str) -> object:
    if formula.operations > MAX_DERIVATION_OPERATIONS:
        return Skipped(formula.operations)
    return derivation(out, xs, name=name)


def _draw(out: Tensor, path: str, name: str) -> None:
    """Draw the graph with symgrad.viz, imported only here: it needs the graphviz package.
    The output is labelled ``name``, as in the text."""
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
        viz.draw(out, values=True, grads=True, formulas=True, names={name: out}).render(path)
    except (OSError, RuntimeError, ValueError, ImportError) as e:
        raise CommandError(f"--svg {path}: {' '.join(str(e).split())}") from None
