"""Any string may name a tensor: closed forms keep it whole, and every renderer (LaTeX,
Markdown, text) shows it as written without letting it break out of its place.

Each hostile name is compared with a plain name (``x``) on the same computation: the hostile
output must have the same structure (the same TeX commands apart from the escapes, the same
braces depth, alignment tabs, lines, table columns and math delimiters).
"""

from __future__ import annotations

import pickle
import re
import unicodedata

import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

import symgrad
from symgrad._symbol_names import (
    NameSymbol,
    element_parts,
    is_plain,
    latex_name,
    markdown_math,
    visible,
)
from symgrad.symbolic import derivation, expression, gradient, latex, symbols
from symgrad.symbolic.names import base_name, intermediate_names
from symgrad.symbolic.steps import Partial

from .support import leaf

HOSTILE = {
    "latex escape": r"}\end{aligned}\input{/etc/passwd}",
    "markup": "a|b$c`d<e>&f\ng",
    "tex specials": "#%&~_^\\{}",
    "comment": "% rest of the line",
    "dollars": "$$x$$",
    "html": "<script>alert(1)</script>",
    "table row": "| a | b |",
    "newlines": "two\nlines\r\nand\ttab",
    "unicode separators": "a\u2028b\u2029c\x85d",
    "bracket": "a[b",
    "index look-alike": "w[0]",
    "spaces": "learning rate",
    "long": "L" * 10_000,
    "unicode": "θ₁ é",
    "double backslash": "\\\\ \\newline",
}
# the commands the escapes add; a hostile name may add no other
ESCAPES = {"mathrm", "backslash", "hat", "sim", "vert", "grave", "lt", "gt"}
FORBIDDEN = ("\\input", "\\end{aligned}\\", "\\newline", "\\include", "\\write")


def commands(tex: str) -> set[str]:
    """The control words of ``tex`` (``\\frac`` gives ``frac``), escaped symbols left out."""
    return set(re.findall(r"\\([A-Za-z]+)", tex.replace("\\\\", " ")))


def line_breaks(tex: str) -> int:
    """How many ``\\\\`` (TeX's line break) ``tex`` holds, ``\\backslash`` not counted."""
    return re.findall(r"\\(?:[A-Za-z]+|.)", tex, flags=re.S).count("\\\\")


def unescaped(tex: str, ch: str) -> int:
    """How many times ``ch`` occurs in ``tex`` not as part of a control symbol (``\\&``)."""
    stripped = re.sub(r"\\.", "", tex, flags=re.S)
    return stripped.count(ch)


def brace_depths(tex: str) -> list[int]:
    """The depth after each brace (escaped ones left out); it must never go negative."""
    depth, depths = 0, []
    for ch in re.sub(r"\\.", "", tex, flags=re.S):
        if ch in "{}":
            depth += 1 if ch == "{" else -1
            depths.append(depth)
    return depths


def assert_same_tex_structure(tex: str, plain: str) -> None:
    depths = brace_depths(tex)
    assert min(depths, default=0) >= 0 and (not depths or depths[-1] == 0), tex[:300]
    assert commands(tex) <= commands(plain) | ESCAPES, commands(tex) - commands(plain)
    for ch in "&%$#^_`":
        assert unescaped(tex, ch) == unescaped(plain, ch), (ch, tex[:300])
    assert line_breaks(tex) == line_breaks(plain)
    assert tex.count("\n") == plain.count("\n")
    assert not any(text in tex for text in FORBIDDEN)


def computation(name: str, leaf_too: bool = False) -> symgrad.Tensor:
    """``sin(x * x) * u`` with the leaf called ``name`` and the intermediate ``u`` too."""
    x = symgrad.tensor(2.0, dtype=symgrad.float64, requires_grad=True, name=name)
    u = x + 1.0
    u.name = name + "'"
    y = symgrad.sin(x * x) * u
    return (y, x) if leaf_too else y


@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_closed_forms_keep_the_name_whole(name):
    y, x = computation(name, leaf_too=True)
    (symbol,) = expression(y).free_symbols
    assert symbol.name == name and symbol == symbols(x)
    assert gradient(y, x) == sp.diff(expression(y), symbol)


@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_latex_stays_inside_its_formula(name):
    y = computation(name)
    assert_same_tex_structure(latex(y), latex(computation("x")))
    assert_same_tex_structure(latex(y, cse=True), latex(computation("x"), cse=True))
    story, plain = derivation(y), derivation(computation("x"))
    assert_same_tex_structure(story.latex(), plain.latex())
    assert_same_tex_structure(story._repr_latex_(), plain._repr_latex_())


@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_markdown_keeps_its_lines_and_math(name):
    text, plain = derivation(computation(name)).markdown(), derivation(computation("x")).markdown()
    assert text.count("\n") == plain.count("\n")
    for line, plain_line in zip(text.splitlines(), plain.splitlines(), strict=True):
        assert unescaped(line, "$") == unescaped(plain_line, "$"), line[:200]
        for ch in "|<>`":
            assert ch not in line, (ch, line[:200])
    math = re.findall(r"(?<!\\)\$(.+?)(?<!\\)\$", text)
    assert math and all(brace_depths(m)[-1:] in ([], [0]) for m in math)


