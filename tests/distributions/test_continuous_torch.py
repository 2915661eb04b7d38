"""The continuous families and their KL pairs against PyTorch: values and gradients of every
quantity, in float64 and float32, for the same parameters and values."""

import math

import numpy as np
import pytest

import symgrad

torch = pytest.importorskip("torch")

# name, parameters (positional, as lists), values for log_prob/cdf (None: no log_prob check)
CASES = [
    ("Exponential", ([0.5, 2.0, 3.0],), [0.1, 1.0, 4.0]),
    ("Laplace", ([0.0, -1.0, 2.0], [1.0, 0.5, 3.0]), [0.3, -2.0, 2.0]),
    ("Cauchy", ([0.0, -1.0, 2.0], [1.0, 0.5, 3.0]), [0.3, -2.0, 7.0]),
    ("Gamma", ([0.5, 2.0, 7.5], [1.0, 0.5, 3.0]), [0.3, 2.0, 2.5]),
    ("Chi2", ([1.0, 3.0, 10.0],), [0.3, 2.0, 12.5]),
    ("Beta", ([0.5, 2.0, 7.5], [1.0, 0.5, 3.0]), [0.3, 0.9, 0.6]),
    ("StudentT", ([0.5, 1.5, 7.5], [0.0, 1.0, -2.0], [1.0, 0.5, 3.0]), [0.3, 2.0, -2.5]),
    ("FisherSnedecor", ([0.5, 3.0, 7.5], [1.0, 5.0, 9.0]), [0.3, 2.0, 2.5]),
    # inside, at the edge of and outside the Taylor window around 1/2
    ("ContinuousBernoulli", ([0.2, 0.4995, 0.501, 0.9],), [0.3, 0.5, 0.0, 1.0]),
]
QUANTITIES = ("mean", "mode", "variance", "stddev", "entropy")


def _both(name, params, dtype):
    ours = getattr(symgrad.distributions, name)(
        *[symgrad.tensor(p, dtype=getattr(symgrad, dtype), requires_grad=True) for p in params]
    )
    theirs = getattr(torch.distributions, name)(
        *[torch.tensor(p, dtype=getattr(torch, dtype), requires_grad=True) for p in params]
    )
    return ours, theirs


def _params(d, name):
    if name == "ContinuousBernoulli":
        return [d._param]
    names = list(d.arg_constraints)
    return [getattr(d, k) for k in names] if name != "Beta" else [d._dirichlet.concentration]


def _close(a, b, dtype, what, tol64=1e-10):
    a = np.asarray(a.detach().numpy() if hasattr(a, "detach") else a, dtype=float)
    b = np.asarray(b.detach().numpy(), dtype=float)
    # (PyTorch's trigamma, in gradients of digamma, is good to about 1e-9 only)
    tol = tol64 if dtype == "float64" else 2e-5
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol, equal_nan=True, err_msg=what)


def _grads(ours, theirs, name, f_ours, f_theirs, dtype, what):
    try:
        ref = f_theirs(theirs)
    except NotImplementedError:  # (FisherSnedecor's entropy)
        with pytest.raises(NotImplementedError):
            f_ours(ours)
        return
    out = f_ours(ours)
    _close(out, ref, dtype, what)
    if not ref.requires_grad or not np.isfinite(ref.detach().numpy()).all():
        return
    p_ours, p_theirs = _params(ours, name), _params(theirs, name)
    try:
        g_theirs = torch.autograd.grad(ref.sum(), p_theirs, allow_unused=True)
    except NotImplementedError as error:  # (Gamma.cdf in the concentration)
        with pytest.raises(NotImplementedError, match=str(error).split("'")[1].split(":")[0]):
            symgrad.autograd.grad(out.sum(), p_ours, allow_unused=True)
        return
    g_ours = symgrad.autograd.grad(out.sum(), p_ours, allow_unused=True)
    for a, b in zip(g_ours, g_theirs):
        if b is None:
            assert a is None or not bool(a.abs().sum()), what
        else:
            _close(a, b, dtype, f"d {what}", tol64=1e-8)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name, params, values", CASES, ids=[c[0] for c in CASES])
