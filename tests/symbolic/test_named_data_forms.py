"""Closed forms that must hold as PyTorch computes: conversions, rounding divisions and masks
of named data, and piecewise points of the derivative rules.

A case is a program ``f(T, y)`` of the data ``y``. With symgrad, ``y`` is a named tensor holding
``TRACED``: the closed form ``expression(f(symgrad, y))`` is evaluated at ``TRACED`` and at
``OTHER`` (a formula, not the traced numbers), and the gradient of ``(w * f(symgrad, y)).sum()``
by ``w`` must be the same values. The expected values are plain numbers; with PyTorch installed,
``f(torch, y)`` must give them too.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.symbolic import compile_gradient, expression, gradient, lambdify, symbols

TRACED = [-2.7, -0.5, 0.0, 0.5, 1.5, 2.5, 3.7, 130.4]
OTHER = [2.2, 0.5, -1.0, -0.5, 2.5, -3.5, 0.7, -200.6]

# name: (program, its values at TRACED, at OTHER)
CASES = {
    "long": (
        lambda T, y: y.long(),
        [-2, 0, 0, 0, 1, 2, 3, 130],
        [2, 0, -1, 0, 2, -3, 0, -200],
    ),
    "int_then_double": (
        lambda T, y: y.int().double() / 2,
        [-1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 1.5, 65.0],
        [1.0, 0.0, -0.5, 0.0, 1.0, -1.5, 0.0, -100.0],
    ),
    "int8_wraps": (
        lambda T, y: y.to(T.int8),
        [-2, 0, 0, 0, 1, 2, 3, -126],
        [2, 0, -1, 0, 2, -3, 0, 56],
    ),
    "uint8_wraps": (
        lambda T, y: y.long().to(T.uint8),
        [254, 0, 0, 0, 1, 2, 3, 130],
        [2, 0, 255, 0, 2, 253, 0, 56],
    ),
    "bool": (
        lambda T, y: y.bool(),
        [1, 1, 0, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 1, 1],
    ),
    "squared_long": (
        lambda T, y: y.long() ** 2,
        [4, 0, 0, 0, 1, 4, 9, 16900],
        [4, 0, 1, 0, 4, 9, 0, 40000],
    ),
    # arithmetic in a narrow integer dtype wraps around, bool addition is an "or"
    "int8_product_wraps": (
        lambda T, y: y.to(T.int8) * 2 + 1,
        [-3, 1, 1, 1, 3, 5, 7, 5],
        [5, 1, -1, 1, 5, -5, 1, 113],
    ),
    "int16_product_wraps": (
        lambda T, y: y.to(T.int16) * 300,
        [-600, 0, 0, 0, 300, 600, 900, -26536],
        [600, 0, -300, 0, 600, -900, 0, 5536],
    ),
    "uint8_difference_wraps": (
        lambda T, y: y.abs().to(T.uint8) - 3,
        [255, 253, 253, 253, 254, 255, 0, 127],
        [255, 253, 254, 253, 255, 0, 253, 197],
    ),
    "bool_sum_is_or": (
        lambda T, y: (y.bool() + y.bool()).long() * 5,
        [5, 5, 0, 5, 5, 5, 5, 5],
        [5, 5, 5, 5, 5, 5, 5, 5],
    ),
}


# data changed in place: the closed form follows the change (and what was computed before it
# keeps the values it was computed from)
def _set_first(T, y):
    z = y.clone()
    z[0] = 5.0
    z[1:3] *= y[:2]
    return z


def _scaled_then_clamped(T, y):
    z = y * 1
    z.mul_(2).clamp_(min=-1.0)
    return z


def _into_zeros(T, y):
    z = T.zeros(8, dtype=y.dtype)
    z[1:] = y[:7]
    z.index_add_(0, T.tensor([0, 0]), y[6:])
    return z


def _through_a_view(T, y):
    z = y.clone()
    v = z.view(4, 2)
    v[:, 0] = 7.0
    v[1].neg_()
    return z


def _transposed_copied_filled(T, y):
    z = y.reshape(2, 4).clone()
    z.transpose_(0, 1)
    w = T.empty(8, dtype=y.dtype)
    w.copy_(z.reshape(8))
    w[:4].fill_(2.0)
    w[6:].zero_()
    return w + y


def _computed_before_the_change(T, y):
    z = y * 1
    before = z + 1
    z.mul_(2)
    z.masked_fill_(T.arange(8) > 5, 0.0)
    return before * 10 + z


CASES.update(
    {
        "setitem": (
            _set_first,
            [5.0, 1.35, 0.0, 0.5, 1.5, 2.5, 3.7, 130.4],
            [5.0, 1.1, -0.5, -0.5, 2.5, -3.5, 0.7, -200.6],
        ),
        "mul_clamp_": (
            _scaled_then_clamped,
            [-1.0, -1.0, 0.0, 1.0, 3.0, 5.0, 7.4, 260.8],
            [4.4, 1.0, -1.0, -1.0, 5.0, -1.0, 1.4, -1.0],
        ),
        "into_zeros": (
            _into_zeros,
            [134.1, -2.7, -0.5, 0.0, 0.5, 1.5, 2.5, 3.7],
            [-199.9, 2.2, 0.5, -1.0, -0.5, 2.5, -3.5, 0.7],
        ),
        "view_writes": (
            _through_a_view,
            [7.0, -0.5, -7.0, -0.5, 7.0, 2.5, 7.0, 130.4],
            [7.0, 0.5, -7.0, 0.5, 7.0, -3.5, 7.0, -200.6],
        ),
        "transpose_copy_fill_zero": (
            _transposed_copied_filled,
            [-0.7, 1.5, 2.0, 2.5, 1.5, 6.2, 3.7, 130.4],
            [4.2, 2.5, 1.0, 1.5, 1.5, -2.8, 0.7, -200.6],
        ),
        "computed_before_the_change": (
            _computed_before_the_change,
            [-22.4, 4.0, 10.0, 16.0, 28.0, 40.0, 47.0, 1314.0],
            [36.4, 16.0, -2.0, 4.0, 40.0, -32.0, 17.0, -1996.0],
        ),
    }
)


def _closed_form_values(program, at):
    y = symgrad.tensor(TRACED, dtype=symgrad.float64, name="y")
    w = symgrad.tensor([1.0] * len(TRACED), dtype=symgrad.float64, requires_grad=True, name="w")
    result = program(symgrad, y)
    formula = np.array(expression(result), dtype=object).ravel()
    weighted = w * (result.double() if result.dtype is not symgrad.bool else result)
    grad = np.array(gradient(weighted.sum(), w), dtype=object).ravel()
    values = dict(zip(np.array(symbols(y), dtype=object).ravel(), at))
    return (
        [float(sp.sympify(e).subs(values)) for e in formula],
        [float(sp.sympify(e).subs(values)) for e in grad],
        result.tolist(),
    )


@pytest.mark.parametrize("name", list(CASES))
def test_closed_form_of_data_is_pytorchs_value(name):
    program, at_traced, at_other = CASES[name]
    formula, grad, eager = _closed_form_values(program, TRACED)
    assert eager == pytest.approx(at_traced, rel=1e-14)
    assert formula == pytest.approx(at_traced, rel=1e-14)
    assert grad == pytest.approx(at_traced, rel=1e-14)
    formula, grad, _ = _closed_form_values(program, OTHER)
    assert formula == pytest.approx(at_other, rel=1e-14)
    assert grad == pytest.approx(at_other, rel=1e-14)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    program, at_traced, at_other = CASES[name]
    for data, expected in ((TRACED, at_traced), (OTHER, at_other)):
        values = program(torch, torch.tensor(data, dtype=torch.float64)).tolist()
        assert values == pytest.approx(expected, rel=1e-14)


def test_rounding_division_closed_forms_hold_exact_numbers():
    y = symgrad.tensor([-1.5, 0.5], dtype=symgrad.float64, name="y")
    x = symgrad.tensor([-1.5, 0.5], dtype=symgrad.float64, requires_grad=True, name="x")
    cases = [
        (symgrad.remainder(y, 0.8), ["y[0] + 8/5", "y[1]"]),
        (symgrad.fmod(x * 3, 2.5), ["3*x[0] + 5/2", "3*x[1]"]),
        (symgrad.remainder(2.0, x), ["2*x[0] + 2", "2 - 4*x[1]"]),
    ]
    for result, expected in cases:
        formula = expression(result)
        assert [str(e) for e in formula] == expected
        assert not any(e.atoms(sp.Float) for e in formula)
        evaluated = [float(e.subs({**_at(x), **_at(y)})) for e in formula]
        assert evaluated == pytest.approx(result.tolist(), rel=1e-15)


def _at(t):
    return dict(zip(np.array(symbols(t), dtype=object).ravel(), t.tolist()))


class _Doubled(symgrad.autograd.Function):
    """forward returns one output; symbolic gives two formulas (a mistake to report)."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2

    @staticmethod
    def symbolic(x):
        return x, x * 2


