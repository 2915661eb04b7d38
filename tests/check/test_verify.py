"""verify() and check_function(): the three sources, the report, kinks and edge cases."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.autograd import Function, check_function
from symgrad.check import GradientReport

from .functions import cube, mul_sin, softsign, swapped

ENGINE, FD, CLOSED = "engine", "finite differences", "closed form"


def f64(values, requires_grad=True, name=None):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=requires_grad, name=name)


def pair(report_input, a, b):
    (c,) = [c for c in report_input.comparisons if c.sources == (a, b)]
    return c


# -- the three sources ----------------------------------------------------------------------------


def test_a_correct_gradient_agrees_three_ways_with_the_hand_derived_one():
    x = f64([0.5, -1.0, 2.0], name="x")
    report = symgrad.verify(lambda t: (t**3).sum(), x)
    assert report.ok and bool(report)
    (r,) = report.inputs
    assert set(r.gradients) == {ENGINE, FD, CLOSED}
    expected = 3 * np.array([0.5, -1.0, 2.0]) ** 2
    np.testing.assert_allclose(r.gradients[ENGINE], expected, rtol=1e-15)
    np.testing.assert_allclose(r.gradients[CLOSED], expected, rtol=1e-15)
    np.testing.assert_allclose(r.gradients[FD], expected, rtol=1e-8)
    assert [c.sources for c in r.comparisons] == [(ENGINE, FD), (ENGINE, CLOSED), (FD, CLOSED)]


def test_the_users_tensors_are_left_untouched():
    x = symgrad.tensor([0.5, 2.0])  # float32, no grad: checked anyway, in float64, on a copy
    report = symgrad.verify(lambda t: (t.exp() * t).sum(), x)
    assert report.ok
    assert x.grad is None and not x.requires_grad and x.dtype is symgrad.float32
    # d/dt t e^t = (1 + t) e^t, exact in float64 (not float32's 1e-7)
    v = np.array([0.5, 2.0], dtype=np.float32).astype(np.float64)
    np.testing.assert_allclose(report[0].gradients[ENGINE], (1 + v) * np.exp(v), rtol=1e-14)


@pytest.mark.parametrize("maker", [mul_sin, softsign])
def test_a_backward_wrong_by_one_percent_is_caught_naming_the_input(maker):
    x, y = f64([[0.3, -1.2, 0.8]]), f64([0.4, 1.1, -0.6])
    wrong = maker(symgrad, error=0.01)
    args = (x, y) if maker is mul_sin else (y,)
    for report in (symgrad.verify(wrong.apply, *args), check_function(wrong, *args)):
        assert not report.ok
        *right, bad = report.inputs  # mul_sin's error is in input 1; softsign has one input
        assert all(r.ok for r in right)
        assert bad.index == len(args) - 1
        assert not pair(bad, ENGINE, FD).ok
        if CLOSED in bad.gradients:  # softsign has no symbolic formula
            assert not pair(bad, ENGINE, CLOSED).ok and pair(bad, FD, CLOSED).ok


def test_check_function_catches_an_error_finite_differences_cannot_resolve():
    x = f64([0.5, -1.5, 2.0], name="x")
    report = check_function(cube(symgrad, error=1e-7), x)
    (r,) = report.inputs
    assert not report.ok
    assert pair(r, ENGINE, FD).ok  # 1e-7 is far below what finite differences resolve
    assert pair(r, FD, CLOSED).ok  # the closed form is the true gradient
    exact = pair(r, ENGINE, CLOSED)
    assert not exact.ok
    # the worst element is the largest closed-form value: its relative error 1e-7 is uniform
    closed = r.gradients[CLOSED]
    assert exact.worst == (int(np.argmax(np.abs(closed))),)
    engine_value, closed_value = exact.values
    assert engine_value / closed_value == pytest.approx(1 + 1e-7, rel=1e-12)
    assert exact.max_rel == pytest.approx(1e-7, rel=1e-6)
    text = str(report)
    assert "input 0 (x)  engine vs closed form" in text and "FAIL" in text
    assert f"input 0 (x), worst element [{exact.worst[0]}]: engine {engine_value:.15g}" in text
    assert f"closed form {closed_value:.15g}" in text


def test_check_function_passes_a_correct_backward():
    report = check_function(mul_sin(symgrad), f64([[0.3, -1.2]]), f64([0.4, 1.1]))
    assert report.ok
    assert all(CLOSED in r.gradients for r in report.inputs)


def test_without_symbolic_the_closed_form_column_says_why():
    report = check_function(softsign(symgrad), f64([0.5, -2.0]))
    assert report.ok
    (r,) = report.inputs
    assert CLOSED not in r.gradients
    assert "Softsign has no symbolic(*inputs) formula" in r.missing[CLOSED]
    assert "closed form: missing" in str(report)


def test_check_function_names_both_inputs_of_swapped_gradients():
    report = check_function(swapped(symgrad), f64([0.5, 1.0]), f64([2.0, -1.0]))
    assert [r.ok for r in report.inputs] == [False, False]


def test_check_function_wants_the_class():
    with pytest.raises(TypeError, match="autograd.Function subclass"):
        check_function(cube(symgrad).apply, f64([1.0]))


# -- outputs and inputs ---------------------------------------------------------------------------


def test_non_scalar_outputs_are_projected_and_say_so():
    x = f64([[0.5, 1.0], [1.5, 2.0]])
    report = symgrad.verify(lambda t: t @ t, x)
    assert report.ok
    assert "sum(v * output), v a fixed random vector" in report.note


def test_tuple_outputs():
    x, y = f64([0.5, 1.0]), f64([2.0, -1.0])
    report = symgrad.verify(lambda a, b: (a.sin() * b, (a * b).sum(), a.argmax()), x, y)
    assert report.ok and len(report) == 2
    assert "over the 2 floating outputs" in report.note


def test_integer_tensors_and_numbers_pass_through_as_constants():
    x = f64([0.5, 1.0, 2.0])
    index = symgrad.tensor([2, 0])
    report = symgrad.verify(lambda t, i, s: (t[i] * s).sum(), x, index, 3.0)
    assert report.ok
    assert [r.index for r in report.inputs] == [0]
    np.testing.assert_array_equal(report[0].gradients[ENGINE], [3.0, 0.0, 3.0])


def test_only_integer_inputs_is_a_clear_error():
    with pytest.raises(ValueError, match="at least one floating-point tensor"):
        symgrad.verify(lambda i: i * 2, symgrad.tensor([1, 2]))


def test_non_tensor_outputs_are_a_clear_error():
    with pytest.raises(TypeError, match="output 0 of the function is a float"):
        symgrad.verify(lambda t: 1.0, f64([1.0]))


def test_an_output_cut_from_the_graph_fails_and_says_why():
    report = symgrad.verify(lambda t: (t.detach() ** 2).sum(), f64([1.0, 2.0]))
    assert not report.ok
    assert "does not require grad" in report[0].missing[CLOSED]
    assert not pair(report[0], ENGINE, FD).ok


def test_large_inputs_skip_the_closed_form_unless_asked():
    x = f64(np.linspace(-1, 1, 300))
    report = symgrad.verify(lambda t: (t * t).sum(), x)
    assert report.ok and "skipped: 300 input elements" in report[0].missing[CLOSED]
    assert CLOSED in symgrad.verify(lambda t: (t * t).sum(), x[:4], closed_form=True)[0].gradients
    assert CLOSED not in symgrad.verify(lambda t: t.sum(), x[:4], closed_form=False)[0].gradients


def test_a_given_step():
    report = symgrad.verify(lambda t: t.exp().sum(), f64([1.0]), eps=1e-3)
    # central differences with h = 1e-3: error h**2/6 e = 4.5e-7, relative 1.7e-7
    assert pair(report[0], ENGINE, FD).max_rel == pytest.approx(1e-3**2 / 6, rel=1e-3)


# -- kinks ----------------------------------------------------------------------------------------

KINKS = {
    # name: (function of (module, input), input, kink mask, the engine's gradient, which is
    # PyTorch's subgradient choice)
    "relu at 0": (lambda T, t: t.relu().sum(), [-1.0, 0.0, 2.0], [0, 1, 0], [0.0, 0.0, 1.0]),
    "abs at 0": (lambda T, t: t.abs().sum(), [0.0, -3.0], [1, 0], [0.0, -1.0]),
    "max ties": (lambda T, t: t.max(), [3.0, 1.0, 3.0], [1, 0, 1], [0.5, 0.0, 0.5]),
    "amax ties": (lambda T, t: t.amax(0).sum(), [[2.0], [2.0]], [[1], [1]], [[0.5], [0.5]]),
    "maximum ties": (
        lambda T, t: T.maximum(t, T.tensor([1.0, 0.0], dtype=T.float64)).sum(),
        [1.0, 2.0],
        [1, 0],
        [0.5, 1.0],
    ),
    "clamp at its bound": (
        lambda T, t: t.clamp(-1, 1).sum(),
        [1.0, 0.0, -1.0],
        [1, 0, 1],
        [1.0, 1.0, 1.0],
    ),
    "leaky_relu at 0": (
        lambda T, t: T.nn.functional.leaky_relu(t, 0.1).sum(),
        [0.0, 1.0],
        [1, 0],
        [0.1, 1.0],
    ),
    "kink inside the step": (lambda T, t: t.relu().sum(), [2e-6, 1.0], [1, 0], [1.0, 1.0]),
}


@pytest.mark.parametrize("name", sorted(KINKS))
def test_kinks_are_flagged_not_failed(name):
    fn, values, mask, expected = KINKS[name]
    report = symgrad.verify(lambda t: fn(symgrad, t), f64(values))
    (r,) = report.inputs
    assert report.ok
    np.testing.assert_array_equal(r.kinks, np.array(mask, dtype=bool))
    np.testing.assert_array_equal(r.gradients[ENGINE], expected)
    np.testing.assert_array_equal(r.gradients[CLOSED], expected)
    assert "finite differences straddle a kink: not compared there" in str(report)


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(KINKS))
def test_the_subgradients_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, values, _, expected = KINKS[name]
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    fn(torch, x).backward()
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_a_wrong_gradient_at_a_kink_is_still_caught_by_the_closed_form():
    class BadRelu(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.relu()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x >= 0)  # 1 at 0, where relu's formula (and PyTorch) give 0

        @staticmethod
        def symbolic(x):
            import sympy

            return sympy.Piecewise((0, x <= 0), (x, True))

    report = check_function(BadRelu, f64([0.0, 1.0]))
    (r,) = report.inputs
    assert r.kinks.tolist() == [True, False] and not report.ok
    assert not pair(r, ENGINE, CLOSED).ok and pair(r, ENGINE, FD).ok


def test_high_curvature_is_not_mistaken_for_a_kink():
    # cos(100 x) at 0: slope 0, curvature -1e4: the one-sided slopes differ by 0.06 at h = 6e-6
    report = symgrad.verify(lambda t: (t * 100).cos().sum(), f64([0.0, 0.01]))
    assert report.ok and not report[0].kinks.any()


# -- the report -----------------------------------------------------------------------------------


def test_the_report_table():
    x, w = f64([1.0, 2.0], name="x"), f64([3.0], name="w")
    text = str(symgrad.verify(lambda a, b: (a * b).sum(), x, w))
    lines = text.splitlines()
    assert lines[0] == "Gradient report: all gradients agree (scalar output)"
    assert lines[1].split() == [
        "input",
        "sources",
        "max",
        "abs",
        "err",
        "max",
        "rel",
        "err",
        "worst",
        "at",
        "values",
        "verdict",
    ]
    assert len(lines) == 2 + 3 * 2  # three pairs per input
    assert lines[3].startswith("input 0 (x)  engine vs closed form")
    assert lines[3].split()[-5:] == ["[0]", "3", "vs", "3", "ok"]  # d/dx = w = 3
    assert repr(symgrad.verify(lambda a: a.sum(), x)) == str(symgrad.verify(lambda a: a.sum(), x))


def test_the_report_in_a_notebook():
    x = f64([1.0, 2.0], name="<x>")
    report = symgrad.verify(lambda a: (a * a).sum(), x)
    page = report._repr_html_()
    assert page.count("<tr>") == 1 + 3
    assert "<th>input</th>" in page and "&lt;x&gt;" in page and "<x>" not in page
    assert "all gradients agree" in page


def test_the_report_of_a_failure_in_a_notebook_names_the_worst_element():
    report = check_function(cube(symgrad, error=0.01), f64([1.0, 2.0]))
    page = report._repr_html_()
    assert "GRADIENTS DISAGREE" in page and "worst element" in page


def test_report_access():
    x, y = f64([1.0]), f64([2.0])
    report = symgrad.verify(lambda a, b: a * b, x, y)
    assert isinstance(report, GradientReport) and len(report) == 2
    assert report[1].index == 1 and report[1].shape == (1,)
    assert report[1].worst_values() == {ENGINE: 1.0, FD: pytest.approx(1.0), CLOSED: 1.0}
