"""Families computed in PyTorch's own steps, where another correct formula gives other
gradients, nodes, draws or errors: each case runs the same code with ``T`` either symgrad or
torch and is reduced to plain data (values, dtype, grad_fn name, gradients, or the exception's
type), checked for symgrad always and for PyTorch when it is installed."""

from __future__ import annotations

import math
import warnings

from _torch_table import table_tests

F32 = "float32"


def _with_grads(T, make, *params):
    """``make(distributions, *leaves)`` and the gradients of its sum (0 where a leaf has
    none), the leaves float32."""
    leaves = [T.tensor(p, requires_grad=True) for p in params]
    out = make(T.distributions, *leaves)
    grads = T.autograd.grad(out.sum(), leaves, allow_unused=True)
    return (out, *(T.zeros_like(x) if g is None else g for x, g in zip(leaves, grads)))


# loc, scale, concentration: positive, 0 (the exponential limit) and -1 (bounded support)
GP = ([0.0, 1.0, 0.0], [1.0, 2.0, 1.0], [0.5, 0.0, -1.0])


def _gp(method, values):
    return lambda T: _with_grads(
        T,
        lambda D, *p: getattr(D.GeneralizedPareto(*p), method)(T.tensor(values)),
        *GP,
    )


def _wishart(T, df, **matrix):
    return T.distributions.Wishart(T.tensor(df), **{k: T.tensor(m) for k, m in matrix.items()})