class _TwoOutputs(symgrad.autograd.Function):
    """forward returns two outputs; symbolic gives one formula (a mistake to report)."""

    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g, h):
        return g * 2 + h * 3

    @staticmethod
    def symbolic(x):
        return x * 2


@pytest.mark.parametrize(
    "make", [lambda x: _Doubled.apply(x), lambda x: _TwoOutputs.apply(x)[1]], ids=["2for1", "1for2"]
)
def test_custom_function_formulas_must_match_its_outputs(make):
    x = symgrad.tensor([1.0, -2.0], dtype=symgrad.float64, requires_grad=True, name="x")
    y = make(x).sum()
    y.backward()
    assert x.grad.tolist() in ([2.0, 2.0], [3.0, 3.0])
    for closed_form in (expression, lambda y: gradient(y, x)):
        with pytest.raises(ValueError, match=r"symbolic\(\) returned \d formula\(s\) but forward"):
            closed_form(y)


class _ColumnSums(symgrad.autograd.Function):
    """Not element-wise: ``symbolic`` (applied element by element) can't describe it."""

    @staticmethod
    def forward(ctx, x):
        return x.sum(0)

    @staticmethod
    def backward(ctx, g):
        return g.expand(2, 2)

    @staticmethod
    def symbolic(x):
        return x


