"""Pictures of graphs whose tensors have hostile names stay well-formed DOT, with every name
shown as written (long ones cut, with an ellipsis).

The DOT text is checked by a small reader of the subset ``dot()`` writes (statements, quoted
strings, HTML-like labels parsed as XML); where Graphviz is installed, ``dot`` must also read
it without a complaint and the SVG must show the names as written.
"""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET

import pytest

import symgrad
from symgrad._symbol_names import visible
from symgrad.viz import draw
from symgrad.viz.graph import MAX_NAME

HOSTILE = {
    "latex escape": r"}\end{aligned}\input{/etc/passwd}",
    "html": "<B>bold</B> & \"quoted\" 'single'",
    "markup": "a|b$c`d<e>&f\ng",
    "graphviz escapes": r"\N \G \L \n \l",
    "dot syntax": '"]; evil [label="x"]; a -> b; //',
    "entity": "&amp; &#60; &lt",
    "bracket": "a[b",
    "index look-alike": "w[0]",
    "control": "a\x00b\x1bc\u2028d",
    "long": "L" * 10_000,
}
STATEMENT = re.compile(r"  (?P<id>\w+)(?: -> (?P<to>\w+))?(?: \[(?P<attributes>.*)\])?;\Z")


def read_value(text: str, i: int) -> tuple[str, str, int]:
    """The attribute value starting at ``text[i]``: its kind, its text and where it ends."""
    if text[i] == "<":  # an HTML-like label: up to the matching '>'
        depth = 0
        for j in range(i, len(text)):
            depth += {"<": 1, ">": -1}.get(text[j], 0)
            if depth == 0:
                return "html", text[i + 1 : j], j + 1
        raise AssertionError(f"unbalanced HTML label: {text[i : i + 80]!r}")
    if text[i] == '"':
        j = i + 1
        while text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        return "quoted", text[i + 1 : j], j + 1
    match = re.compile(r"[\w.#-]+").match(text, i)
    assert match, f"unexpected value at {text[i : i + 40]!r}"
    return "bare", match.group(), match.end()


def read_attributes(text: str) -> list[tuple[str, str, str]]:
    """``key=value, ...`` as ``[(key, kind, value)]``; fails on anything else."""
    out, i = [], 0
    while i < len(text):
        match = re.compile(r"(\w+)=").match(text, i)
        assert match, f"expected key=value at {text[i : i + 40]!r}"
        kind, value, i = read_value(text, match.end())
        out.append((match.group(1), kind, value))
        if i < len(text):
            assert text.startswith(", ", i), f"expected ', ' at {text[i : i + 40]!r}"
            i += 2
    return out


def read_dot(source: str) -> list[str]:
    """Check the DOT text statement by statement; return the text of every row of every
    label, each label parsed as XML."""
    lines = source.split("\n")
    assert lines[0] == "digraph symgrad {" and lines[-2:] == ["}", ""]
    labels = []
    for line in lines[4:-2]:  # after the graph, node and edge defaults
        match = STATEMENT.match(line)
        assert match, f"not a statement: {line[:120]!r}"
        for key, kind, value in read_attributes(match.group("attributes") or ""):
            if key == "label":
                assert kind == "html"
                label = ET.fromstring(f"<LABEL>{value}</LABEL>")
                labels += ["".join(cell.itertext()) for cell in label.iter("TD")]
    assert len(source.splitlines()) == source.count("\n")  # no other line breaks
    return labels


def shown(name: str) -> str:
    """A name as a box shows it, before Graphviz reads its escapes: cut, control characters
    written as escapes, backslashes doubled."""
    cut = name if len(name) <= MAX_NAME else name[: MAX_NAME - 1] + "…"
    return visible(cut).replace("\\", "\\\\")


def graph(name: str) -> symgrad.Tensor:
    """A leaf, an intermediate and a constant called ``name`` (with suffixes), and grads."""
    x = symgrad.tensor(2.0, dtype=symgrad.float64, requires_grad=True, name=name)
    k = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, name=name + "k")
    u = x * x
    u.name = name + "u"
    y = (symgrad.sin(u) * k).sum()
    y.backward()
    return y


@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_dot_stays_well_formed(name):
    source = draw(graph(name)).source
    rows = read_dot(source)
    assert shown(name) in rows  # the leaf's box
    assert shown(name + "u") in rows and shown(name + "k") in rows
    assert max(len(line) for line in source.splitlines()) < 2_000


@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_formulas_in_the_picture_use_the_names(name):
    source = draw(graph(name)).source
    rows = read_dot(source)
    assert f"{shown(name + 'u')} = {shown(name)}**2" in rows


def test_a_long_name_is_cut_in_the_picture_and_whole_in_closed_forms():
    from symgrad.symbolic import expression

    name = "L" * 10_000
    y = graph(name)
    source = draw(y).source
    assert len(source) < 10_000 and "L" * (MAX_NAME - 1) + "…" in source
    assert name in str(expression(y))


def test_long_names_that_share_a_beginning_stay_different_symbols():
    a = symgrad.tensor(2.0, requires_grad=True, name="x" * 50 + "a")
    b = symgrad.tensor(3.0, requires_grad=True, name="x" * 50 + "b")
    source = draw(a * b).source
    assert "**2" not in source  # cut to the same text, they are still two symbols


@pytest.mark.graphviz
@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_graphviz_reads_it_and_shows_the_names(name):
    source = draw(graph(name)).source
    result = subprocess.run(
        ["dot", "-Tsvg"], input=source.encode(), capture_output=True, timeout=60, check=False
    )
    assert result.returncode == 0 and result.stderr == b"", result.stderr[:500]
    svg = ET.fromstring(result.stdout)
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    expected = shown(name).replace("\\\\", "\\")
    assert expected in texts
