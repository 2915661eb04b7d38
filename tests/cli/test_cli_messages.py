"""What the command line says about mistakes: division by zero by a constant, syntax errors at
their column, ``^`` for a power, and the picture labelled with the output's name."""

from __future__ import annotations

import re

import pytest

from symgrad.cli.formula import FormulaError, parse
from symgrad.viz import picture

from .test_cli import TUTORIAL, assert_one_line_error, run

BOTH = (["grad"], ["explain", "--at", "x=1"])


def both(formula: str) -> list[list[str]]:
    return [[command[0], formula, *command[1:]] for command in BOTH]


# -- division by zero -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "formula, message",
    [
        ("x / 0", 'division by zero in "x / 0" at column 1'),
        ("x/0.0", 'division by zero in "x/0.0" at column 1'),
        ("x/-0", 'division by zero in "x/-0" at column 1'),
        ("x/(1-1)", 'division by zero in "x/(1-1)" at column 1'),
        ("sin(x) + x/(2*0)", 'division by zero in "x/(2*0)" at column 10'),
        ("0 ** -1 + x", 'division by zero in "0 ** -1" at column 1'),  # as before
    ],
)
def test_division_by_a_constant_zero_is_an_error(capsys, formula, message):
    for argv in both(formula):
        err = assert_one_line_error(*run(argv, capsys))
        assert message in err


@pytest.mark.parametrize("formula, kind", [("0**x", "zoo"), ("log(x - x) + x", "nan")])
def test_a_closed_form_undefined_everywhere_is_an_error(capsys, formula, kind):
    # 0**x has the derivative 0**x*log(0); log(x - x) is log(0) whatever x is
    err = assert_one_line_error(*run(["grad", formula], capsys))
    assert "the closed form of df/dx is" in err and f"({kind})" in err


def test_division_by_a_name_is_fine(capsys):
    code, out, err = run(["grad", "x / y", "--wrt", "x"], capsys)
    assert (code, out, err) == (0, "df/dx = 1/y\n", "")


# -- syntax errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "formula, column, message",
    [
        ("x +", 4, 'the formula ends too early, after "+"'),
        ("  x +  ", 6, 'the formula ends too early, after "+"'),
        ("x**", 4, 'the formula ends too early, after "**"'),
        ("sin(", 4, "'(' was never closed"),
        ("x +* 2", 4, 'unexpected "*"'),
        ("   x +* 2", 7, 'unexpected "*"'),
        ("x 2", 3, 'unexpected "2"'),
        ("sin x", 5, 'unexpected "x"'),
        ("x = 2", 3, 'unexpected "="'),
        ("x+(y*(z-)", 9, 'unexpected ")"'),
        ("(x))", 4, "unmatched ')'"),
        ("2x", 2, '"2x" is a number followed by a name: write 2*x for a product'),
        ("3 + 2.5y", 8, '"2.5y" is a number followed by a name: write 2.5*y'),
    ],
)
def test_syntax_errors_point_at_their_column(capsys, formula, column, message):
    with pytest.raises(FormulaError) as caught:
        parse(formula)
    assert str(caught.value).startswith(f"invalid syntax at column {column}: {message}")
    for argv in both(formula):
        err = assert_one_line_error(*run(argv, capsys))
        assert f"at column {column}: {message}" in err


def test_the_column_is_where_the_mistake_is():
    for formula in ("x +* 2", "   x +* 2", "x ! y", "a*b + c $ d", "exp(x) ? 2"):
        with pytest.raises(FormulaError) as caught:
            parse(formula)
        column = int(re.search(r"at column (\d+)", str(caught.value)).group(1))
        assert formula[column - 1] in "*!$?", (formula, column)


def test_a_comment_is_refused_not_dropped(capsys):
    # Python would read "x # + y" as x
    err = assert_one_line_error(*run(["grad", "x # + y"], capsys))
    assert "character '#' at column 3 is not allowed" in err


