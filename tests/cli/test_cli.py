"""The ``symgrad`` command line and the whitelisting formula parser behind it.

Most tests run the command in-process through ``main(argv)``; a few run ``python -m symgrad``
in a fresh interpreter, as a user would. Expected numbers and closed forms are worked out by
hand (or with SymPy's own ``diff``), not taken from symgrad's output.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib.util
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import symgrad
from symgrad.cli import _commands, main
from symgrad.cli.formula import MAX_DEPTH, FormulaError, parse
from symgrad.symbolic import SymbolicDepthError, derivation

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ["explain", "a*b + c*log(d)", "--at", "a=2", "b=3", "c=5", "d=10"]


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    """Run the command line in-process: (exit code, stdout, stderr)."""
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code: int, out: str, err: str, expected: int = 2) -> str:
    """The contract for every failure: one line on stderr, nothing on stdout, the exit code."""
    assert code == expected, err
    assert out == ""
    assert err.startswith("symgrad: error: ")
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def section(text: str, title: str) -> list[str]:
    """The indented lines under ``title`` in the text output."""
    lines = text.splitlines()
    start = lines.index(title) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    return [line.strip() for line in lines[start:end]]


# -- explain ---------------------------------------------------------------------------------------


def test_explain_tutorial_graph(capsys):
    code, out, err = run(TUTORIAL, capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "f = a*b + c*log(d)"
    # 2*3 + 5*log(10) = 17.512925...
    assert section(out, "Values:") == ["a = 2", "b = 3", "c = 5", "d = 10", "f = 17.51293"]
    assert section(out, "Gradient, numeric (backward):") == [
        "df/da = 3",
        "df/db = 2",
        "df/dc = 2.302585",
        "df/dd = 0.5",
    ]
    assert section(out, "Gradient, closed form (symbolic):") == [
        "df/da = b",
        "df/db = a",
        "df/dc = log(d)",
        "df/dd = c/d",
    ]
    chain = out.split("Chain rule:\n", 1)[1]
    assert "df/dd = df/dv3 · dv3/dv2 · dv2/dd = 1 · c · 1/d = c/d = 0.5" in chain
    assert "df/da = df/dv1 · dv1/da = 1 · b = b = 3" in chain


def test_explain_where_a_local_formula_has_no_real_value(capsys):
    # d(x**y)/dy = x**y*log(x) is 1 * (-oo) by the formula at (0, 0): the chain rule shows
    # PyTorch's masked derivative, 0 where x = 0 and y >= 0, and the number the engine (and
    # PyTorch) uses there, 0, not an internal error
    code, out, err = run(["explain", "x**y", "--at", "x=0", "y=0"], capsys)
    assert code == 0 and err == ""
    assert section(out, "Gradient, numeric (backward):") == ["df/dx = 0", "df/dy = 0"]
    masked = "Piecewise((0, Eq(x, 0) & (y >= 0)), (f*log(x), True))"
    assert f"df/dy = df/df · {masked} = 1 · 0 = {masked} = 0" in out


def test_explain_tutorial_with_the_tutorials_name(capsys):
    code, out, _ = run([*TUTORIAL, "--name", "e", "--wrt", "d"], capsys)
    assert code == 0
    assert section(out, "Gradient, numeric (backward):") == ["de/dd = 0.5"]
    assert "de/dd = de/dv3 · dv3/dv2 · dv2/dd = 1 · c · 1/d = c/d = 0.5" in out
    assert "de/da" not in out


def test_explain_markdown(capsys):
    code, out, _ = run([*TUTORIAL, "--format", "markdown"], capsys)
    assert code == 0
    assert out.startswith("### $f = a b + c \\log{\\left(d \\right)}$")
    assert "| $f$ | 17.51293 |" in out
    assert "| $\\frac{\\partial f}{\\partial d}$ | $\\frac{c}{d}$ | 0.5 |" in out
    assert "### Chain rule" in out and "**Derivative with respect to $d$**" in out


def test_explain_latex_is_balanced(capsys):
    code, out, _ = run([*TUTORIAL, "--format", "latex"], capsys)
    assert code == 0
    assert out.startswith("\\begin{aligned}\n")
    assert out.count("\\begin{aligned}") == out.count("\\end{aligned}") == 2
    depth = 0
    for ch in out:
        depth += (ch == "{") - (ch == "}")
        assert depth >= 0
    assert depth == 0
    assert "\\frac{\\partial f}{\\partial d} &= \\frac{c}{d} = 0.5" in out


def test_explain_reused_variable_sums_over_paths(capsys):
    # f = x*x + 3*x at x = 2: df/dx = 2x + 3 = 7
    code, out, _ = run(["explain", "x*x + 3*x", "--at", "x=2"], capsys)
    assert code == 0
    assert section(out, "Gradient, numeric (backward):") == ["df/dx = 7"]
    assert section(out, "Gradient, closed form (symbolic):") == ["df/dx = 2*x + 3"]


def test_explain_a_lone_variable(capsys):
    code, out, _ = run(["explain", "x", "--at", "x=3"], capsys)
    assert code == 0
    assert section(out, "Values:") == ["x = 3", "f = 3"]
    assert section(out, "Gradient, closed form (symbolic):") == ["df/dx = 1"]


def test_explain_picks_an_output_name_the_formula_does_not_use(capsys):
    code, out, _ = run(["explain", "f*g", "--at", "f=2", "g=5"], capsys)
    assert code == 0
    assert out.splitlines()[0] == "h = f*g"
    assert section(out, "Gradient, numeric (backward):") == ["dh/df = 5", "dh/dg = 2"]


def test_variables_named_like_intermediates_are_not_confused(capsys):
    # v1 is the symbolic layer's automatic name for the first intermediate: the intermediates
    # must then be called something else, or v1 = exp(v1) would appear
    code, out, _ = run(["explain", "v1*exp(v1)", "--at", "v1=0.5"], capsys)
    assert code == 0
    chain = out.split("Chain rule:\n", 1)[1]
    assert "w1 = exp(v1)" in chain and "v1 = exp(v1)" not in chain
    expected = 1.5 * math.exp(0.5)  # (1 + v1) exp(v1)
    assert section(out, "Gradient, numeric (backward):") == [f"df/dv1 = {expected:.7g}"]


def test_explain_skips_the_derivation_of_a_long_formula(capsys):
    formula = " + ".join(f"x*{k}" for k in range(1, 31))  # 59 operations
    code, out, _ = run(["explain", formula, "--at", "x=1"], capsys)
    assert code == 0
    assert section(out, "Gradient, numeric (backward):") == ["df/dx = 465"]
    assert "not shown: the formula has 59 operations" in out


# -- grad ------------------------------------------------------------------------------------------


def test_grad_closed_form(capsys):
    code, out, err = run(["grad", "x**2*sin(x)", "--wrt", "x"], capsys)
    assert (code, out, err) == (0, "df/dx = x**2*cos(x) + 2*x*sin(x)\n", "")


def test_grad_matches_sympy_diff(capsys):
    code, out, _ = run(["grad", "exp(x*y)/(1 + y**2) - sqrt(x)"], capsys)
    assert code == 0
    x, y = sp.symbols("x y", real=True)
    f = sp.exp(x * y) / (1 + y**2) - sp.sqrt(x)
    assert out.splitlines() == [f"df/dx = {sp.diff(f, x)}", f"df/dy = {sp.diff(f, y)}"]


def test_grad_with_values(capsys):
    code, out, _ = run(["grad", "x**2*sin(x)", "--at", "x=1.5"], capsys)
    assert code == 0
    value = 1.5**2 * math.cos(1.5) + 2 * 1.5 * math.sin(1.5)
    assert out == f"df/dx = x**2*cos(x) + 2*x*sin(x) = {value:.7g}\n"


def test_grad_several_names_in_the_order_asked(capsys):
    code, out, _ = run(["grad", "a*b", "--wrt", "b", "a", "--at", "a=2", "b=3"], capsys)
    assert (code, out) == (0, "df/db = a = 2\ndf/da = b = 3\n")


def test_grad_latex_and_markdown(capsys):
    code, out, _ = run(["grad", "x**2*sin(x)", "--format", "latex"], capsys)
    assert code == 0
    assert "\\frac{\\partial f}{\\partial x} &= x^{2} \\cos{\\left(x \\right)}" in out
    code, out, _ = run(["grad", "x*y", "--wrt", "y", "--format", "markdown"], capsys)
    assert (code, out) == (0, "- $\\frac{\\partial f}{\\partial y} = x$\n")


def test_grad_formula_starting_with_minus(capsys):
    code, out, _ = run(["grad", "-x**2", "--wrt", "x"], capsys)
    assert (code, out) == (0, "df/dx = -2*x\n")


@pytest.mark.parametrize(
    "formula, closed",
    [
        ("2*3*x", "6"),  # constants are folded exactly
        ("x**(1+1)", "2*x"),
        ("x/4", "1/4"),
        ("pow(x, 3)", "3*x**2"),
        ("maximum(x, 0) + +x", None),
    ],
)
def test_grad_constants(capsys, formula, closed):
    code, out, _ = run(["grad", formula, "--wrt", "x"], capsys)
    assert code == 0
    if closed is not None:
        assert out == f"df/dx = {closed}\n"


# -- hostile and malformed formulas --------------------------------------------------------------

HOSTILE = {
    "import": ("__import__('os')", 'unknown function "__import__" at column 1'),
    "import call chain": ("__import__('os').system('ls')", "at column 1"),
    "class escape": ("().__class__", 'attribute access "().__class__" at column 1'),
    "subclasses": ("().__class__.__bases__[0].__subclasses__()", "at column 1"),
    "attribute": ("a.b", 'attribute access "a.b" at column 1'),
    "lambda": ("lambda: 0", "a lambda"),
    "string": ('"x"', "a string"),
    "bytes": ("b'x' * x", "bytes"),
    "subscript": ("a[0]", 'a subscript "a[0]" at column 1'),
    "division by zero": ("1/0", 'division by zero in "1/0" at column 1'),
    "empty": ("", "the formula is empty"),
    "whitespace": ("   ", "the formula is empty"),
    "nested 5000": ("(" * 5000 + "x" + ")" * 5000, "nested too deeply"),
    "calls nested 5000": ("exp(" * 5000 + "x" + ")" * 5000, "nested too deeply"),
    "unary 5000": ("-" * 5000 + "x", "nested too deeply"),
    "sum of 3000": ("+".join(["x"] * 3000), "nested too deeply"),
    "unknown function": ("foo(x)", 'unknown function "foo" at column 1'),
    "variable called": ("x(1)", 'unknown function "x"'),
    "keyword argument": ("exp(x, y=1)", 'the keyword argument "y=1" at column 8'),
    "too many arguments": ("exp(x, y)", "exp() takes 1 argument, got 2"),
    "double star argument": ("exp(**x)", "the ** argument"),
    "starred": ("exp(*x)", 'the starred argument "*x" at column 5'),
    "conditional": ("x if y else z", "a conditional expression"),
    "list": ("[x]", 'a list "[x]" at column 1'),
    "tuple": ("x, y", "a tuple"),
    "dict": ("{x: 1}", "a dict"),
    "comprehension": ("[x for x in y]", "a comprehension"),
    "comparison": ("x == y", 'a comparison "x == y" at column 1'),
    "boolean": ("x and y", "'and'/'or'"),
    "matmul": ("x @ y", "the operator '@'"),
    "floor division": ("x // y", "the operator '//'"),
    "not": ("not x", "the operator 'not'"),
    "overflow power": ("2**1000000", "2**1000000 overflows (inf)"),
    "overflow literal": ("1e400", 'the number "1e400" at column 1 is too large'),
    "huge int literal": ("9" * 400 + "*x", "is too large"),
    "too many digits": ("9" * 5000, "too many digits"),
    "complex": ("1j*x", "a complex number"),
    "boolean constant": ("True*x", "a boolean"),
    "builtins": ("__builtins__", 'the name "__builtins__" at column 1 is not allowed'),
    "private": ("_private", 'the name "_private"'),
    "dunder inside": ("x + __class__", "at column 5"),
    "f-string": ("f'{x}'", "an f-string"),
    "walrus": ("(x:=1)", "an assignment expression (:=)"),
    "very long": ("x+" * 6000 + "x", "too long (12001 characters"),
    "newline": ("x\n+ y", "character '\\n' at column 2"),
    "null byte": ("x\0", "character '\\x00' at column 2"),
    "non-ascii": ("α*x", "character 'α' at column 1"),
    "bare function": ("exp + x", '"exp" at column 1 is a function'),
    "syntax": ("x +", "invalid syntax"),
    "unclosed": ("exp(x", "invalid syntax"),
    "statement": ("import os", "invalid syntax"),
    "constant log": ("log(-1)", "log(-1) is undefined"),
    "constant power": ("(-8)**0.5", "(-8)**0.5 is undefined"),
    "no names": ("3 + 4", "has no names"),
}


@pytest.mark.parametrize("formula, message", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_formulas_are_one_line_errors(capsys, formula, message):
    for argv in (["grad", formula], ["explain", formula, "--at", "x=1"]):
        err = assert_one_line_error(*run(argv, capsys))
        assert message in err


class _Forbidden(AssertionError):
    pass


@contextlib.contextmanager
def nothing_runs(imports: bool = False):
    """eval, exec and non-AST compile fail loudly while inside; so do imports of os-level
    modules, or every import with ``imports=True``. Only around the call under test: pytest
    itself imports while a test runs."""
    real_import, real_compile = builtins.__import__, builtins.compile
    real_eval, real_exec = builtins.eval, builtins.exec
    calls: list = []

    def refuse(*args, **kwargs):
        calls.append(args[0])
        raise _Forbidden(f"called with {args[0]!r}")

    def guarded_import(name, *args, **kwargs):
        if imports or name.partition(".")[0] in {
            "os",
            "subprocess",
            "posix",
            "pty",
            "socket",
            "ctypes",
            "pathlib",
            "io",
        }:
            refuse(name)
        return real_import(name, *args, **kwargs)

    def ast_only(source, filename, mode, flags=0, *args, **kwargs):
        if not flags & ast.PyCF_ONLY_AST:
            refuse(source)
        return real_compile(source, filename, mode, flags, *args, **kwargs)

    builtins.eval, builtins.exec, builtins.compile = refuse, refuse, ast_only
    builtins.__import__ = guarded_import
    try:
        yield calls
    finally:
        builtins.eval, builtins.exec, builtins.compile = real_eval, real_exec, real_compile
        builtins.__import__ = real_import


@pytest.mark.parametrize("formula", [v[0] for v in HOSTILE.values()], ids=list(HOSTILE))
def test_hostile_formulas_execute_nothing(capsys, formula):
    with nothing_runs() as calls:
        code = main(["grad", formula])
    err = assert_one_line_error(code, *capsys.readouterr())
    assert "internal error" not in err
    assert calls == []


@pytest.mark.parametrize(
    "template",
    [
        "__import__('os').system('touch {path}')",
        "open('{path}', 'w')",
        "__import__('pathlib').Path('{path}').touch()",
        "().__class__.__base__.__subclasses__()[0]('{path}')",
        'exec(\'open("{path}", "w")\')',
        "eval('1') + open('{path}', 'w')",
    ],
)
def test_formulas_cannot_create_files(capsys, tmp_path, template):
    path = tmp_path / "created"
    formula = template.format(path=path)
    for argv in (["grad", formula], ["explain", formula, "--at", "x=1"]):
        assert_one_line_error(*run(argv, capsys))
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []


def test_parsing_imports_and_evaluates_nothing():
    """parse() alone touches no import machinery at all, for good or bad input."""
    rejected = []
    with nothing_runs(imports=True) as calls:
        good = parse("a*b + c*log(d)")
        for formula, _message in HOSTILE.values():
            try:
                parse(formula)
            except FormulaError as e:
                rejected.append(str(e))
    assert calls == []
    assert good.names == ("a", "b", "c", "d")
    # all but the constant "3 + 4", which parses (the command line then refuses it)
    assert len(rejected) == len(HOSTILE) - 1


# -- errors in the arguments and at the given values -------------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (["explain", "x*y", "--at", "x=1"], "no value for y: add y=... to --at"),
        (["explain", "x*y", "--at", "x=1", "y=2", "z=3"], "--at z=3: z is not in the formula"),
        (["explain", "x", "--at", "x=1", "x=2"], "--at x=2: x is given twice"),
        (["explain", "x", "--at", "x=abc"], "--at x=abc: abc is not a number"),
        (["explain", "x", "--at", "x="], "--at x=: nothing is not a number"),
        (["explain", "x", "--at", "x=nan"], "the value must be a finite number"),
        (["explain", "x", "--at", "x=1e400"], "the value must be a finite number"),
        (["explain", "x", "--at", "x"], "--at x: expected NAME=VALUE"),
        (["explain", "x", "--at", "__class__=1"], "expected NAME=VALUE"),
        (["explain", "x"], "the following arguments are required: --at"),
        (["explain", "x", "--at", "x=1", "--wrt", "y"], "--wrt y: it is not in the formula"),
        (["explain", "x", "--at", "x=1", "--name", "x"], "--name x: the formula already uses x"),
        (["explain", "x", "--at", "x=1", "--name", "v1"], "names like v1 are kept"),
        (["explain", "x", "--at", "x=1", "--name", "_f"], "--name _f: a name starts with a letter"),
        (["explain", "x", "--at", "x=1", "--format", "html"], "invalid choice: 'html'"),
        (["explain", "x", "--at", "x=1", "--svg", "graph.txt"], "must end in .svg, .png, .pdf"),
        (["explain", "x", "--at", "x=1", "--bogus"], "unrecognized arguments: --bogus"),
        (["grad", "--wrt", "x", "-x"], "a formula starting with '-' goes right after the command"),
        (["frobnicate", "x"], "invalid choice: 'frobnicate'"),
        ([], "the following arguments are required: COMMAND"),
        (
            ["explain", "log(x)", "--at", "x=-1"],
            'log(-1) is undefined (nan) in "log(x)" at column 1',
        ),
        (["explain", "log(x - 1)", "--at", "x=1"], "log(0) is infinite (-inf)"),
        (["explain", "x/(y - 2)", "--at", "x=1", "y=2"], 'division by zero in "x/(y - 2)"'),
        (["grad", "x/(y - 2)", "--at", "x=1", "y=2"], "division by zero"),
        (["explain", "exp(x)", "--at", "x=1000"], "exp(1000) overflows (inf)"),
        (
            ["explain", "y + sqrt(x)", "--at", "x=0", "y=1"],
            "the derivative df/dx is infinite (inf) at y = 1, x = 0",
        ),
    ],
)
def test_argument_and_value_errors(capsys, argv, message):
    err = assert_one_line_error(*run(argv, capsys))
    assert message in err


def test_errors_do_not_echo_control_characters(capsys):
    err = assert_one_line_error(*run(["explain", "x", "--at", "x=\x1b[31mred\r\n"], capsys))
    assert "\x1b" not in err and "\r" not in err
    assert "\\x1b[31mred" in err


def test_errors_do_not_echo_a_whole_long_formula(capsys):
    err = assert_one_line_error(*run(["grad", "+".join(["1"] * 150)], capsys))
    assert "has no names" in err and len(err) < 200


def test_domain_error_mentions_the_values(capsys):
    err = assert_one_line_error(*run(["explain", "log(x)", "--at", "x=-1"], capsys))
    assert err.rstrip().endswith("check the values given with --at")


def test_closed_form_too_deep_is_one_line(capsys, monkeypatch):
    def too_deep(*args, **kwargs):
        raise SymbolicDepthError("deep")

    monkeypatch.setattr(_commands, "gradient", too_deep)
    err = assert_one_line_error(*run(["grad", "sin(x)"], capsys))
    assert "too deeply nested for a closed form; simplify it" in err


def test_unexpected_failure_is_one_line_and_exit_code_1(capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("bug\nsecond line")

    monkeypatch.setattr(_commands, "gradient", broken)
    err = assert_one_line_error(*run(["grad", "x"], capsys), expected=1)
    assert "internal error (KeyError" in err


def test_help_exits_zero(capsys):
    code = main(["--help"])
    out, _ = capsys.readouterr()
    assert code == 0 and "explain" in out and "grad" in out


# -- the formula module directly ---------------------------------------------------------------


def test_parse_names_in_order_of_first_appearance():
    formula = parse("  c*log(d) + a*b*c")
    assert formula.names == ("c", "d", "a", "b")
    assert formula.operations == 5


def test_evaluate_builds_named_float64_leaves():
    out, leaves = parse("a*b + c*log(d)").evaluate({"a": 2, "b": 3, "c": 5, "d": 10})
    assert list(leaves) == ["a", "b", "c", "d"]
    for name, leaf in leaves.items():
        assert leaf.name == name and leaf.is_leaf and leaf.requires_grad
        assert leaf.dtype == symgrad.float64
    assert out.item() == pytest.approx(6 + 5 * math.log(10))
    out.backward()
    assert [leaves[n].grad.item() for n in "abcd"] == pytest.approx([3, 2, math.log(10), 0.5])


def test_evaluate_checks_values_and_domains():
    formula = parse("log(x)")
    with pytest.raises(FormulaError, match="no value for x"):
        formula.evaluate({})
    with pytest.raises(FormulaError, match="y not used"):
        formula.evaluate({"x": 1, "y": 2})
    with pytest.raises(FormulaError, match=r"log\(-1\) is undefined"):
        formula.evaluate({"x": -1})
    out, _ = formula.evaluate({"x": -1}, check=False)
    assert math.isnan(out.item())


def test_depth_limit_is_exact():
    ok = "(" * (MAX_DEPTH - 1) + "x" + ")" * (MAX_DEPTH - 1)
    assert parse(ok).names == ("x",)
    chain = "-" * (MAX_DEPTH - 1) + "x"
    assert parse(chain).names == ("x",)
    with pytest.raises(FormulaError, match="nested too deeply"):
        parse("-" * MAX_DEPTH + "x")


@given(st.text(alphabet="xy19.e+-*/()[]{}'\"_:=,@ <log", max_size=40))
def test_parse_never_fails_any_other_way(text):
    try:
        formula = parse(text)
    except FormulaError as e:
        assert "\n" not in str(e)
    else:
        assert all(n.isidentifier() and not n.startswith("_") for n in formula.names)


@given(st.text(max_size=30))
def test_parse_survives_any_text(text):
    try:
        parse(text)
    except FormulaError:
        pass


# -- a bug elsewhere the command line works around -------------------------------------------------


def test_derivation_automatic_names_avoid_leaf_names():
    v1 = symgrad.tensor(0.5, dtype=symgrad.float64, requires_grad=True, name="v1")
    text = str(derivation(v1 * symgrad.exp(v1), name="f"))
    assert "v1 = exp(v1)" not in text


# -- the picture -------------------------------------------------------------------------------


def _can_draw() -> bool:
    return importlib.util.find_spec("symgrad.viz") is not None


@pytest.mark.skipif(not _can_draw(), reason="symgrad.viz not built yet")
@pytest.mark.graphviz
def test_explain_draws_the_graph(capsys, tmp_path):
    path = tmp_path / "graph.svg"
    code, out, err = run([*TUTORIAL, "--svg", str(path)], capsys)
    assert (code, err) == (0, "")
    assert out.rstrip().endswith(f"Graph drawn to {path}")
    svg = path.read_text()
    assert "<svg" in svg and "LogBackward0" in svg


# -- the README's transcript -------------------------------------------------------------------


def readme_transcript() -> list[tuple[str, list[str]]]:
    """The ``$ symgrad ...`` commands of the README and the lines shown under each."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```\n(\$ symgrad .*?)```", text, flags=re.S).group(1)
    commands: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ symgrad "):
            commands.append((line[len("$ symgrad ") :], []))
        else:
            commands[-1][1].append(line)
    return commands


