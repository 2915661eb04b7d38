"""Accuracy of the kernels of symgrad.prim.bessel_functions, gamma_functions and
orthogonal_polynomials: against mpmath at 40 digits (a few units in the last place of
float64, or absolute where a function oscillates through 0), against PyTorch over wide ranges
in float64 and float32, and the gradients of the differentiable ones against central finite
differences in float64 (and against PyTorch, double backward included)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.prim import bessel_functions as B
from symgrad.prim import gamma_functions as G
from symgrad.prim import orthogonal_polynomials as P

mpmath = pytest.importorskip("mpmath")

EPS = np.finfo(np.float64).eps
SPREAD = np.concatenate(
    [np.linspace(-60, 60, 241), np.logspace(-6, 2.5, 60), -np.logspace(-6, 2.5, 60)]
)


def _exact(fn, *columns) -> np.ndarray:
    with mpmath.workdps(40):
        values = [fn(*(mpmath.mpf(float(v)) for v in row)) for row in zip(*columns)]
    return np.array([float(mpmath.re(v)) for v in values])


# function, mpmath oracle, points, (relative, absolute) tolerance
UNARY = {
    "bessel_j0": (B.bessel_j0, lambda x: mpmath.besselj(0, x), SPREAD, (8 * EPS, 4 * EPS)),
    "bessel_j1": (B.bessel_j1, lambda x: mpmath.besselj(1, x), SPREAD, (8 * EPS, 4 * EPS)),
    "bessel_y0": (
        B.bessel_y0,
        lambda x: mpmath.bessely(0, x),
        SPREAD[SPREAD > 0],
        (8 * EPS, 8 * EPS),
    ),
    "bessel_y1": (
        B.bessel_y1,
        lambda x: mpmath.bessely(1, x),
        SPREAD[SPREAD > 0],
        (8 * EPS, 8 * EPS),
    ),
    "i0": (B.modified_bessel_i0, lambda x: mpmath.besseli(0, x), SPREAD, (16 * EPS, 0)),
    "i1": (B.modified_bessel_i1, lambda x: mpmath.besseli(1, x), SPREAD, (16 * EPS, 0)),
    "i0e": (B.i0e, lambda x: mpmath.besseli(0, x) * mpmath.exp(-abs(x)), SPREAD, (16 * EPS, 0)),
    "i1e": (B.i1e, lambda x: mpmath.besseli(1, x) * mpmath.exp(-abs(x)), SPREAD, (16 * EPS, 0)),
    "k0": (B.modified_bessel_k0, lambda x: mpmath.besselk(0, x), SPREAD[SPREAD > 0], (8 * EPS, 0)),
    "k1": (B.modified_bessel_k1, lambda x: mpmath.besselk(1, x), SPREAD[SPREAD > 0], (8 * EPS, 0)),
    "k0e": (
        B.scaled_modified_bessel_k0,
        lambda x: mpmath.besselk(0, x) * mpmath.exp(x),
        SPREAD[SPREAD > 0],
        (8 * EPS, 0),
    ),
    "k1e": (
        B.scaled_modified_bessel_k1,
        lambda x: mpmath.besselk(1, x) * mpmath.exp(x),
        SPREAD[SPREAD > 0],
        (8 * EPS, 0),
    ),
    "spherical_j0": (
        B.spherical_bessel_j0,
        lambda x: mpmath.sin(x) / x,
        SPREAD[SPREAD != 0],
        (4 * EPS, 0),
    ),
    # the phase of the far left grows like |x|^1.5: its rounding limits the absolute error
    "airy_ai": (B.airy_ai, mpmath.airyai, SPREAD[SPREAD > -40], (1e-13, 1e-14)),
    "erfcx": (
        G.erfcx,
        lambda x: mpmath.exp(x * x) * mpmath.erfc(x),
        SPREAD[SPREAD > -25],
        # exp(x^2) inherits the rounding of x^2 (relative x^2 eps), as PyTorch's formula does
        (700 * EPS, 0),
    ),
}


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_kernels_match_mpmath(name):
    kernel, oracle, points, (rtol, atol) = UNARY[name]
    with np.errstate(all="ignore"):
        expected = _exact(oracle, points)
    actual = kernel(points)
    assert actual.dtype == np.float64
    finite = np.isfinite(expected)
    np.testing.assert_allclose(actual[finite], expected[finite], rtol=rtol, atol=atol)


def test_incomplete_gamma_matches_mpmath():
    a, x = (
        v.ravel() for v in np.meshgrid([0.1, 0.5, 1.0, 2.5, 7.0, 30.0], [0.01, 0.5, 1, 3, 10, 40])
    )
    lower = _exact(lambda a, x: mpmath.gammainc(a, 0, x, regularized=True), a, x)
    upper = _exact(lambda a, x: mpmath.gammainc(a, x, mpmath.inf, regularized=True), a, x)
    np.testing.assert_allclose(G.igamma(a, x), lower, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(G.igammac(a, x), upper, rtol=1e-13, atol=1e-300)


def test_zeta_matches_mpmath():
    s, q = (
        v.ravel() for v in np.meshgrid([1.5, 2.0, 3.0, 4.5, 10.0, 40.0], [0.1, 1.0, 2.5, 10.0, 1e4])
    )
    expected = _exact(mpmath.zeta, s, q)
    # (s = 40 at q = 1e4, about 1e-158, is good to a few 1e-13)
    np.testing.assert_allclose(G.zeta(s, q), expected, rtol=1e-12)
    negative_q = _exact(mpmath.zeta, np.array([2.0, 3.0, 4.0]), np.array([-2.5, -0.5, -7.25]))
    np.testing.assert_allclose(G.zeta([2.0, 3.0, 4.0], [-2.5, -0.5, -7.25]), negative_q, rtol=1e-14)


def test_mvlgamma_matches_mpmath():
    x = np.array([1.6, 2.5, 7.0, 40.0])
    expected = _exact(
        lambda v: 3 * mpmath.log(mpmath.pi) / 2 + sum(mpmath.loggamma(v - j / 2) for j in range(3)),
        x,
    )
    np.testing.assert_allclose(G.mvlgamma(x, 3), expected, rtol=4 * EPS)


POLYNOMIALS = {
    "chebyshev_polynomial_t": lambda x, n: mpmath.chebyt(n, x),
    "chebyshev_polynomial_u": lambda x, n: mpmath.chebyu(n, x),
    "hermite_polynomial_h": lambda x, n: mpmath.hermite(n, x),
    "hermite_polynomial_he": lambda x, n: mpmath.hermite(n, x / mpmath.sqrt(2)) / 2 ** (n / 2),
    "laguerre_polynomial_l": lambda x, n: mpmath.laguerre(n, 0, x),
    "legendre_polynomial_p": lambda x, n: mpmath.legendre(n, x),
    "shifted_chebyshev_polynomial_t": lambda x, n: mpmath.chebyt(n, 2 * x - 1),
    "shifted_chebyshev_polynomial_u": lambda x, n: mpmath.chebyu(n, 2 * x - 1),
}


@pytest.mark.parametrize("name", list(POLYNOMIALS))
def test_polynomials_match_mpmath(name):
    x, n = (v.ravel() for v in np.meshgrid(np.linspace(-1.5, 1.5, 13) + 0.01, [0, 1, 2, 5, 8, 12]))
    expected = _exact(lambda x, n: POLYNOMIALS[name](x, int(n)), x, n)
    actual = getattr(P, name)(x, n)
    scale = np.maximum(np.abs(expected), 1.0)
    assert np.all(np.abs(actual - expected) <= 1e-12 * scale)


# -- against PyTorch over wide ranges -------------------------------------------------------
WIDE = np.concatenate(
    [np.linspace(-100, 100, 2001), np.logspace(-8, 2.8, 300), -np.logspace(-8, 2.8, 300)]
)
WIDE = np.concatenate([WIDE, [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-300, 700.0, 709.0, 710.0]])
# PyTorch's J and Y use approximations good to about 4e-7 (absolute) between 5 and 25, and its
# Ai about 1e-6 near -2.3; both are met much more closely here (see the mpmath tests)
TORCH_TOLERANCES = {
    "bessel_j0": (1e-6, 1e-6),
    "bessel_j1": (1e-6, 1e-6),
    "bessel_y0": (1e-6, 1e-6),
    "bessel_y1": (1e-6, 1e-6),
    "airy_ai": (1e-6, 1e-5),
}


@pytest.mark.torch
@pytest.mark.parametrize(
    "name", sorted(set(symgrad.special.__all__) & set(dir(B)) | {"erfcx", "i0e", "i1e", "i1", "i0"})
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unary_functions_agree_with_pytorch(name, dtype):
    torch = pytest.importorskip("torch")
    x = WIDE.astype(dtype)
    if dtype == "float32":
        x = x[np.abs(x) < 50]  # float32 phases of large arguments differ by their rounding
    with np.errstate(all="ignore"):
        actual = getattr(symgrad.special, name)(symgrad.tensor(x)).numpy()
    expected = getattr(torch.special, name)(torch.from_numpy(x)).numpy()
    assert actual.dtype == expected.dtype
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    np.testing.assert_array_equal(np.isinf(actual), np.isinf(expected))
    finite = np.isfinite(expected)
    eps = np.finfo(dtype).eps
    rtol, atol = TORCH_TOLERANCES.get(name, (32 * eps, 0.0))
    if dtype == "float32":
        rtol, atol = max(rtol, 32 * eps), max(atol, 4 * eps)
    np.testing.assert_allclose(actual[finite], expected[finite], rtol=rtol, atol=atol)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["gammainc", "gammaincc", "zeta"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binary_functions_agree_with_pytorch(name, dtype):
    torch = pytest.importorskip("torch")
    values = np.array(
        [0.0, 1e-3, 0.1, 0.5, 1, 1.5, 2, 3.3, 5, 10, 20, 40, np.inf, -1, np.nan, -2.5]
    )
    a, x = (v.ravel().astype(dtype) for v in np.meshgrid(values, values))
    actual = getattr(symgrad.special, name)(symgrad.tensor(a), symgrad.tensor(x)).numpy()
    expected = getattr(torch.special, name)(torch.from_numpy(a), torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    finite = np.isfinite(expected)
    # PyTorch's incomplete gamma switches to an asymptotic series near a = x >= 20, good to
    # about 1e-9 relative; its float32 Q(0.001, x) to about 1e-4
    rtol = 1e-9 if dtype == "float64" else 2e-4
    # PyTorch's float32 underflows to 0 a little earlier
    atol = 1e-300 if dtype == "float64" else np.finfo(np.float32).tiny
    np.testing.assert_allclose(actual[finite], expected[finite], rtol=rtol, atol=atol)


@pytest.mark.torch
@pytest.mark.parametrize(
    "name", sorted(POLYNOMIALS) + ["chebyshev_polynomial_v", "chebyshev_polynomial_w"]
)
def test_polynomials_agree_with_pytorch(name):
    torch = pytest.importorskip("torch")
    x, n = (
        v.ravel() for v in np.meshgrid(np.linspace(-2, 2, 41), [-2, 0, 1, 2, 3, 6, 7, 9, 20, 50])
    )
    actual = getattr(symgrad.special, name)(symgrad.tensor(x), symgrad.tensor(n)).numpy()
    expected = getattr(torch.special, name)(torch.from_numpy(x), torch.from_numpy(n)).numpy()
    scale = np.maximum(np.abs(expected), 1.0)
    assert np.all(np.abs(actual - expected) <= 1e-11 * scale)


# -- gradients ---------------------------------------------------------------------------------
def _central(fn, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    return (fn(x + h) - fn(x - h)) / (2 * h)


GRADIENTS = {
    "i0": (symgrad.i0, B.modified_bessel_i0),
    "i0e": (symgrad.special.i0e, B.i0e),
    "i1": (symgrad.special.i1, B.modified_bessel_i1),
    "i1e": (symgrad.special.i1e, B.i1e),
    "erfcx": (symgrad.special.erfcx, G.erfcx),
    "polygamma2": (lambda t: symgrad.polygamma(2, t), None),
    "mvlgamma3": (lambda t: symgrad.mvlgamma(t + 2, 3), lambda v: G.mvlgamma(v + 2, 3)),
    "igamma": (
        lambda t: symgrad.igamma(symgrad.tensor(2.5, dtype=symgrad.float64), t.abs()),
        lambda v: G.igamma(2.5, np.abs(v)),
    ),
    "igammac": (
        lambda t: symgrad.igammac(symgrad.tensor(0.7, dtype=symgrad.float64), t.abs()),
        lambda v: G.igammac(0.7, np.abs(v)),
    ),
    "zeta": (lambda t: symgrad.special.zeta(3.0, t.abs()), lambda v: G.zeta(3.0, np.abs(v))),
}


@pytest.mark.parametrize("name", list(GRADIENTS))
def test_gradients_match_finite_differences(name):
    op, kernel = GRADIENTS[name]
    if kernel is None:
        from symgrad.prim.special_functions import polygamma

        kernel = lambda v: polygamma(2, v)  # noqa: E731
    points = np.array([-3.7, -1.2, -0.3, 0.45, 1.0, 2.5, 9.0, 31.0, 45.0])
    x = symgrad.tensor(points, dtype=symgrad.float64, requires_grad=True)
    op(x).sum().backward()
    expected = _central(kernel, points)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-7, atol=1e-9)


@pytest.mark.torch
@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e", "erfcx", "polygamma2", "mvlgamma3"])
def test_second_derivatives_agree_with_pytorch(name):
    torch = pytest.importorskip("torch")
    ops = {
        "i0": lambda T, t: T.i0(t),
        "i0e": lambda T, t: T.special.i0e(t),
        "i1": lambda T, t: T.special.i1(t),
        "i1e": lambda T, t: T.special.i1e(t),
        "erfcx": lambda T, t: T.special.erfcx(t),
        "polygamma2": lambda T, t: T.polygamma(2, t),
        "mvlgamma3": lambda T, t: T.mvlgamma(t + 2, 3),
    }
    points = [-2.5, -0.5, 0.0, 0.75, 3.0] if name[0] in "ie" else [0.3, 0.75, 3.0]
    results = []
    for T in (symgrad, torch):
        x = T.tensor(points, dtype=T.float64, requires_grad=True)
        (g,) = T.autograd.grad(ops[name](T, x).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    # PyTorch's trigamma (in mvlgamma's second derivative) is good to about 5e-10
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-9, atol=1e-14)


def test_no_derivative_in_the_first_argument_raises_at_backward():
    a = symgrad.tensor([1.5, 2.0], requires_grad=True)
    x = symgrad.tensor([1.0, 3.0], requires_grad=True)
    out = symgrad.igamma(a, x)
    assert type(out.grad_fn).__name__ == "IgammaBackward0"
    with pytest.raises(NotImplementedError, match="igamma: input"):
        out.sum().backward()
    with pytest.raises(NotImplementedError, match="'zeta'"):
        symgrad.special.zeta(a + 1, x).sum().backward()


def test_functions_without_derivative_record_nothing():
    x = symgrad.tensor([0.5, 1.5], requires_grad=True)
    for name in ("bessel_j0", "modified_bessel_k1", "airy_ai", "spherical_bessel_j0"):
        out = getattr(symgrad.special, name)(x)
        assert out.grad_fn is None and not out.requires_grad
    out = symgrad.special.legendre_polynomial_p(x, 3)
    assert out.grad_fn is None and not out.requires_grad


def test_closed_form_of_i0_is_sympys_besseli():
    sp = pytest.importorskip("sympy")
    x = symgrad.tensor(1.0, dtype=symgrad.float64, requires_grad=True, name="x")
    (d,) = symgrad.autograd.grad(symgrad.i0(x), x)
    assert d.item() == pytest.approx(float(sp.besseli(1, 1.0)), rel=1e-14)
    from symgrad.ops.special_functions import I0

    assert I0.local_derivatives[0] == sp.besseli(1, I0.inputs[0])
