"""Every element-wise primitive in ``REGISTRY``, checked against its own SymPy formula.

The tests iterate over the registry, so declaring a new primitive adds its tests. The oracle is
the primitive's expression itself, differentiated by ``sympy.diff`` and evaluated with mpmath at
40 digits: the declared partials, the forward kernel and every fused ``g * partial`` kernel must
agree with it. Each primitive is sampled in the domain declared with it (``domain=``), which
must give parameter values when it takes parameters (the test says so when they are missing).
"""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symgrad
import symgrad.nn.functional as F
from symgrad.ops.elementwise import REGISTRY

N_POINTS = 48
RTOL, ATOL = 1e-12, 1e-14
# PyTorch's trigamma (digamma's derivative, which symgrad computes as PyTorch does) is a short
# series, good to about 5e-10 relative
SERIES_RTOL = {"digamma": 1e-9}
G = sp.Symbol("g_oracle", real=True)  # the incoming gradient of the oracle VJP


# -- sample domains: declared with each primitive (``prim.domain``) --------------------------------
def sample(prim, seed: int = 0) -> list[tuple[list[np.ndarray], tuple]]:
    """``[(input arrays, params), ...]``, one entry per declared parameter set."""
    dom = prim.domain
    if prim.params and not dom.params:
        pytest.fail(f"primitive {prim.name!r} takes parameters: declare sample values")
    rng = np.random.default_rng(seed)
    names = tuple(str(x) for x in prim.inputs)
    return [(dom.sample(names, rng, (N_POINTS,)), params) for params in dom.params]


# -- the exact oracle -----------------------------------------------------------------------------
def _as_float(v) -> float:
    v = mpmath.mpmathify(v)
    if isinstance(v, mpmath.mpc):
        return float(v.real) if v.imag == 0 else float("nan")
    return float(v)


def _dirac_delta(v, *order):
    # the derivative of a step: 0 away from the step, undefined (excluded) on it
    return mpmath.mpf(0) if v != 0 else mpmath.nan


def exact(expr: sp.Expr, symbols: tuple, columns: list, dps: int = 40) -> np.ndarray:
    """``expr`` evaluated with mpmath at ``dps`` digits, one point per row of ``columns``."""
    f = sp.lambdify(symbols, expr, modules=[{"DiracDelta": _dirac_delta}, "mpmath"])
    n = len(np.asarray(columns[0]).reshape(-1))
    cols = [np.broadcast_to(np.asarray(c, dtype=np.float64), (n,)) for c in columns]
    with mpmath.workdps(dps):
        return np.array([_as_float(f(*(mpmath.mpf(float(v)) for v in row))) for row in zip(*cols)])


def assert_agree(actual, expected, *, rtol=RTOL, atol=ATOL, what="") -> None:
    """Equal wherever both are finite, and finite at (nearly) all sampled points."""
    actual = np.broadcast_to(np.asarray(actual, dtype=np.float64), expected.shape)
    both = np.isfinite(actual) & np.isfinite(expected)
    assert both.mean() >= 0.9, f"{what}: too few finite points; check the sample domain"
    np.testing.assert_allclose(actual[both], expected[both], rtol=rtol, atol=atol, err_msg=what)


PRIMS = sorted(REGISTRY)


def _prim(name: str):
    return REGISTRY[name]


# -- (a) declared partials equal sympy.diff --------------------------------------------------------
def _smooth_points(prim) -> list[dict]:
    """Random points (as exact SymPy substitutions) in the primitive's domain."""
    points = []
    for arrays, params in sample(prim, seed=1):
        for k in range(4):
            subs = {x: sp.Float(float(a[k]), 30) for x, a in zip(prim.inputs, arrays)}
            subs.update({p: sp.Float(v, 30) for p, v in zip(prim.params, params)})
            points.append(subs)
    return points