@pytest.mark.parametrize("name", list(HOSTILE.values()), ids=list(HOSTILE))
def test_text_keeps_its_lines(name):
    story = derivation(computation(name))
    text, plain = str(story), str(derivation(computation("x")))
    assert len(text.splitlines()) == len(plain.splitlines())
    shown = visible(name)
    assert f"d{shown}'" in text or len(name) > 1000  # the derivative by the intermediate u
    assert str(expression(computation(name))).count(shown) == 2


def test_names_that_are_identifiers_print_as_sympy_prints_them():
    for name, tex in (("x", "x"), ("x_1", "x_{1}"), ("alpha", r"\alpha"), ("w2", "w_{2}")):
        assert is_plain(name) and latex_name(name) == tex
        assert type(symbols(leaf(1.0, name))) is sp.Symbol
        assert symbols(leaf(1.0, name)) == sp.Symbol(name, real=True)


def test_other_names_are_escaped_legibly():
    assert latex_name("learning rate") == r"\mathrm{learning\ rate}"
    assert latex_name("a|b") == r"\mathrm{a\vert{}b}"
    assert latex_name(r"}\input{x}") == r"\mathrm{\}\backslash{}input\{x\}}"
    assert latex_name("x-y") == r"\mathrm{x{-}y}"
    assert latex_name("a\nb") == r"\mathrm{a\backslash{}nb}"
    assert isinstance(symbols(leaf(1.0, "a b")), NameSymbol)


def test_element_symbols_of_a_bracketed_name():
    w = leaf([1.0, 2.0], "w[0]")
    first = symbols(w)[0]
    assert str(first) == "w[0][0]" and base_name(first) == "w[0]"
    assert element_parts(first.name) == ("w[0]", ("0",))
    assert latex((w * w).sum()) == r"\mathrm{w[0]}_{0}^{2} + \mathrm{w[0]}_{1}^{2}"
    a_b = leaf([[1.0, 2.0]], "a[b")
    assert sp.latex(symbols(a_b)[0, 1]) == r"\mathrm{a[b}_{0,1}"


def test_a_bracketed_name_is_not_an_element_of_another_tensor():
    # before, "a[b" was read as the tensor "a": two different tensors both named 'a'
    a, a_b = leaf(2.0, "a"), leaf(3.0, "a[b")
    assert gradient(a * a_b, [a, a_b]) == [symbols(a_b), symbols(a)]
    w, w0 = leaf([1.0, 2.0], "w"), leaf(5.0, "w[0]")
    closed = gradient((w * w0).sum(), w0)
    assert closed == symbols(w)[0] + symbols(w)[1]
    assert symbols(w0) != symbols(w)[0]  # same text, different symbols


def test_the_same_bracketed_name_on_two_tensors_is_still_refused():
    a, b = leaf(2.0, "a[b"), leaf(3.0, "a[b")
    with pytest.raises(ValueError, match=r"two different tensors are both named 'a\[b'"):
        expression(a * b)


def test_derivation_labels_keep_the_whole_name():
    v = leaf([1.0, 2.0], "v")
    u = v * 2.0
    u.name = "a[b"
    story = derivation((u * u).sum())
    targets = [step.target for step in story.leaves[0].steps]
    assert "a[b" in targets and "a" not in targets
    assert r"\partial {\mathrm{a[b}}_{0}" in story.latex()


def test_intermediate_names_do_not_take_the_base_of_a_bracketed_name():
    x = leaf(2.0, "y[0]")
    y = x * 3.0
    names = intermediate_names(y)
    assert names[(y.grad_fn, 0)] == "y"  # "y[0]" is one name; it does not take "y"


def test_partial_symbols_keep_their_names_apart():
    # "dy/da/db" could be d(y)/d(a/db) or d(y/da)/d(b): the parts tell them apart
    one, other = Partial("y", "a/db"), Partial("y/da", "b")
    assert str(one) == str(other) and one != other
    assert pickle.loads(pickle.dumps(one)) == one
    assert sp.latex(Partial("e", "w", (0, 1))) == r"\frac{\partial e}{\partial {w}_{0,1}}"


def test_markdown_math_has_no_table_or_html_characters():
    assert markdown_math(r"\left|x\right| < y") == r"\left\vert x\right\vert  \lt  y"
    assert markdown_math(r"\|x\|") == r"\Vert x\Vert "


@given(st.text(min_size=1, max_size=30))
def test_any_name_gives_well_formed_latex(name):
    tex = latex_name(name)
    depths = brace_depths(tex)
    assert min(depths, default=0) >= 0 and (not depths or depths[-1] == 0)
    assert all(ch.isprintable() or unicodedata.category(ch) == "Zs" for ch in tex)
    for ch in "&%$#`|":
        assert unescaped(tex, ch) == 0
    assert is_plain(name) or commands(tex) <= ESCAPES | {"mathrm"}


@given(st.text(min_size=1, max_size=30))
def test_any_name_is_shown_on_one_line_in_text(name):
    shown = str(NameSymbol(name) ** 2)
    assert len(shown.splitlines()) == 1 and shown.endswith("**2")
