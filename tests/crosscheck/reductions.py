"""Reductions and softmax."""

from __future__ import annotations

from crosscheck.spec import F, V, program

# -- reductions ---------------------------------------------------------------------------------


@program(F(2, 3, 4), float32=True)
def sum_all(T, x):
    return x.sum()


@program(F(2, 3, 4), second_order=True)
def sum_dims(T, x):
    return x.sum(1, keepdim=True) * 2 + x.sum((0, -1), keepdim=True)


@program(F(2, 3, 4), float32=True)
def mean_dims(T, x):
    return T.mean(x, dim=(-1, 0)) + x.mean(1, keepdim=True).mean()


@program(F(2, 3, lo=0.5, hi=1.5), second_order=True)
def prod_all(T, x):
    return x.prod()


@program(F(3, 4, lo=-1.5, hi=1.5), second_order=True)
def prod_dim(T, x):
    return T.prod(x, -1, keepdim=True)


@program(V([[2.0, 0.0, 3.0], [1.0, 2.0, -1.0]]))
def prod_with_zero(T, x):
    return x.prod(1)


@program(V([2.0, 0.0, 3.0, 0.0]))
def prod_two_zeros(T, x):
    return x.prod()


@program(F(3, 4))
def max_all(T, x):
    return x.max() + T.min(x)


@program(V([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]))
def max_all_ties(T, x):
    return x.max() + x.min()


@program(F(3, 4))
def max_dim_values_indices(T, x):
    return x.max(1)


@program(F())
def max_of_0d_along_dim_0(T, x):
    return list(T.max(x, 0))


@program(F(3, 4))
def min_dim_keepdim(T, x):
    values, indices = T.min(x, dim=-2, keepdim=True)
    return values, indices


@program(V([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]))
def max_dim_ties(T, x):
    """PyTorch sends the gradient to the one index it returns."""
    return x.max(dim=1)


@program(V([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]))
def amax_ties(T, x):
    """amax shares the gradient among ties."""
    return T.amax(x, dim=1)


@program(F(2, 3, 4))
def amax_amin_dims(T, x):
    return x.amax((0, 2)) + T.amin(x, -1, keepdim=True).sum(-1)


@program(F(3, 4), second_order=True, float32=True)
def var_default(T, x):
    return x.var()


@program(F(3, 4), second_order=True)
def var_dim_keepdim(T, x):
    return T.var(x, 1, keepdim=True)


@program(F(3, 4))
def var_biased(T, x):
    return x.var(0, unbiased=False) + x.var(dim=-1, correction=0).sum()


@program(F(3, 4), second_order=True)
def std_dims(T, x):
    return x.std(-1) + T.std(x)


@program(F(2, 3, 4), second_order=True, float32=True)
def logsumexp_dims(T, x):
    return T.logsumexp(x, (0, 2)) + x.logsumexp(-1, keepdim=True).sum(-1)


@program(F(2, 3), second_order=True)
def norm_default(T, x):
    return x.norm()


@program(F(2, 3, 4))
def norm_dims(T, x):
    return T.norm(x, dim=-1) + x.norm(2, (0, 2), keepdim=True).sum(-1)


@program(F(2, 3), second_order=True)
def norm_p1(T, x):
    return x.norm(p=1, dim=1)


@program(F(2, 3), second_order=True)
def norm_inf(T, x):
    return x.norm(float("inf"))


@program(V([[1.0, -3.0, 3.0], [2.0, -2.0, 0.0]]))
def norm_inf_ties(T, x):
    return T.norm(x, float("inf"), dim=1) + T.norm(x, float("-inf"), dim=0).sum()


@program(F(2, 3))
def norm_p0(T, x):
    return x.norm(0)


@program(F(2, 3), second_order=True)
def norm_p3(T, x):
    return x.norm(p=3, dim=0)


@program(F(2, 3, lo=0.2, hi=2.0), second_order=True)
def norm_fractional_and_negative_p(T, x):
    return x.norm(p=0.5, dim=1) + x.norm(p=1.5, dim=1) + x.norm(p=-1, dim=1)


@program(V([[0.0, 0.0], [1.0, -2.0]]))
def norm_p3_at_zero(T, x):
    return x.norm(3, dim=1, keepdim=True)


# -- softmax ------------------------------------------------------------------------------------


@program(F(3, 4), second_order=True, float32=True)
def softmax_last(T, x):
    return T.softmax(x, dim=-1)


@program(F(3, 4), second_order=True)
def log_softmax_first(T, x):
    return x.log_softmax(0)


@program(F(2, 3, 4))
def softmax_functional_middle(T, x):
    f = T.nn.functional
    return f.softmax(x, dim=1) * f.log_softmax(x, dim=1)
