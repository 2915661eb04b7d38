"""Families computed in PyTorch's own steps, where another correct formula gives other
gradients, nodes, draws or errors: each case runs the same code with ``T`` either symgrad or
torch and is reduced to plain data (values, dtype, grad_fn name, gradients, or the exception's
type), checked for symgrad always and for PyTorch when it is installed."""

from __future__ import annotations

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
}

test_symgrad, test_table_is_pytorchs = table_tests(CASES)