def _wishart_warnings(T):
    d = _wishart(T, 5.0, covariance_matrix=[[1.0, 0.0], [0.0, 1.0]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d.sample()
    return [str(w.message) for w in caught]


def _wishart_rsample(T):
    """A sample's gradient by the scale's Cholesky factor: the sample drawn again carries it."""
    tril = T.tensor([[1.0, 0.0], [0.5, 2.0]], requires_grad=True)
    d = T.distributions.Wishart(T.tensor(5.0), scale_tril=tril)
    T.manual_seed(3)
    x = d.rsample()
    # (PyTorch writes the sample drawn again through a view, a CopySlices node)
    return x.detach(), T.autograd.grad(x.sum(), [tril])[0]


def _kl(T, family, p, q):
    """``kl_divergence`` of two distributions of ``family`` with float32 parameters ``p`` and
    ``q`` as leaves, with the KL's node and its edges, and the gradients."""
    pl, ql = T.tensor(p, requires_grad=True), T.tensor(q, requires_grad=True)
    D = T.distributions
    kl = D.kl_divergence(getattr(D, family)(probs=pl), getattr(D, family)(probs=ql))
    node = (type(kl.grad_fn).__name__, [type(n).__name__ for n, _ in kl.grad_fn.next_functions])
    return (node, kl, *T.autograd.grad(kl.sum(), [pl, ql]))


def _hashable(T):
    """Which transforms ``hash`` takes: none, as they define ``__eq__`` (constraints and
    distributions do not, and are hashed by identity)."""
    D = T.distributions
    made = {
        "affine": D.AffineTransform(1.0, 2.0),
        "exp": D.ExpTransform(),
        "exp_inverse": D.ExpTransform().inv,
        "compose": D.ComposeTransform([D.ExpTransform()]),
        "power": D.PowerTransform(2.0),
        "independent": D.IndependentTransform(D.ExpTransform(), 1),
        "identity": D.transforms.identity_transform,
        "positive": D.constraints.positive,
        "normal": D.Normal(0.0, 1.0),
    }
    found = []
    for name, made_object in made.items():
        try:
            hash(made_object)
        except TypeError:
            continue
        found.append(name)
    return found


COV = [[2.0, 0.3], [0.3, 1.0]]
TRIL3 = [[2.0, 0.0, 0.0], [0.3, 1.0, 0.0], [0.1, 0.2, 1.0]]

CASES: dict = {
    # -- GeneralizedPareto: at c = -1 the factor 1 / c + 1 is 0, yet passes c's gradient on
    "generalized_pareto_log_prob": (
        _gp("log_prob", [1.0, 2.0, 0.5]),
        (
            ([-1.2164, -1.1931, 0.0], F32, "SubBackward0"),
            ([1.0, 0.5, 0.0], F32, None),
            ([0.0, -0.25, -1.0], F32, None),
            ([-0.3781, 0.0, 1.0], F32, None),
        ),
    ),
    "generalized_pareto_icdf": (
        _gp("icdf", [0.3, 0.2, 0.5]),
        (
            ([0.3905, 1.4463, 0.5], F32, "WhereBackward0"),
            ([1.0, 1.0, 1.0], F32, None),
            ([0.3905, 0.2231, 0.5], F32, None),
            ([0.0717, 0.0, 0.1534], F32, None),
        ),
    ),
    "generalized_pareto_log_survival": (
        _gp("log_survival_function", [1.0, 2.0, 0.5]),
        (
            ([-0.8109, -0.5, -0.6931], F32, "WhereBackward0"),
            ([0.6667, 0.5, 2.0], F32, None),
            ([0.6667, 0.25, 1.0], F32, None),
            ([0.2885, 0.0, 0.3069], F32, None),
        ),
    ),
    # PyTorch compares a float64 concentration with its float32 0 (isclose's RuntimeError)
    "generalized_pareto_float64_log_prob": (
        lambda T: T.distributions.GeneralizedPareto(
            T.tensor([0.0], dtype=T.float64), 1.0, T.tensor([0.5], dtype=T.float64)
        ).log_prob(T.tensor([1.0], dtype=T.float64)),
        ("raises", "RuntimeError"),
    ),
    "generalized_pareto_float64_icdf": (
        lambda T: T.distributions.GeneralizedPareto(
            T.tensor([0.0], dtype=T.float64), 1.0, T.tensor([0.5], dtype=T.float64)
        ).icdf(T.tensor([0.3], dtype=T.float64)),
        ([0.3905], "float64", None),
    ),
    # -- KL of Bernoulli and Categorical pairs: PyTorch's masked assignments and their nodes
    "kl_categorical": (
        lambda T: _kl(T, "Categorical", [[0.0, 0.5, 0.5], [0.2, 0.8, 0.0]], [0.2, 0.0, 0.8]),
        (
            ("SumBackward1", ("IndexPutBackward0",)),
            ([math.inf, math.inf], F32, "SumBackward1"),
            ([[-0.265, -0.265, 0.265], [0.8, -0.2, -0.2]], F32, None),
            ([-0.3, 0.7, 0.075], F32, None),
        ),
    ),
    "kl_one_hot_categorical": (
        lambda T: _kl(T, "OneHotCategorical", [[0.1, 0.9]], [0.5, 0.5])[:2],
        (("SumBackward1", ("IndexPutBackward0",)), ([0.3681], F32, "SumBackward1")),
    ),
    "kl_bernoulli": (
        lambda T: _kl(T, "Bernoulli", [0.0, 0.5, 1.0, 0.3], [0.2, 0.0, 1.0, 1.0]),
        (
            ("AddBackward0", ("IndexPutBackward0", "IndexPutBackward0")),
            ([0.2231, math.inf, 0.0, math.inf], F32, "AddBackward0"),
            ([-0.2231, -0.3069, 0.0, -0.204], F32, None),
            ([1.25, 0.0, 0.0, 0.0], F32, None),
        ),
    ),
    # a mask of q's batch shape indexes p's rows, as PyTorch's: a row is infinite, or the
    # shapes do not fit (its IndexError)
    "kl_bernoulli_batch_rows": (
        lambda T: _kl(T, "Bernoulli", [[0.1, 0.5], [0.4, 0.3]], [0.0, 0.6])[1],
        ([[math.inf, math.inf], [5.7039, 0.1838]], F32, "AddBackward0"),
    ),
    "kl_bernoulli_batch_mismatch": (
        lambda T: _kl(T, "Bernoulli", [[0.1, 0.5, 0.3]], [0.0, 0.6, 0.1]),
        ("raises", "IndexError"),
    ),
    "transforms_unhashable": (_hashable, ("positive", "normal")),
    "multinomial_log_prob_impossible": (
        lambda T: _with_grads(
            T,
            lambda D, p: D.Multinomial(3, probs=p).log_prob(T.tensor([2.0, 1.0, 0.0])),
            [0.2, 0.8, 0.0],
        ),
        ((-2.3434, F32, "AddBackward0"), ([7.0, -1.75, -3.0], F32, None)),
    ),
    # -- Wishart: PyTorch's Bartlett draws (one normal per entry below the diagonal), and
    # PyTorch 2.13 draws again each sample its support check accepts, warning
    "wishart_sample": (
        lambda T: (
            T.manual_seed(7),
            _wishart(T, 3.5, covariance_matrix=COV).sample((2,)),
        )[1],
        (
            [[[7.3177, 6.4524], [6.4524, 7.6946]], [[14.8033, 5.8797], [5.8797, 13.478]]],
            F32,
            None,
        ),
    ),
    "wishart_sample_batch": (
        lambda T: (
            T.manual_seed(1),
            _wishart(T, [3.0, 4.5], scale_tril=[TRIL3]).sample(),
        )[1],
        (
            [
                [[5.3994, 1.0661, -4.928], [1.0661, 0.2117, -0.9514], [-4.928, -0.9514, 4.9216]],
                [[10.6152, 1.1417, 3.1482], [1.1417, 4.0507, 0.6332], [3.1482, 0.6332, 1.4734]],
            ],
            F32,
            None,
        ),
    ),
    "wishart_warns": (_wishart_warnings, ("Singular sample detected.",)),
    "wishart_rsample": (
        _wishart_rsample,
        (
            ([[1.4245, 1.7002], [1.7002, 7.8741]], F32, None),
            ([[6.2493, 8.0119], [6.2493, 8.0119]], F32, None),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
