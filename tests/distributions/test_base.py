"""The Distribution base: validation of parameters and samples (PyTorch's messages), expand,
support, shapes, utils; and the six original families on the new base, against PyTorch."""

import math
import warnings

import numpy as np
import pytest

import symgrad
from symgrad.distributions import (
    Bernoulli,
    Categorical,
    Distribution,
    Independent,
    MultivariateNormal,
    Normal,
    Uniform,
    constraints,
)
from symgrad.distributions import utils as U

T = symgrad.tensor


def test_parameter_validation_messages():
    with pytest.raises(ValueError) as e:
        Normal(0.0, -1.0)
    assert str(e.value) == (
        "Expected parameter scale (Tensor of shape ()) of distribution Normal(loc: 0.0, "
        "scale: -1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), but found "
        "invalid values:\n-1.0"
    )
    with pytest.raises(ValueError, match=r"constraint LessThan\(upper_bound=0.0\)"):
        Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="to satisfy the constraint Interval"):
        Bernoulli(probs=T([1.5]))
    with pytest.raises(ValueError, match="to satisfy the constraint Simplex"):
        Categorical(probs=T([-0.5, 1.0]))
    with pytest.raises(ValueError, match="constraint PositiveDefinite"):
        MultivariateNormal(symgrad.zeros(2), T([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="constraint LowerCholesky"):
        MultivariateNormal(symgrad.zeros(2), scale_tril=T([[1.0, 1.0], [0.0, 1.0]]))
    # validation off: no error
    assert Normal(0.0, -1.0, validate_args=False).scale.item() == -1.0


def test_sample_validation_messages():
    with pytest.raises(ValueError) as e:
        Uniform(0.0, 1.0).log_prob(T(2.0))
    assert str(e.value) == (
        "Expected value argument (Tensor of shape ()) to be within the support "
        "(Interval(lower_bound=0.0, upper_bound=1.0)) of the distribution Uniform(low: 0.0, "
        "high: 1.0), but found invalid values:\n2.0"
    )
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        Normal(0.0, 1.0).log_prob(1.0)
    with pytest.raises(ValueError, match=r"not broadcastable with batch_shape\+event_shape"):
        Normal(symgrad.zeros(2), 1.0).log_prob(symgrad.zeros(3))
    with pytest.raises(ValueError, match="right-most size of value must match event_shape"):
        MultivariateNormal(symgrad.zeros(2), symgrad.eye(2)).log_prob(symgrad.zeros(3))
    with pytest.raises(ValueError, match=r"IntegerInterval\(lower_bound=0, upper_bound=1\)"):
        Categorical(probs=T([0.5, 0.5])).log_prob(T(2))
    with pytest.raises(ValueError, match=r"support \(Boolean\(\)\)"):
        Bernoulli(T([0.5])).log_prob(T([0.3]))
    with pytest.raises(ValueError, match=r"IndependentConstraint|Real"):
        Independent(Normal(symgrad.zeros(2), 1.0), 1).log_prob(T([1.0, math.nan]))
    with pytest.raises(ValueError, match="support"):
        Normal(0.0, 1.0).cdf(T(math.nan))
    # broadcasting over a larger sample shape is fine
    assert Normal(symgrad.zeros(2), 1.0).log_prob(symgrad.zeros(4, 1)).shape == (4, 2)
    d = Uniform(0.0, 1.0, validate_args=False)
    assert d.log_prob(T(2.0)).item() == -math.inf


def test_default_validation_switch():
    try:
        Distribution.set_default_validate_args(False)
        assert Normal(0.0, -1.0).scale.item() == -1.0
    finally:
        Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        Distribution.set_default_validate_args(2)


def test_base_defaults():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d = Distribution()
    assert "does not define `arg_constraints`" in str(caught[0].message)
    with pytest.raises(NotImplementedError, match="does not implement mode"):
        d.mode  # noqa: B018
    for name in ("mean", "variance", "support"):
        with pytest.raises(NotImplementedError):
            getattr(d, name)
    for method in (d.rsample, d.sample, d.entropy, d.enumerate_support):
        with pytest.raises(NotImplementedError):
            method()
    with pytest.raises(NotImplementedError):
        d.expand((2,))
    assert d.batch_shape == () and d._extended_shape((3,)) == (3,)
    with pytest.warns(FutureWarning, match="sample_n"):
        assert Normal(symgrad.zeros(2), 1.0).sample_n(3).shape == (3, 2)
    assert Normal(0.0, 1.0).perplexity().item() == pytest.approx(
        math.exp(0.5 + 0.5 * math.log(2 * math.pi))
    )


def test_expand_and_support():
    n = Normal(T([0.0, 1.0]), 2.0).expand((3, 2))
    assert n.batch_shape == (3, 2) and n.loc.shape == (3, 2) and n.sample().shape == (3, 2)
    u = Uniform(0.0, 1.0).expand((2,))
    assert u.batch_shape == (2,) and repr(u.support).startswith("Interval(lower_bound=tensor(")
    c = Categorical(logits=symgrad.zeros(3)).expand((2,))
    assert c.batch_shape == (2,) and c.logits.shape == (2, 3) and "probs" not in c.__dict__
    b = Bernoulli(probs=T([0.5, 0.25])).expand((3, 2))
    assert b.probs.shape == (3, 2) and "logits" not in b.__dict__
    i = Independent(Normal(symgrad.zeros(2), 1.0), 1).expand((3,))
    assert i.batch_shape == (3,) and i.event_shape == (2,) and i.base_dist.batch_shape == (3, 2)
    m = MultivariateNormal(symgrad.zeros(2), symgrad.eye(2)).expand((4,))
    assert m.batch_shape == (4,) and m.covariance_matrix.shape == (4, 2, 2)

    class Custom(Normal):
        def __init__(self):
            super().__init__(0.0, 1.0)

    with pytest.raises(NotImplementedError, match="must also define a custom .expand"):
        Custom().expand((2,))
    assert Normal(0.0, 1.0).support is constraints.real
    assert repr(Independent(Normal(symgrad.zeros(2), 1.0), 1).support) == (
        "IndependentConstraint(Real(), 1)"
    )
    assert constraints.is_dependent(Uniform.support) and constraints.is_dependent(
        Categorical.support
    )
    assert Categorical(logits=symgrad.zeros(4)).support.upper_bound == 3
    assert Bernoulli(0.3).has_enumerate_support and not Normal(0.0, 1.0).has_enumerate_support
    assert not Independent(Bernoulli(symgrad.zeros(3)), 1).has_enumerate_support
    assert Bernoulli(0.3).enumerate_support().tolist() == [0.0, 1.0]
    assert Categorical(logits=symgrad.zeros(2, 3)).enumerate_support(False).shape == (3, 1)


def test_lazy_parameters_and_reprs():
    b = Bernoulli(logits=T([0.0]))
    assert "probs" not in b.__dict__ and b.probs.tolist() == [0.5] and "probs" in b.__dict__
    assert repr(b) == "Bernoulli(probs: tensor([0.5000]), logits: tensor([0.]))"
    assert repr(Normal(symgrad.zeros(2), 1.0)) == (
        "Normal(loc: symgrad.Size([2]), scale: symgrad.Size([2]))"
    )
    assert repr(Categorical(T([0.5, 0.5]))) == "Categorical(probs: symgrad.Size([2]))"
    assert Bernoulli(0.3).batch_shape == () and Bernoulli(T(0.3)).param_shape == ()
    c = Categorical(probs=T([0.5, 0.5], requires_grad=True))
    with symgrad.no_grad():
        logits = c.logits
    assert logits.requires_grad  # computed with grad on, as PyTorch's lazy_property


def test_utils():
    a, b = U.broadcast_all(T([1.0, 2.0], dtype=symgrad.float64), 3)
    assert b.tolist() == [3.0, 3.0] and b.dtype == symgrad.float64
    assert U.broadcast_all(1, 2.0)[0].dtype == symgrad.float32
    with pytest.raises(ValueError, match="Input arguments must all be instances of Number"):
        U.broadcast_all("a", 1.0)
    assert np.allclose(U.logits_to_probs(T([0.0, math.log(3)])).numpy(), [0.25, 0.75])
    assert U.logits_to_probs(T([0.0]), is_binary=True).tolist() == [0.5]
    assert U.clamp_probs(T([0.0, 1.0])).tolist() == [
        np.finfo(np.float32).eps,
        np.float32(1 - np.finfo(np.float32).eps),
    ]
    assert np.allclose(U.probs_to_logits(T([0.25]), is_binary=True).numpy(), [math.log(1 / 3)])
    m = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    assert U.tril_matrix_to_vec(m).tolist() == [1.0, 4.0, 5.0, 7.0, 8.0, 9.0]
    assert U.tril_matrix_to_vec(m, diag=-1).tolist() == [4.0, 7.0, 8.0]
    v = U.tril_matrix_to_vec(m)
    assert U.vec_to_tril_matrix(v).tolist() == [[1, 0, 0], [4, 5, 0], [7, 8, 9]]
    assert U.vec_to_tril_matrix(T([4.0, 7.0, 8.0]), diag=-1).tolist() == [
        [0, 0, 0],
        [4, 0, 0],
        [7, 8, 0],
    ]
    with pytest.raises(ValueError, match="cannot be expressed as the lower triangular"):
        U.vec_to_tril_matrix(T([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"diag \(3\) provided is outside \[-3, 2\]"):
        U.tril_matrix_to_vec(m, diag=3)


def _messages(lib):
    D = lib.distributions
    cases = [
        lambda: D.Uniform(1.0, 0.0),
        lambda: D.Normal(lib.zeros(2), lib.tensor([1.0, -1.0])),
        lambda: D.Normal(0.0, 1.0).log_prob(lib.tensor(math.nan)),
        lambda: D.Normal(lib.zeros(2), 1.0).log_prob(lib.zeros(2, 3)),
        lambda: D.Categorical(lib.tensor([0.5, 0.5])).log_prob(lib.tensor(2)),
        lambda: D.Bernoulli(lib.tensor([0.5])).log_prob(lib.tensor([0.3])),
        lambda: D.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
        lambda: D.Categorical(logits=lib.tensor([math.nan, 1.0])),
        lambda: D.MultivariateNormal(lib.zeros(2), lib.eye(2)).log_prob(lib.zeros(3)),
        lambda: D.Categorical(probs=lib.tensor([0.5, 0.5])).log_prob(lib.tensor(0.5)),
        lambda: D.Independent(D.Bernoulli(lib.zeros(3)), 1).expand((2,)),
        lambda: D.Uniform(lib.zeros(2), 1.0).mode,
    ]
    out = []
    for case in cases:
        try:
            out.append(repr(case()))
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}")
    return [o.replace("torch.", "symgrad.") for o in out]


def test_messages_match_torch():
    torch = pytest.importorskip("torch")
    assert _messages(symgrad) == _messages(torch)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_families_against_torch(dtype):
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(1)
    loc, scale, x = rs.randn(3), rs.rand(3) + 0.5, rs.rand(3)
    probs = rs.rand(2, 3) + 0.1
    loc, scale, x, probs = (a.astype(dtype) for a in (loc, scale, x, probs))
    name = "float64" if dtype is np.float64 else "float32"

    def run(lib):
        D = lib.distributions
        lo = lib.tensor(loc, requires_grad=True)
        sc = lib.tensor(scale, requires_grad=True)
        pr = lib.tensor(probs, requires_grad=True)
        v = lib.tensor(x)
        u = D.Uniform(lo - 2, lo + sc + 1)
        b = D.Bernoulli(probs=pr / 2)
        c = D.Categorical(probs=pr)
        cov = lib.tensor([[2.0, 0.3], [0.3, 1.0]], dtype=getattr(lib, name)) * sc[0]
        m = D.MultivariateNormal(lo[:2], covariance_matrix=cov)
        terms = [
            D.Normal(lo, sc).expand((2, 3)).log_prob(v).sum(),
            D.Normal(lo, sc).icdf(v).sum(),
            u.log_prob(v).sum() + u.cdf(v).sum() + u.icdf(v).sum() + u.entropy().sum(),
            b.log_prob(lib.ones(2, 3, dtype=getattr(lib, name))).sum() + b.entropy().sum(),
            b.mode.sum() + b.variance.sum(),
            c.log_prob(lib.tensor([0, 2])).sum() + c.entropy().sum() + c.perplexity().sum(),
            m.log_prob(v[:2]) + m.entropy() + m.precision_matrix.sum() + m.variance.sum(),
            D.Independent(D.Normal(lo, sc), 1).log_prob(v),
        ]
        total = sum(terms)
        total.backward()
        return [t.item() for t in terms] + [lo.grad.numpy(), sc.grad.numpy(), pr.grad.numpy()]

    tol = 1e-7 if dtype is np.float64 else 1e-4
    for a, b in zip(run(symgrad), run(torch)):
        assert np.allclose(a, b, rtol=tol, atol=tol)


def test_sample_statistics():
    symgrad.manual_seed(0)
    n = 40000
    s = Normal(T([1.0, -2.0]), T([0.5, 2.0])).sample((n,))
    assert np.allclose(s.mean(0).numpy(), [1.0, -2.0], atol=0.05)
    assert np.allclose(s.std(0).numpy(), [0.5, 2.0], rtol=0.03)
    u = Uniform(T([0.0, 2.0]), T([1.0, 5.0])).rsample((n,))
    assert np.allclose(u.mean(0).numpy(), [0.5, 3.5], atol=0.05)
    assert bool(((u >= T([0.0, 2.0])) & (u < T([1.0, 5.0]))).all())
    b = Bernoulli(T([0.2, 0.7])).sample((n,))
    assert np.allclose(b.mean(0).numpy(), [0.2, 0.7], atol=0.02)
    c = Categorical(probs=T([0.1, 0.6, 0.3])).sample((n,))
    counts = np.bincount(c.numpy(), minlength=3) / n
    assert c.dtype == symgrad.int64 and np.allclose(counts, [0.1, 0.6, 0.3], atol=0.02)
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])
    m = MultivariateNormal(T([1.0, 0.0]), covariance_matrix=T(cov.tolist())).sample((n,))
    assert np.allclose(np.cov(m.numpy().T), cov, atol=0.08)
    i = Independent(Normal(symgrad.zeros(2, 3), 1.0), 2).rsample((5,))
    assert i.shape == (5, 2, 3)


def test_exponential_family():
    from symgrad.distributions import ExponentialFamily
    from symgrad.distributions.kl import _kl_expfamily_expfamily

    n = Normal(T([0.3, -1.0], dtype=symgrad.float64), T([1.5, 0.5], dtype=symgrad.float64))
    b = Bernoulli(T([0.3, 0.9], dtype=symgrad.float64))
    assert isinstance(n, ExponentialFamily) and isinstance(b, ExponentialFamily)
    assert not isinstance(Categorical(probs=T([0.5, 0.5])), ExponentialFamily)
    for d in (n, b):
        # the Bregman-divergence entropy equals the closed form
        assert np.allclose(ExponentialFamily.entropy(d).detach().numpy(), d.entropy().numpy())
    m = Normal(T([1.0, 0.0], dtype=symgrad.float64), T([0.5, 2.0], dtype=symgrad.float64))
    assert np.allclose(_kl_expfamily_expfamily(n, m).detach().numpy(), kl_normal(n, m))
    with pytest.raises(NotImplementedError, match="different exponential families"):
        symgrad.distributions.kl_divergence(n, b)


def kl_normal(p, q):
    ps, qs = p.scale.numpy(), q.scale.numpy()
    diff = p.loc.numpy() - q.loc.numpy()
    return np.log(qs / ps) + (ps**2 + diff**2) / (2 * qs**2) - 0.5