@pytest.mark.parametrize("name", PRIMS)
def test_declared_partials_equal_sympy_diff(name):
    prim = _prim(name)
    if prim.declared_partials is None:
        return  # derived by sympy.diff itself; the kernels are checked against it below
    assert len(prim.declared_partials) == len(prim.inputs)
    for x, declared in zip(prim.inputs, prim.declared_partials):
        rewritten = sp.sympify(declared).subs(prim.out_symbol, prim.expr)
        derived = sp.diff(prim.expr, x)
        if not prim.exact:
            # a declared subgradient: it must match the derivative wherever that is a function
            for subs in _smooth_points(prim):
                difference = sp.N(rewritten.xreplace(subs) - derived.xreplace(subs), 30)
                assert abs(difference) < 1e-25, subs
            continue
        difference = rewritten - derived
        if sp.count_ops(difference) <= 40:  # larger ones (mish): simplify takes minutes
            difference = sp.simplify(difference)
        if difference != 0:
            for subs in _smooth_points(prim):
                assert abs(sp.N(difference.xreplace(subs), 30)) < 1e-25, (x, subs, difference)


@pytest.mark.parametrize("name", PRIMS)
def test_local_derivatives_use_only_the_inputs(name):
    prim = _prim(name)
    allowed = set(prim.inputs) | set(prim.params)
    assert len(prim.local_derivatives) == len(prim.inputs)
    for d in prim.local_derivatives:
        assert d.free_symbols <= allowed, (name, d)


# -- (b) forward kernel vs the lambdified expression -----------------------------------------------
@pytest.mark.parametrize("name", PRIMS)
def test_forward_kernel_matches_expression(name):
    prim = _prim(name)
    symbols = prim.inputs + prim.params
    for arrays, params in sample(prim):
        expected = exact(prim.expr, symbols, [*arrays, *params])
        with np.errstate(all="ignore"):
            actual = prim.numeric(*arrays, *params)
        assert_agree(actual, expected, what=f"{name}{params} forward")


# -- (c) fused VJP kernels vs g * sympy.diff -------------------------------------------------------
def _partial_oracle(prim, i: int) -> sp.Expr:
    return sp.diff(prim.expr, prim.inputs[i])


def _as_saved(prim, arrays: list, out: np.ndarray) -> tuple[list, np.ndarray | None]:
    """What a node hands the kernels: None for the inputs and output it chose not to save."""
    needs_in, needs_out = prim.needs()
    return [v if need else None for v, need in zip(arrays, needs_in)], out if needs_out else None


@pytest.mark.parametrize("name", PRIMS)
def test_vjp_kernels_match_g_times_partial(name):
    prim = _prim(name)
    rng = np.random.default_rng(2)
    for arrays, params in sample(prim):
        out = exact(prim.expr, prim.inputs + prim.params, [*arrays, *params])
        saved, saved_out = _as_saved(prim, arrays, out)
        g = rng.uniform(-2.0, 2.0, N_POINTS)
        for i in range(len(prim.inputs)):
            expected = exact(
                G * _partial_oracle(prim, i),
                prim.inputs + (G,) + prim.params,
                [*arrays, g, *params],
            )
            with np.errstate(all="ignore"):
                actual = prim.vjp_kernel(i)(*saved, saved_out, g, *params)
            what = f"{name}{params} d/d{prim.inputs[i]}"
            assert_agree(actual, expected, rtol=SERIES_RTOL.get(name, RTOL), what=what)


@pytest.mark.parametrize("name", PRIMS)
def test_differentiable_vjp_runs_the_same_kernel(name):
    """The create_graph VJP primitive computes the same numbers as the fused kernel."""
    prim = _prim(name)
    rng = np.random.default_rng(3)
    for arrays, params in sample(prim)[:1]:
        with np.errstate(all="ignore"):
            out = np.asarray(prim.numeric(*arrays, *params), dtype=np.float64)
        g = rng.uniform(-2.0, 2.0, N_POINTS)
        for i in range(len(prim.inputs)):
            vjp = prim.vjp_primitive(i)
            expected = exact(vjp.expr, vjp.inputs + vjp.params, [*arrays, out, g, *params])
            with np.errstate(all="ignore"):
                actual = vjp.numeric(*arrays, out, g, *params)
            rtol = SERIES_RTOL.get(name, 1e-11)
            assert_agree(actual, expected, rtol=rtol, what=f"{vjp.name}{params}")


# -- (d) stable kernels at the extremes ------------------------------------------------------------
EXTREMES = np.array([-1000.0, -750.0, -100.0, -30.0, -1.0, 0.0, 1.0, 30.0, 100.0, 750.0, 1000.0])
EXTREME_DPS = 1000  # 1 + exp(-1000) needs over 434 digits to differ from 1


