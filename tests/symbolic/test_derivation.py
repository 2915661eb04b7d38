"""The chain-rule derivation: its text, its numbers against backward(), its errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad.symbolic import derivation, symbols
from symgrad.symbolic.derivation import MAX_CLOSED_NODES


def scalar(value: float, name: str, requires_grad: bool = True) -> symgrad.Tensor:
    return symgrad.tensor(value, dtype=symgrad.float64, requires_grad=requires_grad, name=name)


def tutorial_leaves() -> list[symgrad.Tensor]:
    return [scalar(v, n) for v, n in ((2.0, "a"), (3.0, "b"), (5.0, "c"), (10.0, "d"))]


def tutorial_graph() -> tuple:
    a, b, c, d = tutorial_leaves()
    u = a * b
    u.name = "u"
    t = symgrad.log(d)
    t.name = "t"
    v = t * c
    v.name = "v"
    e = u + v
    e.name = "e"
    return e, (a, b, c, d)


TUTORIAL = """\
Forward (a = 2, b = 3, d = 10, c = 5):
  u = a*b
  t = log(d)
  v = c*t
  e = u + v

de/da:
  de/da = de/du · du/da = 1 · b = b = 3
  steps, from the output back:
    de/de = 1
    de/du = de/de · 1 = 1 · 1 = 1
    de/da = de/du · b = 1 · 3 = b = 3

de/db:
  de/db = de/du · du/db = 1 · a = a = 2
  steps, from the output back:
    de/de = 1
    de/du = de/de · 1 = 1 · 1 = 1
    de/db = de/du · a = 1 · 2 = a = 2

de/dd:
  de/dd = de/dv · dv/dt · dt/dd = 1 · c · 1/d = c/d = 0.5
  steps, from the output back:
    de/de = 1
    de/dv = de/de · 1 = 1 · 1 = 1
    de/dt = de/dv · c = 1 · 5 = c = 5
    de/dd = de/dt · 1/d = 5 · 0.1 = c/d = 0.5

de/dc:
  de/dc = de/dv · dv/dc = 1 · t = log(d) = 2.30259
  steps, from the output back:
    de/de = 1
    de/dv = de/de · 1 = 1 · 1 = 1
    de/dc = de/dv · t = 1 · 2.30259 = t = 2.30259"""

UNNAMED = """\
Forward (a = 2, b = 3, d = 10, c = 5):
  v1 = a*b
  v2 = log(d)
  v3 = c*v2
  e = v1 + v3

