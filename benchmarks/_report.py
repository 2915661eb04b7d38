"""Plain-text tables for the benchmark: one row per implementation, ratios to NumPy."""

from __future__ import annotations

from dataclasses import dataclass

from _cases import Case
from _timing import Timing

__all__ = ["Result", "format_time", "case_table", "targets_table", "HEADER"]

_COLUMNS = "{:<14}{:>12}{:>12}{:>10}{:>12}  {}"
HEADER = _COLUMNS.format("", "best", "median", "x NumPy", "per op", "target")


@dataclass
class Result:
    """The timings of one case, by implementation name (``numpy`` always present)."""

    case: Case
    timings: dict[str, Timing]

    def ratio(self, name: str) -> float:
        """Best time of ``name`` over best time of hand-written NumPy."""
        return self.timings[name].best / self.timings["numpy"].best

    def us_per_op(self, name: str) -> float | None:
        """Best microseconds per op, for cases that count their ops."""
        if self.case.ops is None:
            return None
        return self.timings[name].best / self.case.ops * 1e6


def format_time(seconds: float) -> str:
    """``12.3 us``, ``4.56 ms`` or ``1.23 s``: three significant digits, a readable unit."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale or unit == "us":
            value = seconds / scale
            decimals = 0 if value >= 100 else 1 if value >= 10 else 2
            return f"{value:.{decimals}f} {unit}"
    raise AssertionError("unreachable")


def _verdict(measured: float, target: float) -> str:
    return "ok" if measured < target else "MISS"


def _target_note(result: Result, name: str) -> str:
    """The issue's target for symgrad's row, and whether the measurement meets it."""
    case = result.case
    if name != "symgrad":
        return ""
    notes = []
    if case.target_ratio is not None:
        ratio = result.ratio(name)
        notes.append(f"< {case.target_ratio:g}x NumPy: {_verdict(ratio, case.target_ratio)}")
    if case.target_us_per_op is not None:
        per_op = result.us_per_op(name)
        notes.append(
            f"< {case.target_us_per_op:g} us/op: {_verdict(per_op, case.target_us_per_op)}"
        )
    return "; ".join(notes)


def case_table(number: int, result: Result) -> list[str]:
    """The lines of one case: a title, then a row per implementation."""
    lines = [f"{number}. {result.case.title}"]
    for name, timing in result.timings.items():
        per_op = result.us_per_op(name)
        row = _COLUMNS.format(
            f"  {name}",
            format_time(timing.best),
            format_time(timing.median),
            f"{result.ratio(name):.2f}",
            "" if per_op is None else f"{per_op:.2f} us",
            _target_note(result, name),
        )
        lines.append(row.rstrip())
    return lines


def _peer_ratios(result: Result) -> str:
    """How the peers fare on the same target (per op where the case counts ops)."""
    peers = [n for n in result.timings if n not in ("numpy", "symgrad")]
    if result.case.target_us_per_op is not None:
        return ", ".join(f"{n} {result.us_per_op(n):.2f} us/op" for n in peers)
    return ", ".join(f"{n} {result.ratio(n):.2f}x" for n in peers)


def targets_table(results: list[Result]) -> list[str]:
    """One line per target of the issue: symgrad's measurement, the target, the verdict."""
    rows = "  {:<26}{:>14}{:>14}  {:<6}{}"
    lines = [rows.format("symgrad vs target", "measured", "target", "", "peers")]
    for result in results:
        case, peers = result.case, _peer_ratios(result)
        if "symgrad" not in result.timings:
            continue
        if case.target_us_per_op is not None:
            per_op = result.us_per_op("symgrad")
            lines.append(
                rows.format(
                    case.label,
                    f"{per_op:.2f} us/op",
                    f"< {case.target_us_per_op:g} us/op",
                    _verdict(per_op, case.target_us_per_op),
                    peers,
                )
            )
            peers = ""
        if case.target_ratio is not None:
            ratio = result.ratio("symgrad")
            lines.append(
                rows.format(
                    case.label,
                    f"{ratio:.2f}x",
                    f"< {case.target_ratio:g}x",
                    _verdict(ratio, case.target_ratio),
                    peers,
                )
            )
    return [line.rstrip() for line in lines]
