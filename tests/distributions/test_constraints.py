"""symgrad.distributions.constraints: checks, reprs, event dims, against plain expectations
and (where installed) PyTorch."""

import math

import numpy as np
import pytest

import symgrad
from symgrad.distributions import constraints as C

T = symgrad.tensor
NAN, INF = math.nan, math.inf


def _eq(result, expected):
    assert result.dtype == symgrad.bool
    assert result.tolist() == expected


def test_elementwise_checks():
    _eq(C.real.check(T([1.0, INF, NAN])), [True, True, False])
    _eq(C.positive.check(T([-1.0, 0.0, 2.0])), [False, False, True])
    _eq(C.nonnegative.check(T([-1.0, 0.0, 2.0])), [False, True, True])
    _eq(C.greater_than(1.0).check(T([1.0, 2.0])), [False, True])
    _eq(C.greater_than_eq(1.0).check(T([1.0, 0.5])), [True, False])
    _eq(C.less_than(1.0).check(T([1.0, 0.5])), [False, True])
    _eq(C.unit_interval.check(T([0.0, 1.0, 1.1, NAN])), [True, True, False, False])
    _eq(C.interval(-1, 1).check(T([-1.0, 2.0])), [True, False])
    _eq(C.half_open_interval(0.0, 1.0).check(T([0.0, 1.0])), [True, False])
    _eq(C.boolean.check(T([0.0, 1.0, 0.5])), [True, True, False])
    _eq(C.nonnegative_integer.check(T([0.0, 3.0, -1.0, 1.5])), [True, True, False, False])
    _eq(C.positive_integer.check(T([0.0, 3.0])), [False, True])
    _eq(C.integer_interval(0, 2).check(T([0, 2, 3])), [True, True, False])
    bound = T([0.0, 1.0])
    _eq(C.greater_than(bound).check(T([0.5, 0.5])), [True, False])


def test_event_checks():
    _eq(C.simplex.check(T([[0.5, 0.5], [0.5, 0.6], [-0.1, 1.1]])), [True, False, False])
    _eq(C.one_hot.check(T([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])), [True, False, False])
    _eq(C.multinomial(3).check(T([[1.0, 2.0], [2.0, 2.0], [-1.0, 1.0]])), [True, False, False])
    _eq(C.real_vector.check(T([[1.0, 2.0], [1.0, NAN]])), [True, False])
    c = C.independent(C.positive, 2)
    assert c.event_dim == 2 and not c.is_discrete
    _eq(c.check(symgrad.ones(3, 2, 2)), [True, True, True])
    with pytest.raises(ValueError, match=r"Expected value.dim\(\) >= 2 but got 1"):
        c.check(symgrad.ones(2))
    with pytest.raises(AssertionError):
        C.independent(C.real, -1)


def test_matrix_checks():
    lower = T([[1.0, 0.0], [2.0, 3.0]])
    upper = T([[1.0, 1.0], [0.0, 1.0]])
    assert C.lower_triangular.check(lower).item() and not C.lower_triangular.check(upper).item()
    assert not C.lower_cholesky.check(T([[1.0, 0.0], [2.0, 0.0]])).item()
    assert C.corr_cholesky.check(T([[1.0, 0.0], [0.6, 0.8]])).item()
    assert not C.corr_cholesky.check(lower).item()
    _eq(C.square.check(symgrad.ones(3, 2, 2)), [True, True, True])
    assert not C.square.check(symgrad.ones(2, 3)).item()
    assert not C.symmetric.check(upper).item() and C.symmetric.check(symgrad.eye(2)).item()
    pd = T([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])
    _eq(C.positive_definite.check(pd), [True, False])
    assert C.positive_semidefinite.check(symgrad.zeros(2, 2)).item()
    assert not C.positive_definite.check(symgrad.zeros(2, 2)).item()