def _naive_overflows(prim, arrays: list, params: tuple) -> bool:
    """Whether the plain float formula (lambdified to NumPy) overflows at these points."""
    naive = sp.lambdify(prim.inputs + prim.params, prim.expr, modules="numpy")
    try:
        with np.errstate(over="raise"):
            values = naive(*arrays, *params)
    except FloatingPointError:
        return True
    return not np.all(np.isfinite(values))


STABLE_CASES = [
    ("sigmoid", lambda: [EXTREMES], ()),
    ("softplus", lambda: [EXTREMES], (1.0, 20.0)),
    ("softplus", lambda: [EXTREMES], (1.0, 1e6)),  # no linear branch: logaddexp does the work
    ("softplus", lambda: [EXTREMES], (2.0, 1e6)),
    ("bce_with_logits", lambda: [EXTREMES, np.full(11, 0.3), np.full(11, 2.0)], ()),
    ("bce_with_logits", lambda: [EXTREMES, np.ones(11), np.ones(11)], ()),
    ("bce_with_logits", lambda: [EXTREMES, np.zeros(11), np.full(11, 0.5)], ()),
]


@pytest.mark.parametrize(
    "name, make, params",
    STABLE_CASES,
    ids=[f"{c[0]}{c[2]}-{k}" for k, c in enumerate(STABLE_CASES)],
)
def test_stable_kernels_are_finite_and_exact_at_the_extremes(name, make, params):
    prim = _prim(name)
    arrays = make()
    assert _naive_overflows(prim, arrays, params), "the extremes should defeat the naive formula"
    symbols = prim.inputs + prim.params
    expected = exact(prim.expr, symbols, [*arrays, *params], dps=EXTREME_DPS)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        actual = prim.numeric(*arrays, *params)
    assert np.all(np.isfinite(actual))
    # the loss formula adds terms of size |x| that cancel (PyTorch's kernel does the same), so
    # the error is relative to |x|, not to the result
    scale = 4 * np.finfo(np.float64).eps * (1 + np.abs(arrays[0]))
    assert np.all(np.abs(actual - expected) <= RTOL * np.abs(expected) + scale), (actual, expected)
    g = np.linspace(-1.5, 2.0, len(EXTREMES))
    for i in range(len(prim.inputs)):
        partial = exact(
            G * sp.diff(prim.expr, prim.inputs[i]),
            prim.inputs + (G,) + prim.params,
            [*arrays, g, *params],
            dps=EXTREME_DPS,
        )
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            vjp = prim.vjp_kernel(i)(*arrays, actual, g, *params)
        vjp = np.broadcast_to(vjp, expected.shape)
        assert np.all(np.isfinite(vjp)), (name, i)
        # near saturation the float output is exactly 0 or 1: compare absolutely there
        np.testing.assert_allclose(vjp, partial, rtol=RTOL, atol=1e-15, err_msg=f"{name} d{i}")


# -- the softmax family through the public functions --------------------------------------------
LOGITS = np.array(
    [
        [1000.0, -1000.0, 0.0, 999.0],
        [-1000.0, -1000.0, -999.0, -1000.5],
        [750.0, 740.0, -750.0, 745.0],
        [0.5, -0.25, 1.0, 0.0],
    ]
)
TARGETS = np.array([1, 2, 0, 3])


def _exact_row(row) -> tuple[list, sp.Expr]:
    """The exact log-softmax and logsumexp of one row of float logits, as SymPy numbers."""
    values = [sp.Float(float(v), EXTREME_DPS) for v in row]
    lse = sp.log(sp.Add(*[sp.exp(v) for v in values]))
    return [v - lse for v in values], lse


def _exact_softmax_family() -> dict[str, np.ndarray]:
    log_probs, lses = [], []
    for row in LOGITS:
        logp, lse = _exact_row(row)
        log_probs.append([float(sp.N(v, 30)) for v in logp])
        lses.append(float(sp.N(lse, 30)))
    logp = np.array(log_probs)
    return {"softmax": np.exp(logp), "logsumexp": np.array(lses), "log_softmax": logp}


def _logits() -> symgrad.Tensor:
    return symgrad.tensor(LOGITS, dtype=symgrad.float64, requires_grad=True)


def test_naive_softmax_family_overflows_on_these_logits():
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        np.log(np.sum(np.exp(LOGITS), axis=1))


