"""torch.distributions as programs use it: PyTorch's module paths, the nodes of the results
PyTorch writes by masked assignment, and the errors and edge cases found by running the same
programs with PyTorch and with symgrad.

Each case of ``CASES`` calls the same code with ``T`` either symgrad or torch and is reduced to
plain data (values, dtype, grad_fn name, gradients, or the exception's type): the table holds
the expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import importlib
import math

import pytest
from _torch_table import NAN, table_tests

import symgrad

# torch.distributions.<module>: the public names PyTorch defines there
MODULE_PATHS = {
    "bernoulli": ["Bernoulli"],
    "beta": ["Beta"],
    "binomial": ["Binomial"],
    "categorical": ["Categorical"],
    "cauchy": ["Cauchy"],
    "chi2": ["Chi2"],
    "dirichlet": ["Dirichlet"],
    "exponential": ["Exponential"],
    "fishersnedecor": ["FisherSnedecor"],
    "gamma": ["Gamma"],
    "generalized_pareto": ["GeneralizedPareto"],
    "geometric": ["Geometric"],
    "gumbel": ["Gumbel"],
    "half_cauchy": ["HalfCauchy"],
    "half_normal": ["HalfNormal"],
    "independent": ["Independent"],
    "inverse_gamma": ["InverseGamma"],
    "kumaraswamy": ["Kumaraswamy"],
    "laplace": ["Laplace"],
    "log_normal": ["LogNormal"],
    "logistic_normal": ["LogisticNormal"],
    "lowrank_multivariate_normal": ["LowRankMultivariateNormal"],
    "mixture_same_family": ["MixtureSameFamily"],
    "multinomial": ["Multinomial"],
    "negative_binomial": ["NegativeBinomial"],
    "normal": ["Normal"],
    "one_hot_categorical": ["OneHotCategorical", "OneHotCategoricalStraightThrough"],
    "pareto": ["Pareto"],
    "poisson": ["Poisson"],
    "relaxed_bernoulli": ["LogitRelaxedBernoulli", "RelaxedBernoulli"],
    "relaxed_categorical": ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"],
    "studentT": ["StudentT"],
    "uniform": ["Uniform"],
    "weibull": ["Weibull"],
}


def _module_names(T, module):
    """The names ``from <T>.distributions.<module> import ...`` finds, and whether the module is
    also an attribute of the package."""
    imported = importlib.import_module(f"{T.__name__}.distributions.{module}")
    attribute = getattr(T.distributions, module) is imported
    return sorted(n for n in MODULE_PATHS[module] if hasattr(imported, n)), attribute


@pytest.mark.parametrize("module", list(MODULE_PATHS))
def test_module_path(module):
    assert _module_names(symgrad, module) == (MODULE_PATHS[module], True)
    imported = importlib.import_module(f"symgrad.distributions.{module}")
    for name in MODULE_PATHS[module]:
        # the one class, whichever path a program takes to it
        assert getattr(imported, name) is getattr(
            symgrad.distributions, name, imported.__dict__[name]
        )
        assert issubclass(getattr(imported, name), symgrad.distributions.Distribution)


@pytest.mark.torch
@pytest.mark.parametrize("module", list(MODULE_PATHS))
def test_module_path_is_pytorchs(module):
    torch = pytest.importorskip("torch")
    assert _module_names(torch, module) == (MODULE_PATHS[module], True)


def test_program_importing_module_paths():
    from symgrad.distributions.categorical import Categorical
    from symgrad.distributions.normal import Normal

    logits = symgrad.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    loss = -Categorical(logits=logits).log_prob(symgrad.tensor([2])).sum()
    loss = loss - Normal(0.0, 1.0).log_prob(symgrad.tensor(0.0))
    loss.backward()
    assert math.isclose(loss.item(), 0.2413 + 0.9189, abs_tol=1e-4)


F32, F64 = "float32", "float64"


def _empty_batch_categorical(T):
    d = T.distributions.Categorical(logits=T.zeros(0, 3), validate_args=False)
    return d.sample((2,)), d.entropy(), d.log_prob(T.zeros(0, dtype=T.int64))


def _leaf(T, values):
    return T.tensor(values, dtype=T.float64, requires_grad=True)


def _with_grads(T, make, *params):
    """``make(*leaves)`` and the gradients of its sum (0 where a leaf has none)."""
    leaves = [_leaf(T, p) for p in params]
    out = make(T.distributions, *leaves)
    grads = T.autograd.grad(out.sum(), leaves, allow_unused=True)
    return (out, *(T.zeros_like(x) if g is None else g for x, g in zip(leaves, grads)))


def _studentt(attr):
    return lambda T: _with_grads(
        T,
        lambda D, df, scale: getattr(D.StudentT(df, 0.5 * scale, scale), attr),
        [0.5, 1.5, 4.0],
        [2.0, 1.0, 3.0],
    )


def _kl(T, p, q, *params):
    return _with_grads(T, lambda D, *x: D.kl_divergence(p(D, *x), q(D, *x)), *params)


G = "IndexPutBackward0"


def _edge_counts(T, d, draws=None):
    """How many draws are exactly 0 and exactly 1, and whether all lie within the dtype's
    smallest normal number and the largest number below 1."""
    x = d.sample((20000,)) if draws is None else draws
    tiny = T.finfo(x.dtype).tiny
    below_one = 1 - T.finfo(x.dtype).eps / 2
    return (
        int((x == 0).sum()),
        int((x == 1).sum()),
        bool(x.min() >= tiny),
        bool(x.max() <= below_one),
    )


CASES: dict = {
    # -- special cases written by masked assignment (PyTorch's node), no gradient through them
    "studentt_mean": (
        _studentt("mean"),
        (([NAN, 0.5, 1.5], F64, G), ([0.0, 0.0, 0.0], F64, None), ([0.0, 0.5, 0.5], F64, None)),
    ),
    "studentt_variance": (
        _studentt("variance"),
        (
            ([NAN, math.inf, 18.0], F64, G),
            ([0.0, 0.0, -4.5], F64, None),
            ([0.0, 0.0, 12.0], F64, None),
        ),
    ),
    "fisher_mode": (
        lambda T: _with_grads(
            T, lambda D, a, b: D.FisherSnedecor(a, b).mode, [1.0, 4.0], [3.0, 6.0]
        ),
        (([NAN, 0.375], F64, G), ([0.0, 0.0938], F64, None), ([0.0, 0.0156], F64, None)),
    ),
    "dirichlet_mode": (
        lambda T: _with_grads(
            T,
            lambda D, c: D.Dirichlet(c).mode * T.tensor([1.0, 2.0, 3.0], dtype=T.float64),
            [[2.0, 3.0, 0.5], [0.5, 0.2, 0.9]],
        ),
        (
            ([[0.3333, 1.3333, 0.0], [1.0, 0.0, 0.0]], F64, "MulBackward0"),
            ([[-0.2222, 0.1111, 0.0], [0.0, 0.0, 0.0]], F64, None),
        ),
    ),
    "dirichlet_mode_node": (
        lambda T: type(T.distributions.Dirichlet(_leaf(T, [[2.0, 3.0]])).mode.grad_fn).__name__,
        G,
    ),
    "kl_uniform_uniform": (
        lambda T: _kl(
            T,
            lambda D, lo, hi: D.Uniform(lo, hi),
            lambda D, lo, hi: D.Uniform(lo - 1, hi + 1),
            [0.0, 1.0],
            [1.0, 3.0],
        ),
        (([1.0986, 0.6931], F64, G), ([0.6667, 0.25], F64, None), ([-0.6667, -0.25], F64, None)),
    ),
    "kl_uniform_uniform_outside": (
        lambda T: _kl(
            T,
            lambda D, lo, hi: D.Uniform(lo, hi),
            lambda D, lo, hi: D.Uniform(lo + 0.5, hi + 1),
            [0.0],
            [1.0],
        ),
        (([math.inf], F64, G), ([0.0], F64, None), ([0.0], F64, None)),
    ),
    "kl_pareto_exponential": (
        lambda T: _kl(
            T,
            lambda D, a, r: D.Pareto(T.ones_like(a), a),
            lambda D, a, r: D.Exponential(r),
            [0.5, 3.0],
            [1.0, 2.0],
        ),
        (([math.inf, 2.0721], F64, G), ([0.0, -0.0556], F64, None), ([0.0, 1.0], F64, None)),
    ),
    "kl_binomial_binomial": (
        lambda T: _kl(
            T,
            lambda D, p, q: D.Binomial(5, p),
            lambda D, p, q: D.Binomial(5, q),
            [0.2, 0.5],
            [0.4, 0.5],
        ),
        (([0.4576, 0.0], F64, G), ([-4.9041, 0.0], F64, None), ([4.1667, 0.0], F64, None)),
    ),
    # -- matrix constraints and transforms given a vector: tril's RuntimeError, as in PyTorch
    "lower_cholesky_check_vector": (
        lambda T: T.distributions.constraints.lower_cholesky.check(T.ones(3)),
        ("raises", "RuntimeError"),
    ),
    "corr_cholesky_check_vector": (
        lambda T: T.distributions.constraints.corr_cholesky.check(T.ones(3)),
        ("raises", "RuntimeError"),
    ),
    "transform_to_lower_cholesky_vector": (
        lambda T: T.distributions.transform_to(T.distributions.constraints.lower_cholesky)(
            T.ones(3)
        ),
        ("raises", "RuntimeError"),
    ),
    "transform_to_positive_definite_vector": (
        lambda T: T.distributions.transform_to(T.distributions.constraints.positive_definite)(
            T.ones(3)
        ),
        ("raises", "RuntimeError"),
    ),
    "lower_cholesky_transform": (
        lambda T: _with_grads(
            T,
            lambda D, x: D.transforms.LowerCholeskyTransform()(x) * T.arange(4.0).reshape(2, 2),
            [[0.0, 5.0], [2.0, 1.0]],
        ),
        (
            ([[0.0, 0.0], [4.0, 8.1548]], F64, "MulBackward0"),
            ([[0.0, 0.0], [2.0, 8.1548]], F64, None),
        ),
    ),
    # -- transforms computed in PyTorch's steps: the same node
    "softmax_transform": (
        lambda T: _with_grads(
            T,
            lambda D, x: D.transforms.SoftmaxTransform()(x),
            [[0.5, -1.0, 2.0], [0.0, 0.0, 0.0]],
        ),
        (
            ([[0.1753, 0.0391, 0.7856], [0.3333, 0.3333, 0.3333]], F64, "DivBackward0"),
            ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], F64, None),
        ),
    ),
    "softmax_transform_weighted": (
        lambda T: _with_grads(
            T,
            lambda D, x: D.transforms.SoftmaxTransform()(x) * T.tensor([1.0, 2.0, 3.0]),
            [0.5, -1.0, 2.0],
        ),
        (([0.1753, 0.0782, 2.3568], F64, "MulBackward0"), ([-0.2823, -0.0239, 0.3061], F64, None)),
    ),
    "corr_cholesky_inverse": (
        lambda T: _with_grads(
            T,
            lambda D, x: D.transforms.CorrCholeskyTransform().inv(
                D.transforms.CorrCholeskyTransform()(x)
            ),
            [0.3, -1.2, 2.0],
        ),
        (([0.3, -1.2, 2.0], F64, "DivBackward0"), ([1.0, 1.0, 1.0], F64, None)),
    ),
    # -- a number where a tensor belongs, validation off: PyTorch's TypeError from the function
    "normal_icdf_number": (
        lambda T: T.distributions.Normal(0.0, 1.0, validate_args=False).icdf(0.5),
        ("raises", "TypeError"),
    ),
    "exponential_icdf_number": (
        lambda T: T.distributions.Exponential(1.0, validate_args=False).icdf(0.5),
        ("raises", "TypeError"),
    ),
    "cauchy_icdf_number": (
        lambda T: T.distributions.Cauchy(0.0, 1.0, validate_args=False).icdf(0.5),
        ("raises", "TypeError"),
    ),
    "binomial_log_prob_number": (
        lambda T: T.distributions.Binomial(3, 0.3, validate_args=False).log_prob(1.0),
        ("raises", "TypeError"),
    ),
    "negative_binomial_log_prob_number": (
        lambda T: T.distributions.NegativeBinomial(3.0, 0.3, validate_args=False).log_prob(1),
        ("raises", "TypeError"),
    ),
    "fisher_log_prob_number": (
        lambda T: T.distributions.FisherSnedecor(2.0, 3.0, validate_args=False).log_prob(1.0),
        ("raises", "TypeError"),
    ),
    "normal_icdf_tensor": (
        lambda T: T.distributions.Normal(1.0, 2.0).icdf(T.tensor([0.5, 0.8413447])),
        ([1.0, 3.0], F32, None),
    ),
    # -- shapes that don't broadcast: PyTorch's RuntimeError, not NumPy's ValueError
    "broadcast_tensors_mismatch": (
        lambda T: T.broadcast_tensors(T.zeros(3, 1), T.zeros(2, 3)),
        ("raises", "RuntimeError"),
    ),
    "categorical_value_mismatch": (
        lambda T: T.distributions.Categorical(logits=T.zeros(2, 3), validate_args=False).log_prob(
            T.tensor([0, 1, 2])
        ),
        ("raises", "RuntimeError"),
    ),
    "normal_broadcast_all_mismatch": (
        lambda T: T.distributions.Normal(T.zeros(3), T.ones(2)),
        ("raises", "RuntimeError"),
    ),
    # -- Beta and Dirichlet draws of small concentrations stay strictly inside (0, 1)
    "beta_draws_inside": (
        lambda T: _edge_counts(T, T.distributions.Beta(T.tensor([0.1]), T.tensor([0.1]))),
        (0, 0, True, True),
    ),
    "beta_draws_inside_float64": (
        lambda T: _edge_counts(
            T, T.distributions.Beta(T.tensor([0.01], dtype=T.float64), T.tensor([0.01]).double())
        ),
        (0, 0, True, True),
    ),
    "dirichlet_draws_inside": (
        lambda T: _edge_counts(T, T.distributions.Dirichlet(T.tensor([1e-3, 1e-3, 0.5]))),
        (0, 0, True, True),
    ),
    "sample_dirichlet_inside": (
        lambda T: _edge_counts(T, None, T._sample_dirichlet(T.full((5000, 2), 1e-3))),
        (0, 0, True, True),
    ),
    # -- draws from a batch of no distributions: empty, not a NumPy error
    "multinomial_no_rows": (
        lambda T: (T.multinomial(T.zeros(0, 3), 2, True), T.multinomial(T.zeros(0, 3), 2)),
        (([], "int64", None), ([], "int64", None)),
    ),
    "multinomial_no_rows_shape": (
        lambda T: tuple(T.multinomial(T.zeros(0, 3), 2, True).shape),
        (0, 2),
    ),
    "multinomial_no_categories": (
        lambda T: T.multinomial(T.zeros(2, 0), 1, True),
        ("raises", "RuntimeError"),
    ),
    "categorical_empty_batch": (
        _empty_batch_categorical,
        (([[], []], "int64", None), ([], F32, None), ([], F32, None)),
    ),
    "categorical_empty_batch_shape": (
        lambda T: tuple(_empty_batch_categorical(T)[0].shape),
        (2, 0),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)


# VonMises in float64: PyTorch's log I0 and log I1 are Abramowitz and Stegun's polynomials, whose
# values (about 1e-7 from the exact Bessel functions) are the reference, to the last digits
VON_MISES_KAPPA = [1e-3, 0.5, 3.7499, 3.75, 10.0, 500.0]
VON_MISES_LOG_PROB = [
    -1.8369219799200547,
    -1.4217585158819206,
    -0.46572965436395286,
    -0.46571945873948595,
    -0.2274842711773628,
    -20.143639976488487,
]
VON_MISES_VARIANCE = [
    0.9995000000625,
    0.7575003832967004,
    0.14683399299002797,
    0.14682956159041904,
    0.051400180300091525,
    0.0010000832779124558,
]
VON_MISES_GRAD = [
    0.4548366769865616,
    0.25664220641954083,
    0.05757984909016578,
    0.05757745152341154,
    0.001438251853473238,
    -0.043665011504316564,
]


def _von_mises_float64(T):
    kappa = T.tensor(VON_MISES_KAPPA, dtype=T.float64, requires_grad=True)
    d = T.distributions.VonMises(T.zeros(6, dtype=T.float64), kappa)
    log_prob = d.log_prob(T.full((6,), 0.3, dtype=T.float64))
    (grad,) = T.autograd.grad(log_prob.sum() + d.variance.sum(), kappa)
    return log_prob.tolist(), d.variance.tolist(), grad.tolist()


def _assert_von_mises(T):
    log_prob, variance, grad = _von_mises_float64(T)
    assert log_prob == pytest.approx(VON_MISES_LOG_PROB, rel=1e-13)
    assert variance == pytest.approx(VON_MISES_VARIANCE, rel=1e-13)
    assert grad == pytest.approx(VON_MISES_GRAD, rel=1e-12)


def test_von_mises_float64():
    _assert_von_mises(symgrad)


@pytest.mark.torch
def test_von_mises_float64_is_pytorchs():
    _assert_von_mises(pytest.importorskip("torch"))