def test_cat_and_stack():
    c = C.cat([C.real, C.positive], dim=0, lengths=[1, 2])
    _eq(c.check(T([-1.0, 1.0, -2.0])), [True, True, False])
    s = C.stack([C.real, C.positive], dim=-1)
    _eq(s.check(T([[-1.0, 1.0], [1.0, -1.0]])), [[True, True], [True, False]])
    assert C.stack([C.real_vector], dim=-1).event_dim == 1
    assert C.cat([C.real, C.nonnegative_integer]).is_discrete
    with pytest.raises(AssertionError):
        C.cat([C.real], lengths=[1, 2])


def test_reprs_and_flags():
    assert repr(C.positive) == "GreaterThan(lower_bound=0.0)"
    assert repr(C.real_vector) == "IndependentConstraint(Real(), 1)"
    assert repr(C.integer_interval(0, 3)) == "IntegerInterval(lower_bound=0, upper_bound=3)"
    assert repr(C.unit_interval) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert repr(C.nonnegative_integer) == "IntegerGreaterThan(lower_bound=0)"
    assert repr(C.multinomial(3)) == "Multinomial()" and repr(C.dependent) == "Dependent()"
    assert repr(C.simplex) == "Simplex()" and repr(C.positive_definite) == "PositiveDefinite()"
    assert C.simplex.event_dim == 1 and C.lower_cholesky.event_dim == 2
    assert C.boolean.is_discrete and not C.real.is_discrete


def test_dependent():
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        C.dependent.check(T(1.0))
    with pytest.raises(NotImplementedError, match="cannot be determined statically"):
        C.dependent.event_dim  # noqa: B018
    d = C.dependent(is_discrete=True, event_dim=1)
    assert d.is_discrete and d.event_dim == 1

    class Box:
        low, high = 0.0, 2.0

        @C.dependent_property(is_discrete=False, event_dim=0)
        def support(self):
            return C.interval(self.low, self.high)

    assert C.is_dependent(Box.support) and Box.support.event_dim == 0
    assert repr(Box().support) == "Interval(lower_bound=0.0, upper_bound=2.0)"
    with pytest.raises(NotImplementedError):
        C.Constraint().check(T(1.0))


def test_fast_validation_agrees_with_check():
    values = [T([1.0, NAN, -1.0, 0.0, 0.5, INF]), T([[0.2, 0.8], [0.5, 0.5]]), T([0, 1, 2])]
    for c in [C.real, C.positive, C.nonnegative, C.unit_interval, C.boolean, C.real_vector]:
        for v in values:
            assert c._holds(v) == bool(c.check(v).all())
    for v in values[:2]:
        assert C.simplex._holds(v) == bool(C.simplex.check(v).all())
    assert C.nonnegative_integer._holds(T([0, 3])) and not C.integer_interval(0, 1)._holds(T([2]))


def test_against_torch():
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(0)
    data = np.concatenate([rs.randn(4, 3), [[0.0, 1.0, NAN]], [[1.0, 0.0, 0.0]]])
    data = np.round(data, 1)
    names = [
        "real",
        "positive",
        "nonnegative",
        "unit_interval",
        "boolean",
        "simplex",
        "one_hot",
        "nonnegative_integer",
        "positive_integer",
        "real_vector",
    ]
    for name in names:
        a = getattr(C, name)
        b = getattr(torch.distributions.constraints, name)
        assert repr(a) == repr(b)
        assert a.event_dim == b.event_dim and a.is_discrete == b.is_discrete
        got = a.check(symgrad.tensor(data)).tolist()
        assert got == b.check(torch.tensor(data)).tolist(), name
    mats = rs.randn(5, 3, 3)
    mats = np.concatenate([mats, mats @ mats.transpose(0, 2, 1), np.tril(mats) ** 2])
    for name in [
        "lower_triangular",
        "lower_cholesky",
        "square",
        "symmetric",
        "positive_definite",
        "positive_semidefinite",
        "corr_cholesky",
    ]:
        a = getattr(C, name).check(symgrad.tensor(mats)).tolist()
        assert (
            a == getattr(torch.distributions.constraints, name).check(torch.tensor(mats)).tolist()
        ), name