de/dd:
  de/dd = de/dv3 · dv3/dv2 · dv2/dd = 1 · c · 1/d = c/d = 0.5
  steps, from the output back:
    de/de = 1
    de/dv3 = de/de · 1 = 1 · 1 = 1
    de/dv2 = de/dv3 · c = 1 · 5 = c = 5
    de/dd = de/dv2 · 1/d = 5 · 0.1 = c/d = 0.5"""


def test_tutorial_graph_for_every_leaf():
    e, _ = tutorial_graph()
    assert str(derivation(e)) == TUTORIAL


def test_tutorial_graph_with_unnamed_intermediates():
    a, b, c, d = tutorial_leaves()
    e = a * b + symgrad.log(d) * c
    assert str(derivation(e, d, name="e")) == UNNAMED


def test_a_reused_variable_sums_over_its_paths():
    x = scalar(1.5, "x")
    y = x * x + symgrad.sin(x)
    story = derivation(y, x, name="y")
    path = str(story).split("dy/dx:\n", 1)[1].splitlines()[0]
    # x*x reaches x twice, sin(x) once
    assert path.startswith(
        "  dy/dx = dy/dv1 · dv1/dx (operand 1) + dy/dv1 · dv1/dx (operand 2) + dy/dv2 · dv2/dx = "
    )
    assert "2*x + cos(x)" in path
    y.backward()
    assert story.leaves[0].steps[-1].value == pytest.approx(float(x.grad.numpy()))
    assert story.leaves[0].path_form.value == pytest.approx(2 * 1.5 + np.cos(1.5))


def test_a_tensor_network_matches_backward():
    rng = np.random.default_rng(0)
    inputs = symgrad.tensor(rng.normal(size=(4, 3)), dtype=symgrad.float64)
    targets = symgrad.tensor([1.0, 0.0, 1.0, 0.0], dtype=symgrad.float64)
    w = symgrad.tensor(rng.normal(size=3), dtype=symgrad.float64, requires_grad=True, name="w")
    b = scalar(0.1, "b")
    loss = F.binary_cross_entropy_with_logits(inputs @ w + b, targets)
    story = derivation(loss, b, name="L")
    loss.backward()
    assert np.allclose(story.leaves[0].steps[-1].value, b.grad.numpy())
    assert "dL/db" in str(story)


def test_markdown_and_latex():
    e, (_, _, _, d) = tutorial_graph()
    story = derivation(e, d)
    latex, markdown = story.latex(), story.markdown()
    for text in (latex, markdown):
        assert text.count("{") == text.count("}")
        assert r"\frac{\partial e}{\partial d}" in text
    assert latex.startswith("\\begin{aligned}\n") and latex.endswith("\n\\end{aligned}")
    assert story._repr_latex_() == f"$$\n{latex}\n$$"


def test_errors():
    x = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True, name="x")
    with pytest.raises(ValueError, match="one-element output"):
        derivation(x * 2.0)
    a, b = scalar(1.0, "a"), scalar(2.0, "b")
    with pytest.raises(ValueError, match="not used to compute the output"):
        derivation(a * 3.0, b)
    k = scalar(2.0, "k", requires_grad=False)
    with pytest.raises(ValueError, match="constant"):
        derivation(a * k, k)


def test_negative_factors_are_bracketed():
    x = scalar(3.0, "x")
    story = derivation(symgrad.cos(symgrad.sin(x)), x, name="f")
    text = str(story)
    assert "df/dv1 = df/df · (-sin(v1)) = 1 · (-0.140652) = -sin(v1) = -0.140652" in text
    assert "df/dx = df/dv1 · cos(x) = (-0.140652) · (-0.989992) = " in text
    assert r"\left(-0.989992\right)" in story.latex()
    assert r"\left(- \sin{\left(v_{1} \right)}\right)" in story.latex()


def test_automatic_names_avoid_leaf_names():
    v1 = scalar(0.5, "v1")
    text = str(derivation(v1 * symgrad.exp(v1), name="f"))
    assert "  v2 = exp(v1)\n  f = v1*v2\n" in text
    assert "v1 = exp(v1)" not in text


@pytest.mark.slow
def test_a_long_chain_omits_the_closed_form():
    x = scalar(0.5, "x")
    y = x
    for _ in range(200):
        y = symgrad.sin(y) * 1.01 + 0.1
    story = derivation(y, x, name="y")
    assert all(step.closed_form is None for step in story.leaves[0].steps)
    assert story.leaves[0].path_form.closed_form is None
    last = str(story).splitlines()[-1]
    assert last.startswith("    dy/dx = dy/dv1 · cos(x) = ") and last.count(" = ") == 3
    assert "sin(" not in story.latex().split(r"\frac")[-1].split("=", 2)[-1]
    y.backward()
    assert story.leaves[0].steps[-1].value == pytest.approx(float(x.grad.numpy()), rel=1e-9)


def test_a_short_chain_keeps_the_closed_form():
    x = scalar(0.5, "x")
    y = x
    for _ in range(MAX_CLOSED_NODES // 3):
        y = symgrad.sin(y) * 1.01 + 0.1
    story = derivation(y, x, name="y")
    assert story.leaves[0].steps[-1].closed_form is not None


def test_automatic_leaf_names_follow_the_computation():
    # as expression() names them: in the order the computation first uses the leaves
    a, b, c, d = (symgrad.tensor(v, requires_grad=True) for v in (2.0, 3.0, 5.0, 10.0))
    e = a * b + symgrad.log(d) * c
    derivation(e)
    numbers = [int(str(symbols(t)).removeprefix("x_")) for t in (a, b, d, c)]
    assert numbers == sorted(numbers)


def test_the_output_is_not_called_like_a_leaf():
    x = scalar(2.0, "x")
    y = scalar(3.0, "y")
    story = derivation(x * y + x)
    assert story.output == "v2"
    assert [str(s) for s, _ in story.definitions] == ["v1", "v2"]
    assert "dv2/dy:" in str(story)


def test_the_output_is_not_called_like_an_intermediate():
    x = scalar(2.0, "x")
    u = x * 3.0
    u.name = "y"
    story = derivation(symgrad.sin(u))
    assert [str(s) for s, _ in story.definitions] == ["y", "v1"]
    assert story.output == "v1"


def _steps(story) -> list[str]:
    return [line.strip() for line in str(story).splitlines()]


def test_an_element_picked_from_a_leaf_is_a_tensor_of_its_own():
    # x[1] and x.max() are tensors of the graph: their adjoints are not dy/dx
    x = symgrad.tensor([1.0, 3.0, -1.0], dtype=symgrad.float64, requires_grad=True, name="x")
    lines = _steps(derivation(x[1] * 2, x))
    assert "v1 = x[1]" in lines and "y = 2*v1" in lines
    assert "dy/dv1 = dy/dy · 2 = 1 · 2 = 2" in lines
    assert lines[-1] == "dy/dx = [0, dy/dv1, 0] = [0, 2, 0]"


def test_ties_of_two_maxima_keep_their_adjoints_apart():
    x = symgrad.tensor([1.0, 1.0, -1.0], dtype=symgrad.float64, requires_grad=True, name="x")
    y = x.max() * 2 + x.amax()
    story = derivation(y, x)
    lines = _steps(story)
    assert "v1 = x[0]" in lines and "v3 = x[0]" in lines  # the traced choice, twice
    assert lines[-1] == (
        "dy/dx = [dy/dv3/2, dy/dv3/2, 0] + [dy/dv1/2, dy/dv1/2, 0] = [0.5, 0.5, 0] + [1, 1, 0] "
        "= [3/2, 3/2, 0] = [1.5, 1.5, 0]"
    )
    y.backward()
    assert x.grad.tolist() == [1.5, 1.5, 0.0]  # PyTorch's: each maximum shared by the ties