def test_readme_transcript_is_what_the_commands_print(capsys):
    transcript = readme_transcript()
    assert [c.split()[0] for c, _ in transcript] == ["explain", "grad"]
    for command, shown in transcript:
        code, out, err = run(shlex.split(command), capsys)
        assert (code, err) == (0, "")
        actual = iter(out.splitlines())
        for line in shown:
            if line.strip().startswith("...") or not line.strip():
                continue  # an elision, or spacing
            # every line shown appears, in order (an elided part may be skipped)
            assert any(line == got for got in actual), line


# -- as a user runs it -----------------------------------------------------------------------------


def _python_m(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    # this checkout first, so the tests exercise this tree even when symgrad is not installed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-m", "symgrad", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_python_m_symgrad_explain(capsys):
    result = _python_m(*TUTORIAL)
    assert result.returncode == 0 and result.stderr == ""
    main(TUTORIAL)
    assert result.stdout == capsys.readouterr().out


@pytest.mark.slow
def test_python_m_symgrad_grad():
    result = _python_m("grad", "x**2*sin(x)", "--wrt", "x")
    assert (result.returncode, result.stdout, result.stderr) == (
        0,
        "df/dx = x**2*cos(x) + 2*x*sin(x)\n",
        "",
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "formula",
    ["__import__('os').system('touch {path}')", "(" * 5000 + "open('{path}', 'w')" + ")" * 5000],
)
def test_python_m_symgrad_hostile(tmp_path, formula):
    path = tmp_path / "created"
    result = _python_m("grad", formula.format(path=path))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("symgrad: error: ") and result.stderr.count("\n") == 1
    assert not path.exists()
