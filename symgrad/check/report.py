"""How a :class:`~symgrad.check.GradientReport` reads: a plain-text table for ``str()`` and an
HTML table for notebooks, both built from the same rows."""

from __future__ import annotations

import html
from typing import Any

import numpy as np

__all__ = ["as_text", "as_html", "index_text"]

HEADER = ["input", "sources", "max abs err", "max rel err", "worst at", "values", "verdict"]
_KINKS_SHOWN = 5


def index_text(idx: tuple) -> str:
    """An array index as the report writes it.

    Examples
    --------
    >>> index_text((0, 2))
    '[0, 2]'
    """
    return "[" + ", ".join(str(i) for i in idx) + "]"


def _title(report: Any) -> str:
    verdict = "all gradients agree" if report.ok else "GRADIENTS DISAGREE"
    return f"Gradient report: {verdict} ({report.note})"


def _comparison_row(name: str, c: Any) -> list[str]:
    return [
        name,
        f"{c.sources[0]} vs {c.sources[1]}",
        f"{c.max_abs:.3g}",
        f"{c.max_rel:.3g}",
        index_text(c.worst),
        f"{c.values[0]:.10g} vs {c.values[1]:.10g}",
        "ok" if c.ok else "FAIL",
    ]


def _kinks_row(r: Any) -> list[str]:
    where = [index_text(tuple(int(i) for i in idx)) for idx in zip(*np.nonzero(r.kinks))]
    more = f" and {len(where) - _KINKS_SHOWN} more" if len(where) > _KINKS_SHOWN else ""
    return [
        r.name,
        "kinks",
        "",
        "",
        ", ".join(where[:_KINKS_SHOWN]) + more,
        "finite differences straddle a kink: not compared there",
        "",
    ]


def _rows(report: Any) -> list[list[str]]:
    rows = []
    for r in report.inputs:
        rows.extend(_comparison_row(r.name, c) for c in r.comparisons)
        rows.extend(
            [r.name, f"{source}: missing", "", "", "", why, ""] for source, why in r.missing.items()
        )
        if r.kinks.any():
            rows.append(_kinks_row(r))
    return rows


def _failures(report: Any) -> list[str]:
    lines = []
    for r in report.inputs:
        bad = [c for c in r.comparisons if not c.ok]
        if bad:
            values = ", ".join(f"{s} {v:.15g}" for s, v in r.worst_values().items())
            lines.append(f"{r.name}, worst element {index_text(bad[0].worst)}: {values}")
    return lines


def as_text(report: Any) -> str:
    """The title, a table with one row per compared pair of sources (and per missing source
    and per input with kinks), then the worst element of each failing input."""
    rows = [HEADER] + _rows(report)
    widths = [max(len(row[k]) for row in rows) for k in range(len(HEADER))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join([_title(report), *lines, *_failures(report)])


def as_html(report: Any) -> str:
    """The same title, table and failures as :func:`as_text`, as escaped HTML."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADER)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
        for row in _rows(report)
    )
    notes = "".join(f"<p>{html.escape(line)}</p>" for line in _failures(report))
    return f"<p><b>{html.escape(_title(report))}</b></p><table><tr>{head}</tr>{body}</table>{notes}"
