"""Closed forms where a formula meets 0: the gradient there is PyTorch's choice (its masked
formulas), in the SymPy result, in ``lambdify`` and in ``compile_gradient``, not the nan of
``0 * log(0)`` or ``0 * 0**-1``. Expected values are PyTorch 2.13's, float64."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad import symbolic

from .support import values_of

BASES = [0.0, 0.0, 2.0, 0.0]
EXPONENTS = [2.0, 0.0, 1.5, 0.5]
# d/dx and d/dy of (x ** y).sum(): 0 where the exponent is 0, 0 where the base is 0 and the
# exponent >= 0
POW_GRADS = (
    [0.0, 0.0, 2.121320343559643, np.inf],
    [0.0, 0.0, 1.9605162869370945, 0.0],
)
SCALAR_BASE_EXPONENTS = [0.0, 1.0, 2.5]
SCALAR_BASE_GRAD = [0.0, 0.0, 0.0]  # of (0.0 ** y).sum()


def _leaf(values, name):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=True, name=name)


def _at(grads, leaves):
    """The SymPy gradients at the leaves' values (inf where SymPy says zoo)."""
    values = values_of(leaves)
    out = []
    for g in grads:
        got = [sp.sympify(e).xreplace(values) for e in g]
        out.append([np.inf if e in (sp.zoo, sp.oo) else float(e) for e in got])
    return out


def _check(y, leaves, expected):
    grads = symbolic.gradient(y, leaves)
    for got, want in zip(_at(grads, leaves), expected):
        np.testing.assert_allclose(got, want, rtol=1e-14)
    arrays = [t.detach().numpy() for t in leaves]
    for got, want in zip(symbolic.lambdify(grads, leaves)(*arrays), expected):
        np.testing.assert_allclose(got, want, rtol=1e-14)
    compiled = symbolic.compile_gradient(y, leaves)(*arrays)
    for got, want in zip(compiled, expected):
        np.testing.assert_allclose(got, want, rtol=1e-14)
    y.backward()
    for t, want in zip(leaves, expected):
        np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-14)


def test_tensor_power_at_a_zero_base_and_a_zero_exponent():
    x, y = _leaf(BASES, "x"), _leaf(EXPONENTS, "y")
    with np.errstate(divide="ignore", invalid="ignore"):
        _check((x**y).sum(), [x, y], POW_GRADS)


def test_power_of_a_zero_number():
    y = _leaf(SCALAR_BASE_EXPONENTS, "y")
    with np.errstate(divide="ignore", invalid="ignore"):
        _check((0.0**y).sum(), [y], [SCALAR_BASE_GRAD])


def test_powers_away_from_zero_keep_their_plain_form():
    x, p = _leaf(2.0, "x"), _leaf(3.0, "p")
    assert symbolic.gradient(2.0**p, p) == 2 ** sp.Symbol("p", real=True) * sp.log(2)
    dx, dp = symbolic.gradient(x**p, [x, p])
    X, P = sp.symbols("x p", real=True)
    assert dx.subs({X: 2, P: 3}) == 12 and dp.subs({X: 2, P: 3}) == 8 * sp.log(2)


@pytest.mark.torch
def test_expected_values_are_pytorchs():
    torch = pytest.importorskip("torch")
    x = torch.tensor(BASES, dtype=torch.float64, requires_grad=True)
    y = torch.tensor(EXPONENTS, dtype=torch.float64, requires_grad=True)
    for got, want in zip(torch.autograd.grad((x**y).sum(), [x, y]), POW_GRADS):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)
    y = torch.tensor(SCALAR_BASE_EXPONENTS, dtype=torch.float64, requires_grad=True)
    (got,) = torch.autograd.grad((0.0**y).sum(), y)
    np.testing.assert_allclose(got.numpy(), SCALAR_BASE_GRAD, rtol=1e-14)


