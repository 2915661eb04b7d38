"""The graphs of distributions' results, node by node as PyTorch records them: attributes,
log_prob, KL divergences and transforms computed in PyTorch's steps and order. Each case runs
the same code with ``T`` either symgrad or torch and is reduced to the names of the nodes,
level by level from the result, checked for symgrad always and for PyTorch when it is
installed."""

from __future__ import annotations

from _torch_table import table_tests


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


CASES: dict = {
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
    "softplus_inverse_nodes": (
        _nodes(lambda D, y: D.SoftplusTransform().inv(y), [0.3, 1.6], depth=3),
        (("AddBackward0",), ("LogBackward0", "AccumulateGrad"), ("NegBackward0",)),
    ),
    "stick_breaking_log_det_nodes": (
        _nodes(
            lambda D, x: D.StickBreakingTransform().log_abs_det_jacobian(
                x, D.StickBreakingTransform()(x)
            ),
            [0.3, -0.6],
            depth=4,
        ),
        (
            ("SumBackward1",),
            ("AddBackward0",),
            ("AddBackward0", "LogBackward0"),
            ("NegBackward0", "LogSigmoidBackward0", "SliceBackward0"),
        ),
    ),
    "lower_cholesky_nodes": (
        _nodes(lambda D, x: D.LowerCholeskyTransform()(x), [[0.5, 0.1], [0.3, 0.7]], depth=3),
        (
            ("AddBackward0",),
            ("TrilBackward0", "DiagEmbedBackward0"),
            ("AccumulateGrad", "ExpBackward0"),
        ),
    ),
    "positive_definite_inverse_nodes": (
        _nodes(
            lambda D, x: D.PositiveDefiniteTransform().inv(x), [[2.0, 0.1], [0.1, 0.7]], depth=3
        ),
        (
            ("AddBackward0",),
            ("TrilBackward0", "DiagEmbedBackward0"),
            ("LinalgCholeskyExBackward0", "LogBackward0"),
        ),
    ),
    "corr_cholesky_log_det_nodes": (
        _nodes(
            lambda D, x: D.CorrCholeskyTransform().log_abs_det_jacobian(
                x, D.CorrCholeskyTransform()(x)
            ),
            [0.5, -0.2, 0.3],
            depth=4,
        ),
        (
            ("AddBackward0",),
            ("MulBackward0", "MulBackward0"),
            ("SumBackward1", None, "SumBackward1", None),
            ("LogBackward0", "SubBackward0"),
        ),
    ),
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
