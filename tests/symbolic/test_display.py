"""LaTeX of tensors' closed forms, of results and of assignment-form pairs."""

from __future__ import annotations

import re

import sympy as sp

import symgrad
from symgrad.symbolic import expression, gradient, latex

from .support import leaf


def balanced(text: str) -> bool:
    depth = 0
    for ch in text.replace(r"\{", "").replace(r"\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def double_subscripts(text: str) -> list[str]:
    """Pieces like ``v_{1}_{0,0}``: TeX and MathJax reject a subscript of a subscript."""
    return re.findall(r"_\{[^{}]*\}_\{", text) + re.findall(r"_[A-Za-z0-9]_\{", text)


def test_latex_of_a_tensor_is_its_closed_form():
    w = leaf([1.0, 2.0], "w")
    text = latex((w * w).sum())
    assert text == "w_{0}^{2} + w_{1}^{2}"
    assert text == sp.latex(expression((w * w).sum()))


def test_latex_of_a_leaf_and_of_a_matrix_result():
    w = leaf([[1.0, 2.0], [3.0, 4.0]], "w")
    text = latex(w)
    assert all(f"w_{{{i},{j}}}" in text for i in range(2) for j in range(2))
    g = latex(gradient((symgrad.sin(w)).sum(), w))
    assert balanced(g) and r"\cos{\left(w_{1,0} \right)}" in g
    assert g.startswith(r"\left[\begin{matrix}")


def test_latex_of_scalar_results():
    a, d = leaf(2.0, "a"), leaf(10.0, "d")
    assert latex(gradient(a * symgrad.log(d), d)) == r"\frac{a}{d}"
    assert latex(a * symgrad.exp(d)) == r"a e^{d}"


def test_latex_passes_options_to_sympy():
    a = leaf(2.0, "a")
    assert latex(gradient(a**3, a), mul_symbol="dot") == r"3 \cdot a^{2}"


def test_latex_of_a_cse_pair_is_an_aligned_block():
    x = leaf([0.5, 1.5], "x")
    pair = gradient((symgrad.tanh(x * x)).sum(), x, cse=True)
    text = latex(pair)
    assert balanced(text)
    assert text.startswith(r"\begin{aligned}") and text.endswith(r"\end{aligned}")
    lines = text.split(r" \\")
    assert len(lines) == len(pair[0]) + 1
    assert sum("&=" in line for line in lines) == len(pair[0])
    assert r"\tanh" in text


def test_latex_of_a_cse_pair_of_several_results():
    x, s = leaf([0.5, 1.5], "x"), leaf(2.0, "s")
    pair = gradient((symgrad.tanh(x * s)).sum(), [x, s], cse=True)
    text = latex(pair)
    assert balanced(text)
    assert len(text.split(r" \\")) == len(pair[0]) + 2


def test_latex_has_no_double_subscripts():
    x = leaf([0.5, 1.5])  # automatic name x_N
    w1 = leaf([[1.0, 2.0]], "w1")
    texts = [latex(x * 2), latex(w1 * 2), latex(gradient((symgrad.tanh(x * x)).sum(), x, cse=True))]
    for text in texts:
        assert not double_subscripts(text), text


def test_latex_of_a_tensor_takes_expression_options():
    a = leaf(2.0, "a")
    text = latex(a * a * 3, cse=True)
    assert text.startswith(r"\begin{aligned}") and "a^{2}" in text
    assert latex(symgrad.tensor(0.1, dtype=symgrad.float64) * a) == r"\frac{a}{10}"
    assert latex(symgrad.tensor(0.1, dtype=symgrad.float64) * a, as_float=True) == "0.1 a"


def test_latex_of_a_cse_pair_passes_options_to_sympy():
    a = leaf(2.0, "a")
    text = latex(gradient(a * a * a * 3, a, cse=True), mul_symbol="dot")
    assert r"\cdot" in text


def test_latex_of_a_tensor_passes_printer_options_to_sympy():
    a = leaf(2.0, "a")
    assert latex(a * a * 3, mul_symbol="dot") == r"3 \cdot a^{2}"