# cosine_similarity(x, y, dim=0) at a zero x, and gaussian_nll_loss(x, 0, var) with a variance
# under eps = 1e-6: both norms and the variance are clamped at eps (the gradient passing
# through the clamp, as PyTorch's clamp_ under no_grad)
COSINE = (0.0, [[44721359.549995795, 89442719.09999159], [0.0, 0.0]])
GAUSSIAN = (62496.872835565366, [[250000.0, 1.0], [-62499750000.0, -0.5]])


def _cosine(lib, x, y):
    return lib.nn.functional.cosine_similarity(x, y, dim=0)


def _gaussian(lib, x, var):
    return lib.nn.functional.gaussian_nll_loss(x, lib.zeros(2, dtype=lib.float64), var)


CLAMPED = {
    "cosine_similarity": (_cosine, [[0.0, 0.0], [1.0, 2.0]], COSINE),
    "gaussian_nll_loss": (_gaussian, [[0.5, 1.0], [1e-8, 0.5]], GAUSSIAN),
}


@pytest.mark.parametrize("name", list(CLAMPED))
def test_values_clamped_under_no_grad_are_clamped_in_closed_forms(name):
    program, data, (value, grads) = CLAMPED[name]
    leaves = [_leaf(d, n) for d, n in zip(data, "xy")]
    out = program(symgrad, *leaves)
    at = values_of(leaves)
    assert float(symbolic.expression(out).xreplace(at)) == pytest.approx(value, rel=1e-12)
    closed = symbolic.gradient(out, leaves)
    for got, want in zip(_at(closed, leaves), grads):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    arrays = [t.detach().numpy() for t in leaves]
    for got, want in zip(symbolic.compile_gradient(out, leaves)(*arrays), grads):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    out.backward()
    assert out.item() == pytest.approx(value, rel=1e-14)
    for t, want in zip(leaves, grads):
        np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-14)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CLAMPED))
def test_clamped_expected_values_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    program, data, (value, grads) = CLAMPED[name]
    leaves = [torch.tensor(d, dtype=torch.float64, requires_grad=True) for d in data]
    out = program(torch, *leaves)
    assert out.item() == pytest.approx(value, rel=1e-14)
    for got, want in zip(torch.autograd.grad(out, leaves), grads):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-14)


# d²/dw² of (w ** p).sum() at w = [0, 1, 2], p = [2, 3, 2]: p (p - 1) w ** (p - 2), 2 at w = 0
POW_HESSIAN = [[2.0, 0.0, 0.0], [0.0, 6.0, 0.0], [0.0, 0.0, 2.0]]


def test_hessian_of_a_power_to_a_tensor_at_a_zero_base():
    w, p = _leaf([0.0, 1.0, 2.0], "w"), _leaf([2.0, 3.0, 2.0], "p")
    H = symbolic.hessian((w**p).sum(), w)
    np.testing.assert_allclose(np.array(H.xreplace(values_of([w, p])), float), POW_HESSIAN)


@pytest.mark.torch
def test_power_hessian_is_pytorchs():
    torch = pytest.importorskip("torch")
    p = torch.tensor([2.0, 3.0, 2.0], dtype=torch.float64)
    w = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    got = torch.autograd.functional.hessian(lambda v: (v**p).sum(), w)
    np.testing.assert_allclose(got.numpy(), POW_HESSIAN)


def test_symengine_compiled_gradients_at_the_same_points():
    pytest.importorskip("symengine")
    x, y = _leaf(BASES, "x"), _leaf(EXPONENTS, "y")
    compiled = symbolic.compile_gradient((x**y).sum(), [x, y], backend="symengine")
    with np.errstate(divide="ignore", invalid="ignore"):
        got = compiled(x.detach().numpy(), y.detach().numpy())
    for g, want in zip(got, POW_GRADS):
        np.testing.assert_allclose(g, want, rtol=1e-14)
    program, data, (_, grads) = CLAMPED["cosine_similarity"]
    leaves = [_leaf(d, n) for d, n in zip(data, "xy")]
    compiled = symbolic.compile_gradient(program(symgrad, *leaves), leaves, backend="symengine")
    for g, want in zip(compiled(*[t.detach().numpy() for t in leaves]), grads):
        np.testing.assert_allclose(g, want, rtol=1e-12)
