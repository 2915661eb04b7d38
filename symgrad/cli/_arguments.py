"""The command line's arguments: parsed with argparse, then checked against the formula."""

from __future__ import annotations

import argparse
import math
import re

__all__ = ["CommandError", "arguments", "at_values", "output_name", "short", "wrt_names"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_INTERMEDIATE = re.compile(r"[A-Za-z]+[0-9]+\Z")  # the look of v1, w2: intermediate results
_OUTPUT_NAMES = ("f", "g", "h", "y", "out")
_LONG_OPTION = re.compile(r"--([A-Za-z][A-Za-z0-9_-]*(=.*)?)?\Z")  # and "--" itself
_OPTIONS = {"-h", "--help", "--at", "--wrt", "--format", "--name", "--svg", "--max-size"}


class CommandError(Exception):
    """A mistake in the command line; its message is shown as one line."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors become one line instead of usage text and an exit."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise CommandError(f"{message} (see symgrad --help)")


# -- parsing --------------------------------------------------------------------------------------


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
        _add_common_arguments(sub, at_required)
    explain.add_argument(
        "--svg", metavar="PATH", help="also draw the graph into PATH (.svg, .png or .pdf)"
    )
    return parser


def _add_common_arguments(sub: argparse.ArgumentParser, at_required: bool) -> None:
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
    sub.add_argument(
        "--max-size",
        type=_whole_number,
        metavar="N",
        help="the largest closed form to build, in symbols and operations (default: "
        "$SYMGRAD_MAX_SIZE, else 50000; 0 for no limit)",
    )


def arguments(argv: list[str]) -> argparse.Namespace:
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


def _whole_number(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a whole number, got {short(text)!r}")
    return int(text)


# -- checking the arguments against the formula ------------------------------------------------


def at_values(items: list[str], names: tuple[str, ...]) -> dict[str, float]:
    """``["a=2", "b=3"]`` as ``{"a": 2.0, "b": 3.0}``, with one value for every name."""
    values: dict[str, float] = {}
    for part in (part for entry in items for part in entry.split(",") if part):
        item = short(part)
        key, equals, text = part.partition("=")
        key = key.strip()
        if not equals or not _NAME.match(key):
            raise CommandError(f"--at {item}: expected NAME=VALUE, such as x=1.5")
        if key not in names:
            raise CommandError(
                f"--at {item}: {key} is not in the formula (its names: {short(', '.join(names))})"
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
        shown = short(text.strip()) or "nothing"
        raise CommandError(f"--at {item}: {shown} is not a number") from None
    if not math.isfinite(value):
        raise CommandError(f"--at {item}: the value must be a finite number")
    return value


def wrt_names(requested: list[str] | None, names: tuple[str, ...]) -> list[str]:
    """The names given with ``--wrt``, once each (default: every name of the formula)."""
    if not requested:
        return list(names)
    for n in requested:
        if n not in names:
            raise CommandError(
                f"--wrt {short(n)}: it is not in the formula (its names: {short(', '.join(names))})"
            )
    return list(dict.fromkeys(requested))


def output_name(requested: str | None, names: tuple[str, ...]) -> str:
    """The name given with ``--name``, checked; by default the first of f, g, h, ... unused."""
    if requested is None:
        free = [n for n in _OUTPUT_NAMES if n not in names]
        name = free[0] if free else "out"
        while name in names:
            name += "_"
        return name
    if not _NAME.match(requested):
        raise CommandError(
            f"--name {short(requested)}: a name starts with a letter and holds "
            "letters, digits and '_'"
        )
    if requested in names:
        raise CommandError(f"--name {requested}: the formula already uses {requested}")
    if _INTERMEDIATE.match(requested):
        raise CommandError(
            f"--name {requested}: names like v1 are kept for intermediate results; choose another"
        )
    return requested


def short(text: str, limit: int = 60) -> str:
    """``text``, cut to ``limit`` characters with "..." at the end if longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