# -- ^ is not a power -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "formula, column, suggestion",
    [
        ("x^2", 2, '"x**2"'),
        ("x ^ 2", 3, '"x ** 2"'),
        ("(x+1)^(y-1)", 6, '"(x+1)**(y-1)"'),
        ("  2^x", 4, '"2**x"'),
        ("sin(x)^2 + 1", 7, '"sin(x)**2 + 1"'),  # ^ binds after +: sin(x) ^ (2 + 1)
    ],
)
def test_a_caret_suggests_the_power_operator(capsys, formula, column, suggestion):
    for argv in both(formula):
        err = assert_one_line_error(*run(argv, capsys))
        assert f"the operator '^' at column {column} is not a power" in err
        assert f"write ** instead, as in {suggestion}" in err


def test_other_operators_point_at_themselves(capsys):
    err = assert_one_line_error(*run(["grad", "x // y"], capsys))
    assert "the operator '//' in \"x // y\" at column 3 is not allowed" in err


# -- the picture is labelled as the text is -----------------------------------------------------


@pytest.fixture
def drawn(monkeypatch):
    """The DOT text ``--svg`` would render, without needing Graphviz."""
    sources: list[str] = []

    def render(self, path, format=None):
        sources.append(self.source)
        return path

    monkeypatch.setattr(picture.GraphPicture, "render", render)
    return sources


def output_label(source: str) -> str:
    """The name in the output's box (the one drawn with two borders)."""
    line = next(line for line in source.splitlines() if "peripheries=2" in line)
    return re.search(r"<B>(.*?)</B>", line).group(1)


@pytest.mark.parametrize(
    "name, extra", [("f", []), ("e", ["--name", "e"]), ("loss", ["--name", "loss"])]
)
def test_svg_labels_the_output_with_its_name(capsys, drawn, tmp_path, name, extra):
    code, out, err = run([*TUTORIAL, *extra, "--svg", str(tmp_path / "g.svg")], capsys)
    assert (code, err) == (0, "")
    assert out.startswith(f"{name} = a*b + c*log(d)")
    assert output_label(drawn[0]) == name
    assert f"{name} = v1 + v3" in drawn[0]  # the last operation's formula names it too


def test_svg_default_name_follows_the_formula(capsys, drawn, tmp_path):
    code, out, err = run(
        ["explain", "f*g", "--at", "f=2", "g=3", "--svg", str(tmp_path / "g.svg")], capsys
    )
    assert code == 0 and out.startswith("h = f*g")
    assert output_label(drawn[0]) == "h"


@pytest.mark.graphviz
def test_the_rendered_svg_shows_the_name(capsys, tmp_path):
    path = tmp_path / "graph.svg"
    code, _, err = run([*TUTORIAL, "--name", "e", "--svg", str(path)], capsys)
    assert (code, err) == (0, "")
    svg = path.read_text()
    assert ">e</text>" in svg and ">y</text>" not in svg


def test_names_in_formulas_are_identifiers_only(capsys):
    # hostile names cannot reach the command line's output: formulas hold identifiers only
    for formula in ("x[0]", "`x`", "x$y", "x|y"):
        assert_one_line_error(*run(["grad", formula], capsys))
    err = assert_one_line_error(*run(["grad", "x**2", "--name", "}\\input{x}"], capsys))
    assert "a name starts with a letter" in err


# -- Markdown tables keep their columns ----------------------------------------------------------


def test_markdown_tables_keep_their_columns(capsys):
    # |y| is \left|y\right| in LaTeX: its bars would split the table row
    code, out, err = run(
        ["explain", "x*abs(y) + abs(x)", "--at", "x=1", "y=-2", "--format", "markdown"], capsys
    )
    assert (code, err) == (0, "")
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert len(rows) == 9  # two tables: name | value, derivative | closed form | numeric
    assert all(row.count("|") == 3 for row in rows[:5])
    assert all(row.count("|") == 4 for row in rows[5:])
    assert r"\left\vert {y}\right\vert" in out
    assert "<" not in out and ">" not in out


def test_grad_markdown_has_no_bars(capsys):
    code, out, err = run(["grad", "abs(x)*x", "--format", "markdown"], capsys)
    assert (code, err) == (0, "") and "|" not in out