def test_family_matches_torch(name, params, values, dtype):
    ours, theirs = _both(name, params, dtype)
    assert ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.has_rsample == theirs.has_rsample
    assert repr(ours.support) == repr(theirs.support)
    for q in QUANTITIES:
        f = (lambda d, q=q: getattr(d, q)()) if q == "entropy" else (lambda d, q=q: getattr(d, q))
        _grads(ours, theirs, name, f, f, dtype, f"{name}.{q}")
    v_ours = symgrad.tensor(values, dtype=getattr(symgrad, dtype))
    v_theirs = torch.tensor(values, dtype=getattr(torch, dtype))
    for method in ("log_prob", "cdf", "icdf"):
        probe_ours, probe_theirs = v_ours, v_theirs
        if method == "icdf":
            levels = [0.1, 0.5, 0.8, 0.3][: len(values)]
            probe_ours = symgrad.tensor(levels, dtype=getattr(symgrad, dtype))
            probe_theirs = torch.tensor(levels, dtype=getattr(torch, dtype))
        try:
            getattr(theirs, method)(probe_theirs)
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                getattr(ours, method)(probe_ours)
            continue
        _grads(
            ours,
            theirs,
            name,
            lambda d, m=method, v=probe_ours: getattr(d, m)(v),
            lambda d, m=method, v=probe_theirs: getattr(d, m)(v),
            dtype,
            f"{name}.{method}",
        )


DIRICHLET = [[0.5, 2.0, 3.0], [4.0, 0.3, 1.0]]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_dirichlet_matches_torch(dtype):
    ours, theirs = _both("Dirichlet", (DIRICHLET,), dtype)
    assert (ours.batch_shape, ours.event_shape) == (theirs.batch_shape, theirs.event_shape)
    for q in QUANTITIES:
        f = (lambda d, q=q: getattr(d, q)()) if q == "entropy" else (lambda d, q=q: getattr(d, q))
        _grads(ours, theirs, "Dirichlet", f, f, dtype, f"Dirichlet.{q}")
    value = [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]
    v_ours = symgrad.tensor(value, dtype=getattr(symgrad, dtype))
    v_theirs = torch.tensor(value, dtype=getattr(torch, dtype))
    _grads(
        ours,
        theirs,
        "Dirichlet",
        lambda d: d.log_prob(v_ours),
        lambda d: d.log_prob(v_theirs),
        dtype,
        "Dirichlet.log_prob",
    )


def _make(module, name, params, dtype):
    cls = getattr(module.distributions, name)
    return cls(
        *[module.tensor(p, dtype=getattr(module, dtype), requires_grad=True) for p in params]
    )


