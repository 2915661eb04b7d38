"""A graph picture as DOT text: HTML-like labels, every piece of text escaped."""

from __future__ import annotations

import html

import numpy as np

from symgrad._symbol_names import visible
from symgrad.autograd.node import Node
from symgrad.prim.text import array_lines
from symgrad.viz.graph import Box, Graph
from symgrad.viz.nodes import operation_text

__all__ = ["dot"]

_COLORS = {
    "leaf": "#dbeafe",
    "intermediate": "#f3f4f6",
    "output": "#dcfce7",
    "constant": "#ffffff",
    "op": "#fef3c7",
}
_GRAD_COLOR, _DERIVATIVE_COLOR, _MUTED = "#b91c1c", "#1e3a8a", "#6b7280"


def dot(graph: Graph, options: dict, rankdir: str) -> str:
    """The DOT text of ``graph``, with ``options`` ``values``, ``grads`` and ``formulas``."""
    lines = [
        "digraph symgrad {",
        f'  graph [rankdir={rankdir}, nodesep=0.6, ranksep=0.45, fontname="Helvetica"];',
        '  node [fontname="Helvetica", fontsize=11];',
        '  edge [fontname="Helvetica", fontsize=10, arrowsize=0.7, color="#374151"];',
    ]
    lines += [_box_statement(box, options) for box in graph.boxes.values()]
    for ident, node, inputs, outputs in graph.ops:
        forward, derivatives = [], [None] * len(inputs)
        if options["formulas"]:
            forward, derivatives = _operation_text(graph, node, inputs, outputs, options["values"])
        rows = [([type(node).__name__], "bold")] + [([f], None) for f in forward]
        lines.append(
            f'  {ident} [shape=ellipse, style=filled, fillcolor="{_COLORS["op"]}", '
            f"label=<{_label(rows)}>];"
        )
        for key, derivative in zip(inputs, derivatives, strict=True):
            if key is not None:
                lines.append(_edge_statement(graph.boxes[key], ident, derivative))
        lines += [f"  {ident} -> {graph.boxes[key].id};" for key in outputs]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _operation_text(
    graph: Graph, node: Node, inputs: list, outputs: list, numbers: bool
) -> tuple[list, list]:
    names = [graph.boxes[k].name if k is not None else "?" for k in inputs]
    symbols = [graph.boxes[k].symbol if k is not None else None for k in inputs]
    outs = [graph.boxes[k].name for k in outputs] or ["?"]
    args = [graph.values.get(k) for k in inputs] if numbers else []
    return operation_text(node, names, symbols, outs, outputs, args)


def _box_statement(box: Box, options: dict) -> str:
    if box.kind == "constant":
        rows = [([box.name], None)]
        shown = array_lines(box.value) if box.value is not None else [box.name]
        if options["values"] and shown != [box.name]:
            rows.append((shown, "block"))
        return (
            f'  {box.id} [shape=box, style="dashed,rounded", color="{_MUTED}", '
            f"fontsize=9, label=<{_label(rows)}>];"
        )
    rows = [([box.name], "bold")]
    details = [{"leaf": "leaf", "output": "output"}.get(box.kind, "")]
    if box.value is not None:
        details.append(f"shape {list(np.shape(box.value))}")
    if any(details):
        rows.append(([" · ".join(d for d in details if d)], "muted"))
    if options["values"] and box.value is not None:
        rows += _titled("value", array_lines(box.value), "block")
    if options["grads"] and box.grad is not None:
        rows += _titled("grad", array_lines(box.grad), "grad")
    extra = ", peripheries=2" if box.kind == "output" else ""
    return (
        f'  {box.id} [shape=box, style="rounded,filled", fillcolor="{_COLORS[box.kind]}"'
        f"{extra}, label=<{_label(rows)}>];"
    )


def _titled(title: str, lines: list, style: str) -> list:
    if len(lines) == 1:
        return [([f"{title} {lines[0]}"], style)]
    return [([title], style), (lines, style)]


def _edge_statement(box: Box, op: str, derivative: str | None) -> str:
    attributes = []
    if box.kind == "constant":
        attributes.append(f'style=dashed, color="{_MUTED}"')
    if derivative is not None:
        attributes.append(f'fontcolor="{_DERIVATIVE_COLOR}", label=<{_html(derivative)}>')
    return f"  {box.id} -> {op}" + (f" [{', '.join(attributes)}]" if attributes else "") + ";"


def _label(rows: list) -> str:
    """An HTML-like label: a borderless table, one row per ``(lines, style)``, all escaped.

    Rows of several lines (arrays) are a left-aligned monospace block, so columns line up.
    """
    cells = []
    for lines, style in rows:
        text = "<BR/>".join(_html(line) for line in lines)
        if style == "bold":
            text = f"<B>{text}</B>"
        elif style == "muted":
            text = f'<FONT COLOR="{_MUTED}" POINT-SIZE="9">{text}</FONT>'
        elif style == "grad":
            text = f'<FONT COLOR="{_GRAD_COLOR}">{text}</FONT>'
        if len(lines) > 1:
            text = f'<FONT FACE="Courier">{text}</FONT>'
        align = ' BALIGN="LEFT"' if len(lines) > 1 else ""
        cells.append(f"<TR><TD{align}>{text}</TD></TR>")
    table = '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1">'
    return f"{table}{''.join(cells)}</TABLE>"


def _html(text: str) -> str:
    """``text`` safe inside an HTML-like DOT label, shown as written.

    Control characters and line breaks become visible escapes (``\\n``); backslashes are
    doubled because Graphviz expands ``\\N``, ``\\G``... even inside HTML-like labels; then
    HTML escaping.
    """
    return html.escape(visible(str(text)).replace("\\", "\\\\"), quote=True)
