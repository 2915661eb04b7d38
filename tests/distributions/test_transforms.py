"""symgrad.distributions.transforms, biject_to / transform_to and TransformedDistribution:
closed forms, round trips, Jacobians against finite differences, and PyTorch."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import (
    Normal,
    TransformedDistribution,
    biject_to,
    constraints,
    transform_to,
    transforms,
)

T = symgrad.tensor
tr = transforms


def _cases(lib):
    """(name, transform, input) triples, built with ``lib`` (symgrad or torch)."""
    t, D = lib.distributions.transforms, lib.distributions
    rs = np.random.RandomState(0)
    x = lib.tensor(rs.randn(2, 3))
    pos = lib.tensor(rs.rand(2, 3) + 0.5)
    sq = lib.tensor(rs.randn(2, 3, 3))
    spd = lib.tensor(rs.randn(3, 3))
    cat = t.CatTransform([t.ExpTransform(), t.identity_transform], dim=1, lengths=[2, 1])
    stack = t.StackTransform([t.ExpTransform(), t.SigmoidTransform(), t.TanhTransform()], dim=1)
    return [
        ("exp", t.ExpTransform(), x),
        ("power", t.PowerTransform(lib.tensor(2.5, dtype=lib.float64)), pos),
        ("sigmoid", t.SigmoidTransform(), x),
        ("softplus", t.SoftplusTransform(), x),
        ("tanh", t.TanhTransform(), x),
        ("affine", t.AffineTransform(1.0, -2.0), x),
        ("affine_t", t.AffineTransform(lib.tensor([1.0, 2.0, 3.0]), pos[0], event_dim=1), x),
        ("softmax", t.SoftmaxTransform(), x),
        ("stick", t.StickBreakingTransform(), x),
        ("lower_chol", t.LowerCholeskyTransform(), sq),
        ("pos_def", t.PositiveDefiniteTransform(), sq),
        ("corr_chol", t.CorrCholeskyTransform(), x),
        ("compose", t.ComposeTransform([t.AffineTransform(0.5, 2.0), t.ExpTransform()]), x),
        ("independent", t.IndependentTransform(t.SigmoidTransform(), 1), x),
        ("reshape", t.ReshapeTransform((3,), (3, 1)), x),
        ("cat", cat, x),
        ("stack", stack, x),
        ("cdf", t.CumulativeDistributionTransform(D.Normal(0.0, 2.0)), x),
        ("abs", t.AbsTransform(), x),
        ("inverse", t.ExpTransform().inv, pos),
        ("spd", t.PositiveDefiniteTransform(), spd.unsqueeze(0)),
    ]


def _run(lib):
    out = {}
    for name, t, x in _cases(lib):
        x = x.clone().requires_grad_(True)
        y = t(x)
        row = {
            "y": y.detach().numpy(),
            "repr": repr(t).replace("torch.", "symgrad."),
            "domain": repr(t.domain),
            "codomain": repr(t.codomain),
            "bijective": t.bijective,
            "fshape": tuple(t.forward_shape(x.shape)),
            "ishape": tuple(t.inverse_shape(y.shape)),
        }
        if t.bijective or name in ("softmax", "pos_def", "lower_chol", "spd", "abs"):
            row["inv"] = t.inv(y.detach()).detach().numpy()
        if t.bijective:
            ladj = t.log_abs_det_jacobian(x, y)
            (ladj.sum() + y.sum()).backward()
            row["ladj"] = ladj.detach().numpy()
            row["grad"] = x.grad.numpy()
            try:
                sign = t.sign
                row["sign"] = sign.tolist() if hasattr(sign, "tolist") else sign
            except NotImplementedError:
                row["sign"] = "not implemented"
        out[name] = row
    return out


def test_transforms_against_torch():
    torch = pytest.importorskip("torch")
    mine, theirs = _run(symgrad), _run(torch)
    for name in theirs:
        for key, want in theirs[name].items():
            got = mine[name][key]
            if isinstance(want, np.ndarray):
                assert np.allclose(got, want, atol=1e-10, equal_nan=True), (name, key)
            else:
                assert got == want, (name, key, got, want)


def _numeric_ladj(t, x, eps=1e-6):
    """log|det J| of an element-wise or vector transform, by central differences."""
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    jac = np.zeros((t(T(x)).numel(), n))
    for i in range(n):
        step = np.zeros(n)
        step[i] = eps
        up = t(T(x + step.reshape(x.shape))).numpy().ravel()
        down = t(T(x - step.reshape(x.shape))).numpy().ravel()
        jac[:, i] = (up - down) / (2 * eps)
    return jac


def test_log_abs_det_jacobian_matches_finite_differences():
    x = np.array([0.3, -1.2, 2.0])
    for t in [
        tr.ExpTransform(),
        tr.SigmoidTransform(),
        tr.SoftplusTransform(),
        tr.TanhTransform(),
        tr.AffineTransform(1.0, -3.0),
    ]:
        jac = _numeric_ladj(t, x)
        ladj = t.log_abs_det_jacobian(T(x), t(T(x))).numpy()
        assert np.allclose(ladj, np.log(np.abs(np.diag(jac))), atol=1e-6)
    # stick-breaking: the Jacobian onto the first K coordinates of the simplex
    t = tr.StickBreakingTransform()
    jac = _numeric_ladj(t, x)[:-1]
    ladj = t.log_abs_det_jacobian(T(x), t(T(x))).item()
    assert ladj == pytest.approx(math.log(abs(np.linalg.det(jac))), abs=1e-6)


def test_round_trips_caching_and_equality():
    x = T([[0.1, -0.5, 2.0]], dtype=symgrad.float64)
    for t in [
        tr.StickBreakingTransform(),
        tr.CorrCholeskyTransform(),
        tr.TanhTransform(),
        tr.ComposeTransform([tr.ExpTransform(), tr.AffineTransform(1.0, 2.0)]),
    ]:
        assert np.allclose(t.inv(t(x)).numpy(), x.numpy())
    cached = tr.ExpTransform(cache_size=1)
    y = cached(x)
    assert cached.inv(y) is x and cached(x) is y
    assert tr.ExpTransform().with_cache(1)._cache_size == 1
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        tr.ExpTransform(cache_size=2)
    assert tr.ExpTransform() == tr.ExpTransform() and tr.ExpTransform() != tr.TanhTransform()
    assert tr.AffineTransform(1.0, 2.0) == tr.AffineTransform(1.0, 2.0)
    assert tr.AffineTransform(1.0, 2.0) != tr.AffineTransform(1.0, 3.0)
    assert tr.ExpTransform().inv == tr.ExpTransform().inv
    e = tr.ExpTransform()
    assert e.inv.inv is e and repr(e.inv) == "_InverseTransform(ExpTransform())"
    assert tr.AffineTransform(0.0, -2.0).sign == -1
    c = tr.ComposeTransform([tr.AffineTransform(0.0, -1.0), tr.ExpTransform()])
    assert c.sign == -1 and c.inv.inv is c and c.bijective
    assert repr(c) == "ComposeTransform(\n    AffineTransform(),\n    ExpTransform()\n)"
    assert tr.identity_transform(x) is x
    with pytest.raises(ValueError, match="different numbers of elements"):
        tr.ReshapeTransform((2,), (3,))
    with pytest.raises(ValueError, match="Please use either .domain.event_dim"):
        tr.ReshapeTransform((4,), (2, 2)).event_dim  # noqa: B018


def test_registries():
    assert biject_to(constraints.real) is tr.identity_transform
    assert repr(biject_to(constraints.unit_interval)) == "SigmoidTransform()"
    assert isinstance(biject_to(constraints.simplex), tr.StickBreakingTransform)
    assert isinstance(transform_to(constraints.simplex), tr.SoftmaxTransform)
    assert isinstance(transform_to(constraints.positive_definite), tr.PositiveDefiniteTransform)
    t = biject_to(constraints.greater_than(2.0))
    assert t(T([0.0])).tolist() == [3.0]
    t = biject_to(constraints.interval(1.0, 3.0))
    assert t(T([0.0])).tolist() == [2.0]
    assert biject_to(constraints.less_than(1.0))(T([0.0])).tolist() == [0.0]
    ind = biject_to(constraints.independent(constraints.positive, 1))
    assert isinstance(ind, tr.IndependentTransform) and ind.event_dim == 1
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        biject_to(constraints.lower_cholesky)
    with pytest.raises(TypeError, match="Expected constraint to be either"):
        biject_to.register(3, lambda c: None)
    for c in [
        constraints.positive,
        constraints.simplex,
        constraints.corr_cholesky,
        constraints.interval(-2.0, 5.0),
    ]:
        y = biject_to(c)(symgrad.randn(3) if c.event_dim == 0 else symgrad.randn(3))
        assert bool(c.check(y).all())


def test_transformed_distribution():
    base = Normal(T([0.0, 1.0]), T([1.0, 2.0]))
    d = TransformedDistribution(base, [tr.ExpTransform()])
    v = T([0.5, 2.0])
    want = [
        -math.log(0.5) - 0.5 * math.log(2 * math.pi) - 0.5 * math.log(0.5) ** 2,
        -math.log(2.0)
        - math.log(2.0)
        - 0.5 * math.log(2 * math.pi)
        - 0.5 * ((math.log(2.0) - 1) / 2) ** 2,
    ]
    assert np.allclose(d.log_prob(v).numpy(), want, atol=1e-6)
    assert d.batch_shape == (2,) and d.event_shape == () and d.has_rsample
    s = d.rsample((5,))
    assert s.shape == (5, 2) and bool((s > 0).all()) and not d.sample().requires_grad
    assert repr(d.support) == "GreaterThan(lower_bound=0.0)"
    with pytest.raises(ValueError, match="to be within the support"):
        d.log_prob(T([-1.0, 1.0]))
    assert np.allclose(d.cdf(T([1.0, 1.0])).numpy(), [0.5, 0.5 * (1 + math.erf(-0.5 / 2**0.5))])
    # a decreasing transform flips the cdf
    flipped = TransformedDistribution(Normal(0.0, 1.0), tr.AffineTransform(0.0, -1.0))
    assert flipped.cdf(T(1.0)).item() == pytest.approx(0.5 * (1 + math.erf(1 / 2**0.5)))
    assert flipped.icdf(flipped.cdf(T(0.3))).item() == pytest.approx(0.3, abs=1e-6)
    e = d.expand((3, 2))
    assert e.batch_shape == (3, 2) and e.base_dist.batch_shape == (3, 2)
    # a vector transform makes the base's batch dim an event dim
    sb = TransformedDistribution(Normal(symgrad.zeros(2), 1.0), tr.StickBreakingTransform())
    assert sb.event_shape == (3,) and sb.batch_shape == () and sb.sample().shape == (3,)
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        TransformedDistribution(base, "exp")


def test_transformed_distribution_against_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        t = lib.distributions.transforms
        loc = lib.tensor([0.2, -0.4, 0.1], dtype=lib.float64, requires_grad=True)
        d = lib.distributions.TransformedDistribution(
            lib.distributions.Normal(loc, 1.5),
            [t.AffineTransform(0.0, 2.0), t.StickBreakingTransform()],
        )
        v = lib.tensor([0.1, 0.2, 0.3, 0.4], dtype=lib.float64)
        lp = d.log_prob(v)
        lp.backward()
        return lp.item(), loc.grad.numpy(), tuple(d.batch_shape), tuple(d.event_shape)

    a, b = run(symgrad), run(torch)
    assert a[0] == pytest.approx(b[0]) and np.allclose(a[1], b[1]) and a[2:] == b[2:]


def _reprs_and_errors(lib):
    D, C = lib.distributions, lib.distributions.constraints
    t = D.transforms
    stick, exp = t.StickBreakingTransform, t.ExpTransform
    cases = [
        lambda: D.biject_to(C.positive),
        lambda: D.transform_to(C.real_vector),
        lambda: D.biject_to(C.cat([C.real, C.positive], 0, [1, 1])),
        lambda: D.biject_to(C.stack([C.real, C.positive], 0)),
        lambda: D.biject_to(C.interval(lib.tensor(0.0), lib.tensor(2.0))),
        lambda: stick().forward_shape(()),
        lambda: t.CorrCholeskyTransform().forward_shape((4,)),
        lambda: t.CorrCholeskyTransform().inverse_shape((2, 3)),
        lambda: t.ReshapeTransform((4,), (2, 2)).forward_shape((3, 5)),
        lambda: t.ComposeTransform([exp(), stick()]).domain,
        lambda: t.ComposeTransform([stick(), exp()]).codomain,
        lambda: t.AffineTransform(lib.tensor([1.0, -2.0]), lib.tensor([1.0, -2.0])).sign,
        lambda: t.CumulativeDistributionTransform(D.Normal(0.0, 1.0)).domain,
        lambda: t.StackTransform([exp()], dim=0)(lib.zeros(2)),
        lambda: t.CatTransform([exp()], dim=3)(lib.zeros(2)),
        lambda: t.CatTransform([exp()], dim=0).inv(lib.zeros(2)),
        lambda: t.CatTransform([exp(), exp()]).log_abs_det_jacobian(lib.zeros(3), lib.zeros(3)),
        lambda: t.IndependentTransform(exp(), 2)(lib.zeros(2)),
        lambda: t.CatTransform([exp(), stick()], dim=-1, lengths=[1, 2]).event_dim,
        lambda: (
            D.TransformedDistribution(
                D.Normal(lib.zeros(3), 1.0), [t.AffineTransform(lib.zeros(2, 1), 1.0)]
            ).batch_shape
        ),
        lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [stick()]),
        lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [3]),
        lambda: D.TransformedDistribution(D.Normal(lib.zeros(2), 1.0), [stick()]).support,
        lambda: D.Gumbel(0.0, 1.0),
        lambda: D.Pareto(1.0, 2.0).expand((2,)).support,
        lambda: D.HalfCauchy(1.0).log_prob(2.0),
        lambda: D.HalfCauchy(1.0, validate_args=False).log_prob(2.0),
        lambda: D.GeneralizedPareto(0.0, 1.0, -0.5).support,
        lambda: D.kl_divergence(
            D.LogNormal(0.0, 1.0),
            D.TransformedDistribution(D.Normal(0.0, 1.0), [t.TanhTransform()]),
        ),
    ]
    out = []
    for case in cases:
        try:
            out.append(repr(case()))
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}")
    return [o.replace("torch.", "symgrad.") for o in out]


def test_reprs_and_errors_match_torch():
    torch = pytest.importorskip("torch")
    # both libraries validating arguments (their default), whatever an earlier test in this
    # process left PyTorch's switch at (after tests/test_new_api_names.py it is off)
    base = torch.distributions.Distribution
    saved = base._validate_args
    base.set_default_validate_args(True)
    try:
        assert _reprs_and_errors(symgrad) == _reprs_and_errors(torch)
    finally:
        base.set_default_validate_args(saved)