def test_custom_function_that_is_not_element_wise_has_no_closed_form():
    x = symgrad.tensor([[1.0, -2.0], [3.0, 4.0]], dtype=symgrad.float64, requires_grad=True)
    x.name = "x"
    y = _ColumnSums.apply(x)[0] * 3
    y.backward()
    assert x.grad.tolist() == [[3.0, 0.0], [3.0, 0.0]]
    for closed_form in (expression, lambda y: gradient(y, x)):
        with pytest.raises(ValueError, match=r"shape \[2, 2\].*forward\(\) returned shape \[2\]"):
            closed_form(y)


def test_compiled_closed_form_with_an_undefined_constant_is_nan_not_a_printer_error():
    # the base 0 is a constant: d/dx 0**x = 0**x * log(0), SymPy's complex infinity, for
    # x < 0; PyTorch's masked derivative is 0 for x >= 0
    x = symgrad.tensor([-1.0, 0.0, 1.0], dtype=symgrad.float64, requires_grad=True, name="x")
    y = (symgrad.zeros(3, dtype=symgrad.float64) ** x).sum()
    assert any(e.has(sp.zoo) for e in gradient(y, x))
    compiled = compile_gradient(y, x)
    for got in (compiled(x.detach().numpy()), lambdify(gradient(y, x), [x])(x.detach().numpy())):
        assert np.isnan(got[0]) and got[1:].tolist() == [0.0, 0.0]
    assert "NAN" in compiled.c_source("g")


def test_compiled_gradient_through_a_narrow_integer_conversion():
    y = symgrad.tensor([-2.7, 130.4], dtype=symgrad.float64, name="y")
    w = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True, name="w")
    loss = (w * y.to(symgrad.int8)).sum() + (w * w).sum()
    loss.backward()
    assert w.grad.tolist() == [0.0, -122.0]
    compiled = compile_gradient(loss, w)
    assert compiled(w.detach(), y.detach()).tolist() == [0.0, -122.0]
    assert compiled(w.detach(), np.array([200.0, -129.9])).tolist() == [-54.0, 131.0]
    assert "%" not in compiled.c_source("g")  # C has no % of doubles


def _entr_run(T):
    x = T.tensor([0.0, 1.0, -1.0, 0.5], dtype=T.float64, requires_grad=True)
    y = T.special.entr(x)
    y.sum().backward()
    return y.tolist(), type(y.grad_fn).__name__, x.grad.tolist()