def test_logsumexp_is_exact_at_the_extremes():
    exact_values = _exact_softmax_family()
    x = _logits()
    out = symgrad.logsumexp(x, dim=1)
    np.testing.assert_allclose(out.detach().numpy(), exact_values["logsumexp"], rtol=RTOL)
    g = np.array([1.0, -2.0, 0.5, 3.0])
    out.backward(symgrad.tensor(g, dtype=symgrad.float64))
    grad = x.grad.numpy()
    assert np.all(np.isfinite(grad))
    np.testing.assert_allclose(grad, g[:, None] * exact_values["softmax"], rtol=1e-12, atol=1e-300)


def test_softmax_is_exact_at_the_extremes():
    exact_values = _exact_softmax_family()
    x = _logits()
    out = symgrad.softmax(x, dim=-1)
    p = exact_values["softmax"]
    np.testing.assert_allclose(out.detach().numpy(), p, rtol=1e-12, atol=1e-300)
    v = np.arange(16.0).reshape(4, 4) / 7 - 1
    (grad,) = symgrad.autograd.grad(out, x, symgrad.tensor(v, dtype=symgrad.float64))
    expected = p * (v - np.sum(v * p, axis=1, keepdims=True))
    assert np.all(np.isfinite(grad.numpy()))
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-10, atol=1e-15)


def test_log_softmax_is_exact_at_the_extremes():
    exact_values = _exact_softmax_family()
    x = _logits()
    out = F.log_softmax(x, dim=1)
    np.testing.assert_allclose(out.detach().numpy(), exact_values["log_softmax"], rtol=RTOL)
    v = np.arange(16.0).reshape(4, 4) / 5 - 1
    (grad,) = symgrad.autograd.grad(out, x, symgrad.tensor(v, dtype=symgrad.float64))
    expected = v - exact_values["softmax"] * v.sum(axis=1, keepdims=True)
    assert np.all(np.isfinite(grad.numpy()))
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_is_exact_at_the_extremes(reduction):
    exact_values = _exact_softmax_family()
    x = _logits()
    out = F.cross_entropy(x, symgrad.tensor(TARGETS), reduction=reduction)
    rows = np.arange(4)
    per_row = -exact_values["log_softmax"][rows, TARGETS]
    expected = {"none": per_row, "sum": per_row.sum(), "mean": per_row.mean()}[reduction]
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=RTOL)
    g = np.ones(out.shape)
    out.backward(symgrad.tensor(g, dtype=symgrad.float64))
    onehot = np.eye(4)[TARGETS]
    scale = {"none": 1.0, "sum": 1.0, "mean": 0.25}[reduction]
    expected_grad = scale * (exact_values["softmax"] - onehot)
    assert np.all(np.isfinite(x.grad.numpy()))
    np.testing.assert_allclose(x.grad.numpy(), expected_grad, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("fn", [symgrad.sigmoid, F.softplus, symgrad.nn.functional.silu])
def test_stable_activations_backpropagate_finite_values_at_the_extremes(fn):
    x = symgrad.tensor(EXTREMES, dtype=symgrad.float64, requires_grad=True)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        y = fn(x)
        y.sum().backward()
    assert np.all(np.isfinite(y.detach().numpy()))
    assert np.all(np.isfinite(x.grad.numpy()))


def test_bce_with_logits_loss_is_finite_and_exact_at_the_extremes():
    x = symgrad.tensor(EXTREMES, dtype=symgrad.float64, requires_grad=True)
    t = symgrad.tensor(np.linspace(0, 1, len(EXTREMES)), dtype=symgrad.float64)
    loss = F.binary_cross_entropy_with_logits(x, t, reduction="sum")
    loss.backward()
    # exact: the sum of log(1 + exp(-x)) + (1 - t) x, and d/dx = sigmoid(x) - t
    xs = [sp.Float(float(v), EXTREME_DPS) for v in EXTREMES]
    ts = [sp.Float(float(v), EXTREME_DPS) for v in t.numpy()]
    total = sp.Add(*[sp.log(1 + sp.exp(-v)) + (1 - w) * v for v, w in zip(xs, ts)])
    np.testing.assert_allclose(loss.item(), float(sp.N(total, 30)), rtol=RTOL)
    sig = np.array([float(sp.N(1 / (1 + sp.exp(-v)), 30)) for v in xs])
    np.testing.assert_allclose(x.grad.numpy(), sig - t.numpy(), rtol=1e-12, atol=1e-15)