KL_PAIRS = [
    ("Exponential", ([0.5, 2.0],), "Exponential", ([1.5, 0.7],)),
    ("Laplace", ([0.0, 1.0], [1.0, 2.0]), "Laplace", ([0.5, -1.0], [0.3, 1.0])),
    ("Cauchy", ([0.0, 1.0], [1.0, 2.0]), "Cauchy", ([0.5, -1.0], [0.3, 1.0])),
    ("Gamma", ([0.5, 2.0], [1.0, 3.0]), "Gamma", ([1.5, 0.7], [0.2, 2.0])),
    ("Chi2", ([3.0, 2.0],), "Gamma", ([1.5, 0.7], [0.2, 2.0])),
    ("Beta", ([0.5, 2.0], [1.0, 3.0]), "Beta", ([1.5, 0.7], [0.2, 2.0])),
    ("Dirichlet", ([[0.5, 2.0, 1.0], [1.0, 3.0, 2.0]],), "Dirichlet", ([[1.5, 0.7, 3.0]],)),
    ("Exponential", ([0.5, 2.0],), "Gamma", ([1.5, 0.7], [0.2, 2.0])),
    ("Exponential", ([0.5, 2.0],), "Normal", ([1.5, 0.7], [0.2, 2.0])),
    ("Exponential", ([0.5, 2.0],), "Beta", ([1.5, 0.7], [0.2, 2.0])),
    ("Exponential", ([0.5, 2.0],), "Uniform", ([0.0, 0.5], [1.0, 2.0])),
    ("Gamma", ([0.5, 2.0], [1.0, 3.0]), "Exponential", ([1.5, 0.7],)),
    ("Gamma", ([0.5, 2.0], [1.0, 3.0]), "Normal", ([1.5, 0.7], [0.2, 2.0])),
    ("Gamma", ([0.5, 2.0], [1.0, 3.0]), "Uniform", ([0.0, 0.5], [1.0, 2.0])),
    ("Beta", ([0.5, 2.0], [1.0, 3.0]), "Exponential", ([1.5, 0.7],)),
    ("Beta", ([0.5, 2.0], [1.0, 3.0]), "Gamma", ([1.5, 0.7], [0.2, 2.0])),
    ("Beta", ([0.5, 2.0], [1.0, 3.0]), "Normal", ([1.5, 0.7], [0.2, 2.0])),
    ("Beta", ([0.5, 2.0], [1.0, 3.0]), "Uniform", ([0.0, -0.5], [1.0, 2.0])),
    ("Beta", ([0.5, 2.0], [1.0, 3.0]), "Uniform", ([0.1, -0.5], [1.0, 0.9])),
    ("Laplace", ([0.0, 1.0], [1.0, 2.0]), "Normal", ([0.5, -1.0], [0.3, 1.0])),
    ("Laplace", ([0.0, 1.0], [1.0, 2.0]), "Gamma", ([1.5, 0.7], [0.2, 2.0])),
    ("Normal", ([0.0, 1.0], [1.0, 2.0]), "Laplace", ([0.5, -1.0], [0.3, 1.0])),
    ("Normal", ([0.0, 1.0], [1.0, 2.0]), "Exponential", ([1.5, 0.7],)),
    ("Uniform", ([0.1, 0.5], [0.3, 0.9]), "Beta", ([1.5, 0.7], [0.2, 2.0])),
    ("Uniform", ([0.1, -0.5], [0.3, 0.9]), "Beta", ([1.5, 0.7], [0.2, 2.0])),
    ("Uniform", ([0.1, 0.5], [0.3, 0.9]), "Gamma", ([1.5, 0.7], [0.2, 2.0])),
    ("Uniform", ([0.1, -0.5], [0.3, 0.9]), "Exponential", ([1.5, 0.7],)),
    ("Uniform", ([0.1, -0.5], [0.3, 0.9]), "Uniform", ([0.0, -0.4], [0.4, 0.9])),
    ("Uniform", ([0.1, -0.5], [0.3, 0.9]), "Normal", ([0.0, -0.4], [0.4, 0.9])),
    ("ContinuousBernoulli", ([0.2, 0.4995],), "ContinuousBernoulli", ([0.7, 0.3],)),
    ("Beta", ([0.5, 2.0], [1.0, 3.0]), "ContinuousBernoulli", ([0.7, 0.3],)),
    ("Uniform", ([0.1, -0.5], [0.3, 0.9]), "ContinuousBernoulli", ([0.7, 0.3],)),
    ("ContinuousBernoulli", ([0.2, 0.4995],), "Exponential", ([0.7, 0.3],)),
    ("ContinuousBernoulli", ([0.2, 0.4995],), "Normal", ([0.7, 0.3], [1.0, 2.0])),
    ("ContinuousBernoulli", ([0.2, 0.4995],), "Uniform", ([-0.1, 0.0], [1.0, 1.5])),
    ("Gamma", ([0.5, 2.0], [1.0, 3.0]), "ContinuousBernoulli", ([0.7, 0.3],)),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(
    "p_name, p_params, q_name, q_params", KL_PAIRS, ids=[f"{c[0]}-{c[2]}" for c in KL_PAIRS]
)
def test_kl_matches_torch(p_name, p_params, q_name, q_params, dtype):
    p, q = _make(symgrad, p_name, p_params, dtype), _make(symgrad, q_name, q_params, dtype)
    tp, tq = _make(torch, p_name, p_params, dtype), _make(torch, q_name, q_params, dtype)
    ours = symgrad.distributions.kl_divergence(p, q)
    theirs = torch.distributions.kl_divergence(tp, tq)
    _close(ours, theirs, dtype, f"KL({p_name} || {q_name})")
    if not theirs.requires_grad:
        return
    leaves = [t for t in (*_params(p, p_name), *_params(q, q_name))]
    t_leaves = [t for t in (*_params(tp, p_name), *_params(tq, q_name))]
    finite = np.isfinite(theirs.detach().numpy())
    if not finite.any():
        return
    g_ours = symgrad.autograd.grad(ours[symgrad.tensor(finite)].sum(), leaves, allow_unused=True)
    g_theirs = torch.autograd.grad(theirs[torch.tensor(finite)].sum(), t_leaves, allow_unused=True)
    for a, b in zip(g_ours, g_theirs):
        if b is not None and a is not None:
            _close(a, b, dtype, f"d KL({p_name} || {q_name})", tol64=1e-8)


def test_kl_cases_cover_an_infinite_and_a_finite_result():
    p = symgrad.distributions.Uniform(symgrad.tensor([0.1, -0.5]), symgrad.tensor([0.3, 0.9]))
    q = symgrad.distributions.Beta(symgrad.tensor([1.5, 0.7]), symgrad.tensor([0.2, 2.0]))
    kl = symgrad.distributions.kl_divergence(p, q)
    assert math.isfinite(kl[0].item()) and kl[1].item() == math.inf


def _lowrank(module, dtype, loc, factor, diag):
    t = lambda v: module.tensor(v, dtype=getattr(module, dtype), requires_grad=True)  # noqa: E731
    return module.distributions.LowRankMultivariateNormal(t(loc), t(factor), t(diag))


LOWRANK = ([[0.0, 1.0, -1.0]], [[[1.0, 0.5], [0.0, -1.0], [2.0, 0.3]]], [1.0, 0.5, 2.0])
LOWRANK_Q = ([0.5, 0.0, 1.0], [[0.3], [1.0], [-0.5]], [[0.7, 1.5, 1.0], [2.0, 1.0, 0.4]])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lowrank_normal_matches_torch(dtype):
    ours, theirs = _lowrank(symgrad, dtype, *LOWRANK), _lowrank(torch, dtype, *LOWRANK)
    assert (ours.batch_shape, ours.event_shape) == (theirs.batch_shape, theirs.event_shape)
    value = [[0.3, -1.0, 2.0], [1.0, 0.0, 0.5]]
    v_ours = symgrad.tensor(value, dtype=getattr(symgrad, dtype))
    v_theirs = torch.tensor(value, dtype=getattr(torch, dtype))
    checks = [
        lambda d, v: d.log_prob(v),
        lambda d, v: d.entropy(),
        lambda d, v: d.variance,
        lambda d, v: d.covariance_matrix,
        lambda d, v: d.precision_matrix,
        lambda d, v: d.scale_tril,
    ]
    for k, f in enumerate(checks):
        out, ref = f(ours, v_ours), f(theirs, v_theirs)
        _close(out, ref, dtype, f"check {k}", tol64=1e-9)
        leaves = [ours._unbroadcasted_cov_factor, ours._unbroadcasted_cov_diag]
        t_leaves = [theirs._unbroadcasted_cov_factor, theirs._unbroadcasted_cov_diag]
        for a, b in zip(
            symgrad.autograd.grad(out.sum(), leaves, retain_graph=True),
            torch.autograd.grad(ref.sum(), t_leaves, retain_graph=True),
        ):
            _close(a, b, dtype, f"d check {k}", tol64=1e-9)
    assert ours.rsample((4,)).shape == (4, 1, 3)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_lowrank_kl_matches_torch(dtype):
    pairs = []
    for module in (symgrad, torch):
        p, q = _lowrank(module, dtype, *LOWRANK), _lowrank(module, dtype, *LOWRANK_Q)
        cov = module.tensor(
            [[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 1.5]], dtype=getattr(module, dtype)
        )
        m = module.distributions.MultivariateNormal(
            module.tensor([0.1, 0.2, 0.3], dtype=getattr(module, dtype)), cov
        )
        kl = module.distributions.kl_divergence
        pairs.append([kl(p, q), kl(q, p), kl(m, p), kl(p, m)])
    for k, (a, b) in enumerate(zip(*pairs)):
        _close(a, b, dtype, f"KL pair {k}", tol64=1e-9)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_von_mises_matches_torch(dtype):
    loc, conc = [0.0, 1.0, -2.0, 3.0], [0.01, 1.0, 5.0, 60.0]
    ours, theirs = _both("VonMises", (loc, conc), dtype)
    values = [0.3, -1.0, 2.5, 3.0]
    v_ours = symgrad.tensor(values, dtype=getattr(symgrad, dtype))
    v_theirs = torch.tensor(values, dtype=getattr(torch, dtype))
    # PyTorch's log I0 and I1 are polynomial fits good to about 2e-7
    for f in (lambda d, v: d.log_prob(v), lambda d, v: d.variance, lambda d, v: d.mean):
        out, ref = f(ours, v_ours), f(theirs, v_theirs)
        _close(out, ref, dtype, "VonMises", tol64=1e-6)
        leaves, t_leaves = [ours.loc, ours.concentration], [theirs.loc, theirs.concentration]
        g_ours = symgrad.autograd.grad(out.sum(), leaves, allow_unused=True, retain_graph=True)
        g_theirs = torch.autograd.grad(ref.sum(), t_leaves, allow_unused=True, retain_graph=True)
        for a, b in zip(g_ours, g_theirs):
            if b is not None:
                _close(a, b, dtype, "d VonMises", tol64=1e-5)
    assert ours.has_rsample is False and ours.batch_shape == theirs.batch_shape
    with pytest.raises(NotImplementedError):
        ours.entropy()


COV = [
    [[2.0, 0.3, 0.0], [0.3, 1.0, 0.2], [0.0, 0.2, 1.5]],
    [[1.0, 0.0, 0.0], [0.0, 3.0, 1.0], [0.0, 1.0, 1.0]],
]


@pytest.mark.parametrize("form", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_wishart_matches_torch(form, dtype):
    made = []
    for module in (symgrad, torch):
        cov = module.tensor(COV, dtype=getattr(module, dtype))
        matrix = {
            "covariance_matrix": cov,
            "precision_matrix": module.linalg.inv(cov),
            "scale_tril": module.linalg.cholesky(cov),
        }[form].requires_grad_()
        df = module.tensor([4.0, 6.5], dtype=getattr(module, dtype), requires_grad=True)
        made.append((module.distributions.Wishart(df, **{form: matrix}), df, matrix))
    (ours, df, m), (theirs, t_df, t_m) = made
    value = [[[1.0, 0.2, 0.1], [0.2, 2.0, 0.0], [0.1, 0.0, 0.5]]]
    v_ours = symgrad.tensor(value, dtype=getattr(symgrad, dtype))
    v_theirs = torch.tensor(value, dtype=getattr(torch, dtype))
    checks = [
        lambda d, v: d.log_prob(v),
        lambda d, v: d.entropy(),
        lambda d, v: d.mean,
        lambda d, v: d.mode,
        lambda d, v: d.variance,
        lambda d, v: d.covariance_matrix,
        lambda d, v: d.precision_matrix,
    ]
    for k, f in enumerate(checks):
        out, ref = f(ours, v_ours), f(theirs, v_theirs)
        _close(out, ref, dtype, f"Wishart check {k}", tol64=1e-9)
        finite = np.isfinite(ref.detach().numpy())
        g_ours = symgrad.autograd.grad(
            out[symgrad.tensor(finite)].sum(), [df, m], allow_unused=True, retain_graph=True
        )
        g_theirs = torch.autograd.grad(
            ref[torch.tensor(finite)].sum(), [t_df, t_m], allow_unused=True, retain_graph=True
        )
        for a, b in zip(g_ours, g_theirs):
            if b is not None:
                _close(a, b, dtype, f"d Wishart check {k}", tol64=1e-8)
    sample = ours.rsample((5,))
    assert sample.shape == (5, 2, 3, 3) and sample.requires_grad
    assert bool(ours.support.check(sample).all())


EXP_FAMILIES = [
    ("Exponential", ([0.5, 2.0],)),
    ("Gamma", ([0.5, 2.0], [1.0, 3.0])),
    ("Beta", ([0.5, 2.0], [1.0, 3.0])),
    ("Dirichlet", ([[0.5, 2.0, 1.0], [1.0, 3.0, 2.0]],)),
    ("ContinuousBernoulli", ([0.2, 0.4995],)),
]


@pytest.mark.parametrize("name, params", EXP_FAMILIES, ids=[c[0] for c in EXP_FAMILIES])
def test_exponential_family_parts_match_torch(name, params):
    ours, theirs = _both(name, params, "float64")
    assert isinstance(ours, symgrad.distributions.ExponentialFamily)
    for a, b in zip(ours._natural_params, theirs._natural_params):
        _close(a, b, "float64", f"{name} natural parameters")
    _close(
        ours._log_normalizer(*ours._natural_params),
        theirs._log_normalizer(*theirs._natural_params),
        "float64",
        f"{name} log-normalizer",
    )
    try:
        expected = torch.distributions.ExponentialFamily.entropy(theirs)
    except NotImplementedError:  # (Beta and Dirichlet have no carrier measure)
        with pytest.raises(NotImplementedError):
            symgrad.distributions.ExponentialFamily.entropy(ours)
        return
    bregman = symgrad.distributions.ExponentialFamily.entropy(ours)
    _close(bregman, expected, "float64", f"{name} Bregman entropy", tol64=1e-8)


def test_wishart_kl_through_the_exponential_family_matches_torch():
    results = []
    for module in (symgrad, torch):
        w = module.distributions.Wishart
        p = w(module.tensor([4.0, 3.0]), covariance_matrix=module.eye(2))
        q = w(module.tensor(5.0), covariance_matrix=2 * module.eye(2))
        results.append(module.distributions.kl_divergence(p, q))
    _close(results[0], results[1], "float32", "KL(Wishart || Wishart)")