ENTR_EXPECTED = (
    [0.0, -0.0, -math.inf, 0.5 * math.log(2.0)],
    "SpecialEntrBackward0",
    [math.inf, -1.0, "nan", math.log(2.0) - 1.0],
)


def _nan_as_text(values):
    return [("nan" if v != v else pytest.approx(v, rel=1e-15)) for v in values]


@pytest.mark.parametrize("T", ["symgrad", "torch"])
def test_entr_is_one_node_with_pytorchs_gradient_at_zero_and_below(T):
    module = pytest.importorskip(T)
    values, node, grad = _entr_run(module)
    assert values == _nan_as_text(ENTR_EXPECTED[0][:3]) + [pytest.approx(ENTR_EXPECTED[0][3])]
    assert node == ENTR_EXPECTED[1]
    assert _nan_as_text(grad) == [math.inf, -1.0, "nan", pytest.approx(ENTR_EXPECTED[2][3])]


def test_entr_closed_form_gradient_is_the_engines():
    x = symgrad.tensor([0.0, 1.0, 0.5], dtype=symgrad.float64, requires_grad=True, name="x")
    y = symgrad.special.entr(x).sum()
    y.backward()
    g = gradient(y, x)
    assert [str(e) for e in g] == ["-log(x[0]) - 1", "-log(x[1]) - 1", "-log(x[2]) - 1"]
    at = _at(x)
    assert [float(e.subs(at)) for e in g[1:]] == pytest.approx(x.grad.tolist()[1:], rel=1e-15)
    assert sp.limit(g[0], symbols(x)[0], 0, "+") == sp.oo and x.grad[0].item() == math.inf


@pytest.mark.parametrize("T", ["symgrad", "torch"])
def test_log_ndtr_far_in_the_lower_tail(T):
    module = pytest.importorskip(T)
    x = module.tensor([-40.0, 0.0, 1.0], dtype=module.float64, requires_grad=True)
    y = module.special.log_ndtr(x)
    y.sum().backward()
    assert type(y.grad_fn).__name__ == "SpecialLogNdtrBackward0"
    assert y.tolist() == pytest.approx([-804.6084420137538, -math.log(2.0), -0.1727537790234499])
    assert x.grad.tolist() == pytest.approx(
        [40.02496884721, 0.7978845608028654, 0.2875999709391784]
    )


def test_log_ndtr_closed_form_gradient_is_the_engines():
    x = symgrad.tensor([-3.0, 0.5], dtype=symgrad.float64, requires_grad=True, name="x")
    y = symgrad.special.log_ndtr(x).sum()
    y.backward()
    g, at = gradient(y, x), _at(x)
    assert [float(e.subs(at)) for e in g] == pytest.approx(x.grad.tolist(), rel=1e-12)
    s = symbols(x)[0]
    assert sp.simplify(g[0] - sp.diff(sp.log(sp.erfc(-s / sp.sqrt(2)) / 2), s)) == 0


@pytest.mark.parametrize("T", ["symgrad", "torch"])
def test_ndtri_in_both_tails(T):
    module = pytest.importorskip(T)
    p = module.tensor([1e-300, 1e-5, 0.5, 1 - 1e-10], dtype=module.float64, requires_grad=True)
    x = module.special.ndtri(p)
    x.sum().backward()
    assert type(x.grad_fn).__name__ == "SpecialNdtriBackward0"
    expected = [-37.0470962993612, -4.264890793922825, 0.0, 6.361340889697422]
    assert x.tolist() == pytest.approx(expected, rel=1e-14)
    grads = [2.6973044650428873e298, 22327.743230198652, math.sqrt(2 * math.pi), 1535723574.061949]
    # (exp(x^2 / 2) turns an ulp of x = -37.05 into a few 1e-13 of the gradient)
    assert p.grad.tolist() == pytest.approx(grads, rel=1e-12)


def test_ndtri_closed_form_gradient_is_the_engines():
    p = symgrad.tensor([0.01, 0.7], dtype=symgrad.float64, requires_grad=True, name="p")
    y = symgrad.special.ndtri(p).sum()
    y.backward()
    g = gradient(y, p)
    assert [float(e.subs(_at(p))) for e in g] == pytest.approx(p.grad.tolist(), rel=1e-12)
