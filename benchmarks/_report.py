"""Plain-text tables for the benchmark: one row per implementation, paired ratios to NumPy."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from _cases import Case
from _timing import Timing, quartiles

__all__ = [
    "Result",
    "format_time",
    "format_ratio",
    "format_spread",
    "case_table",
    "targets_table",
    "HEADER",
]

_COLUMNS = "{:<14}{:>12}{:>10}{:>15}{:>12}  {}"
HEADER = _COLUMNS.format("", "median", "x NumPy", "IQR", "per op", "target")


@dataclass
class Result:
    """The timings of one case, by implementation name (``numpy`` always present)."""

    case: Case
    timings: dict[str, Timing]

    def ratios(self, name: str) -> list[float]:
        """``name``'s paired ratios: its time over NumPy's time in the same round."""
        return self.timings[name].paired_ratios(self.timings["numpy"])

    def ratio(self, name: str) -> float:
        """The median of ``name``'s paired ratios to NumPy."""
        return statistics.median(self.ratios(name))

    def us_per_op(self, name: str) -> float | None:
        """Median microseconds per op, for cases that count their ops."""
        if self.case.ops is None:
            return None
        return self.timings[name].median / self.case.ops * 1e6


def format_time(seconds: float) -> str:
    """``12.3 us``, ``4.56 ms`` or ``1.23 s``: three significant digits, a readable unit."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale or unit == "us":
            value = seconds / scale
            decimals = 0 if value >= 100 else 1 if value >= 10 else 2
            return f"{value:.{decimals}f} {unit}"
    raise AssertionError("unreachable")


def format_ratio(ratio: float) -> str:
    """``0.71``, ``12.8`` or ``137``: three significant digits."""
    return f"{ratio:.{2 if ratio < 10 else 1 if ratio < 100 else 0}f}"


def format_spread(ratios: list[float]) -> str:
    """The interquartile range of ``ratios``: ``1.02-1.10``."""
    low, high = quartiles(ratios)
    return f"{format_ratio(low)}-{format_ratio(high)}"


def _verdict(measured: float, target: float) -> str:
    # the targets are upper bounds ("W1 <= 4x"): a measurement at the bound meets it
    return "ok" if measured <= target else "MISS"


def _measured(result: Result, name: str) -> float | None:
    """``name``'s measurement in the unit of the case's targets: us per op, or x NumPy."""
    if result.case.ops is not None:
        return result.us_per_op(name)
    return result.ratio(name)


def _target_text(result: Result, target: float) -> str:
    return f"<= {target:g} us/op" if result.case.ops is not None else f"<= {target:g}x NumPy"


def _target_note(result: Result, name: str) -> str:
    """The target set for this row, and whether the measurement meets it."""
    target = result.case.targets.get(name)
    if target is None:
        return ""
    verdict = _verdict(_measured(result, name), target)
    return f"{_target_text(result, target)}: {verdict}"


def case_table(number: int, result: Result) -> list[str]:
    """The lines of one case: a title, then a row per implementation."""
    lines = [f"{number}. {result.case.title}"]
    for name, timing in result.timings.items():
        per_op = result.us_per_op(name)
        row = _COLUMNS.format(
            f"  {name}",
            format_time(timing.median),
            format_ratio(result.ratio(name)),
            "" if name == "numpy" else format_spread(result.ratios(name)),
            "" if per_op is None else f"{per_op:.2f} us",
            _target_note(result, name),
        )
        lines.append(row.rstrip())
    return lines


def _peer_ratios(result: Result, name: str) -> str:
    """How the other implementations fare in the same unit."""
    peers = [n for n in result.timings if n not in ("numpy", name)]
    if result.case.ops is not None:
        return ", ".join(f"{n} {result.us_per_op(n):.2f} us/op" for n in peers)
    return ", ".join(f"{n} {format_ratio(result.ratio(n))}x" for n in peers)


def targets_table(results: list[Result]) -> list[str]:
    """One line per target: the implementation's measurement, the target, the verdict."""
    rows = "  {:<40}{:>14}{:>16}  {:<6}{}"
    lines = [rows.format("target", "measured", "target", "", "others")]
    for result in results:
        case = result.case
        for name, target in case.targets.items():
            if name not in result.timings:
                continue
            measured = _measured(result, name)
            per_op = case.ops is not None
            shown = f"{measured:.2f} us/op" if per_op else f"{format_ratio(measured)}x"
            lines.append(
                rows.format(
                    f"{case.label}, {name}",
                    shown,
                    _target_text(result, target),
                    _verdict(measured, target),
                    _peer_ratios(result, name),
                )
            )
    return [line.rstrip() for line in lines]
