"""Derivations that stay readable as graphs grow: adjoints in the intermediates' names, the
result in the inputs' symbols, one heading per derivative, the inputs' values in every
rendering, the operand slots of ``x*x`` told apart, one number precision."""

from __future__ import annotations

import re

import pytest
import sympy as sp

import symgrad
from symgrad import symbolic
from symgrad.prim.special import sigmoid


def _t(values, name, grad=False):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=grad, name=name)


def _logistic_unit():
    w = _t([0.5, -0.3, 0.8], "w", grad=True)
    x = _t([1.0, 2.0, -1.0], "x")
    y = _t(1.0, "y")
    p = (w * x).sum().sigmoid()
    return -(y * p.log() + (1 - y) * (1 - p).log()), w, x, y


def test_logistic_net_has_short_lines_in_intermediate_names():
    loss, w, x, y = _logistic_unit()
    story = symbolic.derivation(loss, w)
    text = str(story)
    steps = text.split("steps, from the output back:")[1].splitlines()
    assert max(len(line) for line in steps) < 260  # the leaves' expansion was > 1,000
    assert "exp(" not in text.split("steps")[1]
    assert "dv11/dv2 = dv11/dv3 · v3*(1 - v3) = " in text  # sigmoid's derivative in its name
    assert "  v3 = sigmoid(v2)" in text and "  v11 = -v10" in text  # every step defined


def test_result_in_the_inputs_symbols_is_the_familiar_one_and_matches_backward():
    loss, w, x, y = _logistic_unit()
    story = symbolic.derivation(loss, w)
    result = story.leaves[0].result
    W, X, Y = symbolic.symbols(w), symbolic.symbols(x), symbolic.symbols(y)
    z = sum(W[i] * X[i] for i in range(3))
    assert all(sp.expand(result[i] - X[i] * (sigmoid(z) - Y)) == 0 for i in range(3))
    loss.backward()
    (line,) = [ln for ln in str(story).splitlines() if ln.startswith("  dv11/dw = ")]
    assert line.startswith("  dv11/dw = [x[0]*(-y + sigmoid(")
    shown = [float(v) for v in re.findall(r"-?\d+\.\d+", line.split("] = ")[-1])]
    assert shown == pytest.approx(w.grad.tolist(), rel=1e-5)


def test_headings_and_values_in_markdown_and_latex():
    loss, w, x, y = _logistic_unit()
    story = symbolic.derivation(loss, [w])
    md = story.markdown()
    assert md.startswith(r"**Forward** at $w = [0.5, -0.3, 0.8],\ x = [1, 2, -1],\ y = 1$")
    assert md.count("**Derivative with respect to $w$**") == 1
    tex = story.latex()
    assert r"&\textbf{Forward}\quad w = [0.5, -0.3, 0.8]" in tex
    assert tex.count(r"&\textbf{Derivative with respect to } w") == 1
    a, b = _t(2.0, "a", grad=True), _t(3.0, "b", grad=True)
    both = symbolic.derivation(a * b + b, [a, b]).latex()
    headings = [
        r"&\textbf{Derivative with respect to } a",
        r"&\textbf{Derivative with respect to } b",
    ]
    assert both.index(headings[0]) < both.index(headings[1])


def test_operand_slots_of_a_square_are_told_apart():
    a = _t(3.0, "a", grad=True)
    story = symbolic.derivation(a * a, a)
    text = str(story)
    assert "dy/da = dy/da (operand 1) + dy/da (operand 2) = a + a" in text
    assert "dy/dy · a [operand 1] + dy/dy · a [operand 2]" in text
    tex = story.latex()
    assert r"\underbrace{a}_{\text{operand 1}}" in tex
    assert r"\right|_{\text{operand 2}}" in tex


def test_one_precision_everywhere_and_configurable():
    v = _t(2.0, "v", grad=True)
    story = symbolic.derivation(symgrad.log(v) * 3.14159265, v)
    numbers = re.findall(r"\d+\.\d+", str(story))
    assert numbers and all(len(n.replace(".", "").lstrip("0")) <= 6 for n in numbers)
    story.digits = 3
    assert "1.57" in str(story) and "1.5708" not in str(story)
    assert "1.57" in story.markdown() and "1.57" in story.latex()
    assert "1.5708" in str(symbolic.derivation(symgrad.log(v) * 3.14159265, v, digits=5))
    with pytest.raises(ValueError, match="digits must be an integer from 1 to 17"):
        symbolic.derivation(v * v, v, digits=0)
