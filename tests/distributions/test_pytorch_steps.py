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


def _chain(t, depth=3):
    """The node names of ``t``'s graph, level by level, to ``depth`` levels (None for an edge
    to nothing)."""
    levels, frontier = [], [t.grad_fn]
    for _ in range(depth):
        levels.append(tuple(None if n is None else type(n).__name__ for n in frontier))
        frontier = [m for n in frontier if n is not None for m, _ in n.next_functions]
        if not frontier:
            break
    return tuple(levels)


def _nodes(make, *params, depth=3):
    """The node chain of ``make(distributions, *leaves)``, the leaves float32 tensors."""

    def run(T):
        T.manual_seed(0)
        leaves = [T.tensor(p, requires_grad=True) for p in params]
        return _chain(make(T.distributions, *leaves), depth)

    return run


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
    # -- attributes computed in PyTorch's order: the same nodes and edges
    "gumbel_log_prob_nodes": (
        _nodes(lambda D, m, s: D.Gumbel(m, s).log_prob(m.detach() + 1), [0.5], [2.0]),
        (
            ("SubBackward0",),
            ("SubBackward0", "LogBackward0"),
            ("DivBackward0", "ExpBackward0", "AccumulateGrad"),
        ),
    ),
    "log_normal_variance_nodes": (
        _nodes(lambda D, m, s: D.LogNormal(m, s).variance, [0.5], [2.0]),
        (("MulBackward0",), ("Expm1Backward0", "ExpBackward0"), ("PowBackward0", "AddBackward0")),
    ),
    "kumaraswamy_mode_nodes": (
        _nodes(lambda D, a, b: D.Kumaraswamy(a, b).mode, [0.5, 2.0], [2.0, 3.0]),
        (("ExpBackward0",), ("IndexPutBackward0",), ("SubBackward0", None)),
    ),
    "pareto_mean_nodes": (
        _nodes(lambda D, s, a: D.Pareto(s, a).mean, [1.0], [3.0]),
        (
            ("DivBackward0",),
            ("MulBackward0", "SubBackward0"),
            ("ClampBackward1", "AccumulateGrad", "ClampBackward1", None),
        ),
    ),
    "pareto_variance_nodes": (
        _nodes(lambda D, s, a: D.Pareto(s, a).variance, [1.0], [3.0]),
        (
            ("DivBackward0",),
            ("MulBackward0", "MulBackward0"),
            ("PowBackward0", "ClampBackward1", "PowBackward0", "SubBackward0"),
        ),
    ),
    "pareto_entropy_nodes": (
        _nodes(lambda D, s, a: D.Pareto(s, a).entropy(), [1.0], [3.0]),
        (
            ("AddBackward0",),
            ("LogBackward0", "AddBackward0"),
            ("DivBackward0", "ReciprocalBackward0", None),
        ),
    ),
    "weibull_variance_nodes": (
        _nodes(lambda D, s, k: D.Weibull(s, k).variance, [1.0], [3.0]),
        (
            ("MulBackward0",),
            ("PowBackward0", "SubBackward0"),
            ("AccumulateGrad", "ExpBackward0", "ExpBackward0"),
        ),
    ),
    "weibull_entropy_nodes": (
        _nodes(lambda D, s, k: D.Weibull(s, k).entropy(), [1.0], [3.0]),
        (("AddBackward0",), ("AddBackward0", None), ("MulBackward0", "LogBackward0")),
    ),
    "fisher_mean_nodes": (
        _nodes(lambda D, a, b: D.FisherSnedecor(a, b).mean, [1.0, 2.0], [3.0, 1.5]),
        (
            ("DivBackward0",),
            ("IndexPutBackward0", "SubBackward0"),
            ("CloneBackward0", None, "IndexPutBackward0", None),
        ),
    ),
    "fisher_variance_nodes": (
        _nodes(lambda D, a, b: D.FisherSnedecor(a, b).variance, [1.0, 2.0], [5.0, 1.5]),
        (
            ("DivBackward0",),
            ("MulBackward0", "MulBackward0"),
            ("MulBackward0", "SubBackward0", "MulBackward0", "SubBackward0"),
        ),
    ),
    "fisher_rsample_nodes": (
        _nodes(lambda D, a, b: D.FisherSnedecor(a, b).rsample(), [1.0, 2.0], [5.0, 1.5]),
        (("ClampBackward1",), ("DivBackward0",), ("ViewBackward0", "AsStridedBackward0")),
    ),
    "studentt_variance_nodes": (
        _nodes(lambda D, df, s: D.StudentT(df, 0.0, s).variance, [0.5, 1.5, 4.0], [2.0, 1.0, 3.0]),
        (("IndexPutBackward0",), ("IndexPutBackward0", None), ("IndexPutBackward0", None)),
    ),
    "generalized_pareto_entropy_nodes": (
        _nodes(lambda D, s, c: D.GeneralizedPareto(0.0, s, c).entropy(), [1.0], [0.5]),
        (("ExpandBackward0",), ("AddBackward0",), ("AddBackward0", None)),
    ),
    "logistic_normal_rsample_nodes": (
        _nodes(lambda D, m, s: D.LogisticNormal(m, s).rsample(), [0.5, 1.0], [2.0, 1.0]),
        (
            ("MulBackward0",),
            ("ConstantPadNdBackward0", "ConstantPadNdBackward0"),
            ("ClampBackward1", "CumprodBackward0"),
        ),
    ),
    "wishart_mode_nodes": (
        _nodes(lambda D, df: D.Wishart(df, scale_tril=df.new_ones(2).diag()).mode, [1.5, 4.0]),
        (("MulBackward0",), ("ViewBackward0", None), ("IndexPutBackward0",)),
    ),
    "categorical_entropy_nodes": (
        _nodes(lambda D, x: D.Categorical(logits=x).entropy(), [[0.5, -1.0, 2.0]], depth=4),
        (
            ("NegBackward0",),
            ("SumBackward1",),
            ("MulBackward0",),
            ("ClampBackward1", "SoftmaxBackward0"),
        ),
    ),
    "geometric_log_prob_nodes": (
        _nodes(lambda D, p: D.Geometric(p).log_prob(p.detach() * 0 + 2), [0.3, 1.0], depth=6),
        (
            ("AddBackward0",),
            ("MulBackward0", "LogBackward0"),
            (None, "Log1PBackward0", "AccumulateGrad"),
            ("NegBackward0",),
            ("IndexPutBackward0",),
            ("CloneBackward0", None),
        ),
    ),
    "relaxed_bernoulli_rsample_nodes": (
        _nodes(
            lambda D, p: D.RelaxedBernoulli(p.detach() * 0 + 0.5, probs=p).rsample(),
            [0.3, 0.8],
            depth=6,
        ),
        (
            ("ClampBackward1",),
            ("SigmoidBackward0",),
            ("DivBackward0",),
            ("SubBackward0", None),
            ("AddBackward0", "Log1PBackward0"),
            (None, "LogBackward0", "NegBackward0"),
        ),
    ),
    "mvn_log_prob_nodes": (
        _nodes(
            lambda D, m, L: D.MultivariateNormal(m, scale_tril=L).log_prob(
                m.detach().expand(3, 2, 2) + 1
            ),
            [0.5, 1.0],
            [[[1.0, 0.0], [0.3, 2.0]], [[2.0, 0.0], [0.1, 0.5]]],
            depth=7,
        ),
        (
            ("SubBackward0",),
            ("MulBackward0", "SumBackward1"),
            ("AddBackward0", None, "LogBackward0"),
            ("ReshapeAliasBackward0", None, "DiagonalBackward0"),
            ("PermuteBackward0", "AccumulateGrad"),
            ("ReshapeAliasBackward0",),
            ("TBackward0",),
        ),
    ),
    "mvn_precision_scale_tril_nodes": (
        _nodes(
            lambda D, P: D.MultivariateNormal(P.detach()[0] * 0, precision_matrix=P).scale_tril,
            [[2.0, 0.3], [0.3, 1.0]],
            depth=6,
        ),
        (
            ("ExpandBackward0",),
            ("LinalgSolveTriangularBackward0",),
            ("TransposeBackward0", None),
            ("FlipBackward0",),
            ("LinalgCholeskyExBackward0",),
            ("FlipBackward0",),
        ),
    ),
    "weibull_mean_nodes": (
        _nodes(lambda D, s, k: D.Weibull(s, k).mean, [1.0], [3.0], depth=5),
        (
            ("MulBackward0",),
            ("AccumulateGrad", "ExpBackward0"),
            ("LgammaBackward0",),
            ("AddBackward0",),
            ("ReciprocalBackward0", None),
        ),
    ),
    "kl_normal_gumbel_nodes": (
        _nodes(
            lambda D, m, s: D.kl_divergence(D.Normal(m, s), D.Gumbel(m * 0 + 1, s * 2)),
            [0.5],
            [2.0],
            depth=4,
        ),
        (
            ("SubBackward0",),
            ("AddBackward0", None),
            ("AddBackward0", "ExpBackward0"),
            ("NegBackward0", "SubBackward0", "AddBackward0"),
        ),
    ),
    "kl_pareto_pareto_nodes": (
        _nodes(
            lambda D, s, a: D.kl_divergence(D.Pareto(s, a), D.Pareto(s * 0.5, a * 2)),
            [1.0],
            [3.0],
            depth=4,
        ),
        (
            ("IndexPutBackward0",),
            ("SubBackward0", None),
            ("AddBackward0", None),
            ("AddBackward0", "DivBackward0"),
        ),
    ),
    "kl_mvn_mvn_nodes": (
        _nodes(
            lambda D, m, L: D.kl_divergence(
                D.MultivariateNormal(m, scale_tril=L),
                D.MultivariateNormal(m * 0, scale_tril=L.detach() * 2),
            ),
            [0.5, 1.0],
            [[1.0, 0.0], [0.3, 2.0]],
            depth=6,
        ),
        (
            ("AddBackward0",),
            ("SubBackward0", "MulBackward0"),
            (None, "SumBackward1", "SubBackward0", None),
            ("LogBackward0", "AddBackward0", None),
            ("DiagonalBackward0", "ViewBackward0", "ViewBackward0"),
            ("AccumulateGrad", "SumBackward1", "PermuteBackward0"),
        ),
    ),
    "lowrank_log_prob_nodes": (
        _nodes(
            lambda D, m, W, d: D.LowRankMultivariateNormal(m, W, d).log_prob(m.detach() + 1),
            [0.5, 1.0],
            [[1.0], [0.3]],
            [1.0, 2.0],
            depth=6,
        ),
        (
            ("MulBackward0",),
            ("AddBackward0", None),
            ("AddBackward0", "SubBackward0"),
            ("AddBackward0", None, "SumBackward1", "ViewBackward0"),
            ("MulBackward0", "SumBackward1", "DivBackward0", "PermuteBackward0"),
            (
                "SumBackward1",
                None,
                "LogBackward0",
                "PowBackward0",
                "AccumulateGrad",
                "ViewBackward0",
            ),
        ),
    ),
    "multinomial_log_prob_nodes": (
        _nodes(
            lambda D, p: D.Multinomial(3, probs=p).log_prob(p.detach().new_tensor([2.0, 1.0, 0.0])),
            [0.2, 0.8, 0.0],
            depth=6,
        ),
        (
            ("AddBackward0",),
            (None, "SumBackward1"),
            ("MulBackward0",),
            ("IndexPutBackward0", None),
            ("CloneBackward0", None),
            ("LogBackward0",),
        ),
    ),
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
