"""Values and gradients at the numerical edges (zeros, infinities, nan, overflow, underflow,
tiny and huge arguments) of element-wise ops and reductions, as PyTorch computes them.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values to 6 significant digits with the sign of zero kept, dtype, grad_fn name, gradients,
or the exception's type): the table holds the expected data, checked for symgrad always and
for PyTorch when it is installed.
"""

from __future__ import annotations

import math

import pytest
from _torch_table import run

INF, NAN = math.inf, "nan"
F32, F64 = "float32", "float64"


def _number(v: float) -> object:
    """``v`` to 6 significant digits; nan as ``'nan'``, ``-0.0`` as ``'-0'``."""
    if math.isnan(v):
        return NAN
    if v == 0:
        return "-0" if math.copysign(1.0, v) < 0 else 0.0
    return float(f"{v:.6g}")


def _grad(T, f, values, dtype="float32"):
    """``f(x)`` and the gradient of its sum with respect to ``x``."""
    x = T.tensor(values, dtype=getattr(T, dtype), requires_grad=True)
    out = f(T, x)
    (g,) = T.autograd.grad(out.sum(), x)
    return out, g


def _grad2(T, f, values, dtype="float32"):
    """``f(x)``'s gradient (recorded) and the gradient of that gradient's sum."""
    x = T.tensor(values, dtype=getattr(T, dtype), requires_grad=True)
    (g,) = T.autograd.grad(f(T, x).sum(), x, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), x)
    return g.detach(), gg


CASES = {
    # -- prod: PyTorch's gradient is result / input without zeros (nan at an infinite
    # element, 0 where the product underflowed); two zeros in a whole product give zeros
    "prod_infinite_element": (
        lambda T: _grad(T, lambda T, x: x.prod(), [1.0, INF, 2.0]),
        ((INF, F32, "ProdBackward0"), ([INF, NAN, INF], F32, None)),
    ),
    "prod_dim_infinite_element": (
        lambda T: _grad(T, lambda T, x: x.prod(1), [[1.0, INF, 2.0]]),
        (([INF], F32, "ProdBackward1"), ([[INF, NAN, INF]], F32, None)),
    ),
    "prod_underflow": (
        lambda T: _grad(T, lambda T, x: x.prod(), [1e-30, 1e-30, 1e30]),
        ((0.0, F32, "ProdBackward0"), ([0.0, 0.0, 0.0], F32, None)),
    ),
    "prod_two_zeros_and_inf": (
        lambda T: _grad(T, lambda T, x: x.prod(), [0.0, 0.0, INF]),
        ((NAN, F32, "ProdBackward0"), ([0.0, 0.0, 0.0], F32, None)),
    ),
    "prod_dim_two_zeros_and_inf": (
        lambda T: _grad(T, lambda T, x: x.prod(0), [0.0, 0.0, INF]),
        ((NAN, F32, "ProdBackward1"), ([NAN, NAN, 0.0], F32, None)),
    ),
    "prod_two_zeros_create_graph": (
        lambda T: _grad2(T, lambda T, x: x.prod(), [0.0, 0.0, INF])[0],
        ([NAN, NAN, 0.0], F32, None),
    ),
    "prod_one_zero": (
        lambda T: _grad(T, lambda T, x: x.prod(), [0.0, 3.0, 2.0]),
        ((0.0, F32, "ProdBackward0"), ([6.0, 0.0, 0.0], F32, None)),
    ),
    "prod_second_derivative": (
        lambda T: _grad2(T, lambda T, x: x.prod(1), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
        (
            ([[6.0, 3.0, 2.0], [30.0, 24.0, 20.0]], F32, None),
            ([[5.0, 4.0, 3.0], [11.0, 10.0, 9.0]], F32, None),
        ),
    ),
    # -- div: the denominator's gradient is -g * ((x / y) / y), with no y * y to overflow
    "div_denominator_huge": (
        lambda T: _grad(T, lambda T, y: T.tensor([1e30, 3e38]) / y, [1e30, 3e38]),
        (([1.0, 1.0], F32, "DivBackward0"), ([-1e-30, -3.33333e-39], F32, None)),
    ),
    "div_denominator_tiny": (
        lambda T: _grad(T, lambda T, y: T.tensor([1e-30, 1e-20]) / y, [1e-30, 1e-20]),
        (([1.0, 1.0], F32, "DivBackward0"), ([-1e30, -1e20], F32, None)),
    ),
    "softsign_huge": (
        lambda T: _grad(T, lambda T, x: T.nn.functional.softsign(x), [1e30, -1e30]),
        (([1.0, -1.0], F32, "DivBackward0"), ([0.0, 0.0], F32, None)),
    ),
    # -- i1, i1e: PyTorch's gradient is 1/2 where |x| is not above epsilon (and at nan)
    "i1_tiny": (
        lambda T: _grad(T, lambda T, x: T.special.i1(x), [1e-45, -1e-40, 1e-8, 0.0, math.nan])[1],
        ([0.5, 0.5, 0.5, 0.5, 0.5], F32, None),
    ),
    "i1e_tiny": (
        lambda T: _grad(T, lambda T, x: T.special.i1e(x), [1e-45, 1e-40, 1e-300], F64)[1],
        ([0.5, 0.5, 0.5], F64, None),
    ),
    "i1_second_derivative_tiny": (
        lambda T: _grad2(T, lambda T, x: T.special.i1(x), [1e-45, 1e-30, 0.0, 1.0]),
        (([0.5, 0.5, 0.5, 0.700907], F32, None), ([0.0, 0.0, 0.0, 0.429411], F32, None)),
    ),
    "i1e_second_derivative_tiny": (
        lambda T: _grad2(T, lambda T, x: T.special.i1e(x), [1e-310, 2.0], F64),
        (([0.5, -0.0143956], F64, None), ([0.0, -0.0178283], F64, None)),
    ),
    # -- zeta: q = -inf is a pole (inf), not an error
    "zeta_q_minus_inf": (
        lambda T: T.special.zeta(T.tensor([2.0, 0.5, 1.0]), T.tensor([-INF, -INF, -1e30])),
        ([INF, NAN, INF], F32, None),
    ),
    # -- igammac for a small a: PyTorch's direct series, not 1 - P (rounding noise, even < 0)
    "igammac_small_a": (
        lambda T: T.igammac(
            T.tensor([1e-300, 1.2e-20, 1e-16, 1e-10], dtype=T.float64),
            T.tensor([0.3, 0.901, 0.6, 1.05], dtype=T.float64),
        ),
        ([1.48289e-300, 1.00434e-20, 1.03160e-16, 2.01873e-11], F64, None),
    ),
    # -- pow: the base's gradient is 0 where the exponent is 0, whatever the incoming gradient
    "pow_zero_exponent_nan_gradient": (
        lambda T: _pow_masked(T),
        (([0.0, 0.0, 0.0], F32, None), ([0.0, 0.0, 0.0], F32, None), ([NAN, NAN, NAN], F32, None)),
    ),
    "pow_second_derivative_negative_base": (
        lambda T: _pow_exponent_gradient_by_base(T),
        ([-2.0, -0.5, -0.25], F32, None),
    ),
    # -- binary_cross_entropy_with_logits under create_graph: PyTorch's (sigmoid(x) - y) g,
    # whose derivative is sigmoid's (not 0 - 1 / 1 = nan or a rounding error at large -x)
    "bce_logits_second_derivative": (
        lambda T: _bce_logits_second(T, None),
        (
            ([-0.5, -0.5, -0.5, 0.5], F64, "MulBackward0"),
            ([0.0, 1.3839e-87, 1.92875e-22, 0.0], F64, None),
        ),
    ),
    "bce_logits_pos_weight_second_derivative": (
        lambda T: _bce_logits_second(T, T.tensor([2.0, 0.5, 1.0, 3.0], dtype=T.float64)),
        (
            ([-1.0, -0.25, -0.5, 0.5], F64, "MulBackward0"),
            ([0.0, 1.03792e-87, 1.92875e-22, 0.0], F64, None),
        ),
    ),
    # -- xlogy, xlog1py: the mixed second derivative is 1 / y also where x is 0 (PyTorch's
    # formulas: xlogy(g, y) masked, and g x / y), and a zero gradient passes through log1p(-1)
    "xlogy_mixed_second_derivative": (
        lambda T: _mixed_second(T, T.xlogy, [0.0, 2.0, 0.0], [1e-300, 3.0, -1.0]),
        ([1e300, 0.333333, "-0"], F64, None),
    ),
    "xlog1py_mixed_second_derivative": (
        lambda T: _mixed_second(T, T.special.xlog1py, [0.0, 2.0, 0.0], [1e-300, 3.0, -2.0]),
        ([1.0, 0.25, "-0"], F64, None),
    ),
    "xlog1py_zero_gradient": (
        lambda T: _grad(
            T,
            lambda T, x: T.special.xlog1py(x, T.tensor([-1.0, 1.0])) * T.tensor([0.0, 1.0]),
            [1.0, 2.0],
        )[1],
        ([0.0, 0.693147], F32, None),
    ),
    # -- histc of data holding nan or inf: PyTorch's RuntimeError (not NumPy's ValueError)
    "histc_nan": (lambda T: T.histc(T.tensor([1.0, math.nan, 2.0])), ("raises", "RuntimeError")),
    "histc_inf": (lambda T: T.histc(T.tensor([1.0, INF])), ("raises", "RuntimeError")),
    "histc_nan_bound": (
        lambda T: T.histc(T.tensor([1.0]), min=math.nan, max=1.0),
        ("raises", "RuntimeError"),
    ),
    "histc_nan_inside_range": (
        lambda T: T.histc(T.tensor([1.0, math.nan, INF]), bins=3, min=0, max=3),
        ([0.0, 1.0, 0.0], F32, None),
    ),
    # -- quantile: PyTorch's nodes (sort, view, gather, lerp, squeeze_), a row with a NaN
    # reads (and passes its gradient to) its last sorted element; float and double only
    "quantile_nan_row": (
        lambda T: _grad(
            T, lambda T, x: T.quantile(x, 0.5, dim=1), [[1.0, 5.0, 3.0], [4.0, math.nan, 0.0]]
        ),
        (([3.0, NAN], F32, "SqueezeBackward4"), ([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]], F32, None)),
    ),
    "quantile_levels_keepdim": (
        lambda T: _grad(
            T,
            lambda T, x: T.quantile(x, T.tensor([0.25, 1.0]), dim=0, keepdim=True),
            [[1.0, 4.0], [3.0, 2.0], [0.0, 8.0]],
        ),
        (
            ([[[0.5, 3.0]], [[3.0, 8.0]]], F32, "SqueezeBackward4"),
            ([[0.5, 0.5], [1.0, 0.5], [0.5, 1.0]], F32, None),
        ),
    ),
    "nanquantile_midpoint": (
        lambda T: _grad(
            T,
            lambda T, x: T.nanquantile(x, 0.25, interpolation="midpoint"),
            [1.0, math.nan, 4.0, 2.0],
        ),
        ((1.5, F32, "SqueezeBackward4"), ([0.5, 0.0, 0.0, 0.5], F32, None)),
    ),
    "quantile_float16": (
        lambda T: T.quantile(T.tensor([1.0, 2.0], dtype=T.float16), 0.5),
        ("raises", "RuntimeError"),
    ),
    # -- running sums, products and log-sum-exps of float32 accumulate in float64 (PyTorch)
    "cumsum_float32_accumulates_in_float64": (
        lambda T: T.full((1000,), 0.1).cumsum(0)[-1:],
        ([100.0], F32, None),
    ),
    "cumsum_back_from_overflow": (
        lambda T: T.tensor([3e38, 3e38, -3e38]).cumsum(0),
        ([3e38, INF, 3e38], F32, None),
    ),
    "cumprod_back_from_underflow": (
        lambda T: _grad(
            T, lambda T, x: x.cumprod(0) * T.tensor([1.0, 2.0, 3.0, 4.0]), [1e-30, 1e-30, 1e30, 2.0]
        ),
        (([1e-30, 0.0, 3e-30, 8e-30], F32, "MulBackward0"), ([12.0, 11.0, 0.0, 4e-30], F32, None)),
    ),
    "cumprod_infinite_element": (
        lambda T: _grad(T, lambda T, x: x.cumprod(0), [2.0, INF, 3.0])[1],
        ([INF, NAN, INF], F32, None),
    ),
    "cumprod_nan_element": (
        lambda T: _grad(T, lambda T, x: x.cumprod(0), [1.0, math.nan, 2.0])[1],
        ([NAN, NAN, NAN], F32, None),
    ),
    "logcumsumexp_float32_accumulates_in_float64": (
        lambda T: T.linspace(-3.0, 3.0, 100000).logcumsumexp(0)[-1:],
        ([12.7187], F32, None),
    ),
    # -- var and std of float32 accumulate in float64: a std whose variance overflows float32
    "std_float32_variance_beyond_range": (
        lambda T: T.tensor([[6e4, 6e4, 1.0], [3e38, 3e38, 1.0]]).std(1),
        ([34640.4, 1.73205e38], F32, None),
    ),
    "std_mean_float32_variance_beyond_range": (
        lambda T: T.std_mean(T.tensor([[6e4, 6e4, 1.0], [3e38, 3e38, 1.0]]), 1)[0],
        ([34640.4, 1.73205e38], F32, None),
    ),
    # -- hardswish: PyTorch's x * min(max(x + 3, 0), 6) / 6 overflows for huge float32
    "hardswish_huge": (
        lambda T: T.nn.functional.hardswish(T.tensor([3e38, 5.8e37, 5.6e37, -3e38, -INF, 3.1])),
        ([INF, INF, 5.6e37, "-0", NAN, 3.1], F32, None),
    ),
    # -- gelu's float64 gradient far left is x * pdf (PyTorch sums the cdf, 0 there, first)
    "gelu_gradient_tail_float64": (
        lambda T: _grad(T, lambda T, x: T.nn.functional.gelu(x), [-10.0, -20.0, -38.0], F64)[1],
        ([-7.6946e-22, -1.10419e-86, -4.16944e-313], F64, None),
    ),
    # -- erfcx far right: PyTorch's closed forms, so 2 x erfcx(x) - 2 / sqrt(pi) cancels alike
    "erfcx_far_right": (
        lambda T: _grad2(T, lambda T, x: T.special.erfcx(x), [1e30, 1e5, 100.0], F64),
        (
            ([0.0, -5.64189e-11, -5.64105e-05], F64, None),
            ([1.12838e-30, 1.77552e-11, 1.12804e-06], F64, None),
        ),
    ),
    # -- flatten with nothing to merge returns the input itself (a leaf stays a leaf)
    "flatten_nothing_to_merge": (
        lambda T: (
            lambda x: (x.flatten() is x, T.flatten(x, 0, 0) is x, x.flatten().grad_fn is None)
        )(T.ones(3, requires_grad=True)),
        (True, True, True),
    ),
    "flatten_one_dim_of_many": (
        lambda T: (lambda y: (y.flatten(1) is y, y.flatten(0, 1).shape))(T.ones(2, 3) * 1),
        (True, (6,)),
    ),
    # -- ldexp's gradient is g * 2 ** other in other's dtype (PyTorch's): an integer power,
    # 0 for a negative exponent, wrapped past int64 (not NumPy's ValueError)
    "ldexp_integer_exponents": (
        lambda T: _grad(T, lambda T, x: T.ldexp(x, T.tensor([1, -1, 2, 63, -1100])), [1.0] * 5)[1],
        ([2.0, 0.0, 4.0, -9.22337e18, 0.0], F32, None),
    ),
    "ldexp_second_derivative": (
        lambda T: _grad2(T, lambda T, x: T.ldexp(x, T.tensor([1, -1, 2])) ** 2, [1.0] * 3)[1],
        ([8.0, 0.0, 32.0], F32, None),
    ),
    "ldexp_float_exponents": (
        lambda T: _grad(
            T, lambda T, x: T.ldexp(x, T.tensor([-1.0, 1000.0], dtype=T.float64)), [1.0, 1.0], F64
        )[1],
        ([0.5, 1.07151e301], F64, None),
    ),
    # -- bool tensors where PyTorch has no kernel: its exception types
    **{
        f"bool_{name}": (lambda T, f=f: f(T, T.tensor([True, False, True])), ("raises", kind))
        for name, f, kind in (
            ("abs", lambda T, x: x.abs(), "NotImplementedError"),
            ("abs_", lambda T, x: x.abs_(), "NotImplementedError"),
            ("argmax", lambda T, x: x.argmax(), "RuntimeError"),
            ("argmin", lambda T, x: T.argmin(x, 0), "RuntimeError"),
            ("median", lambda T, x: x.median(), "NotImplementedError"),
            ("median_dim", lambda T, x: x.median(0), "NotImplementedError"),
            ("kthvalue", lambda T, x: x.kthvalue(1), "NotImplementedError"),
            ("topk", lambda T, x: x.topk(1), "RuntimeError"),
            ("bincount", lambda T, x: T.bincount(x), "NotImplementedError"),
            ("trapezoid", lambda T, x: T.trapezoid(x), "RuntimeError"),
            ("trapezoid_x", lambda T, x: T.trapezoid(x.float(), x), "RuntimeError"),
            ("cumulative_trapezoid", lambda T, x: T.cumulative_trapezoid(x), "RuntimeError"),
        )
    },
}


def test_histc_message():
    import symgrad

    with pytest.raises(RuntimeError, match=r"torch.histc: range of \[1, inf\] is not finite"):
        symgrad.histc(symgrad.tensor([1.0, INF]))


def _mixed_second(T, f, xs, ys):
    """d/dy of f's gradient for x (summed)."""
    x = T.tensor(xs, dtype=T.float64, requires_grad=True)
    y = T.tensor(ys, dtype=T.float64, requires_grad=True)
    (gx,) = T.autograd.grad(f(x, y).sum(), x, create_graph=True)
    return T.autograd.grad(gx.sum(), y)[0]


def _bce_logits_second(T, pos_weight):
    x = T.tensor([-1e30, -200.0, -50.0, 1e30], dtype=T.float64, requires_grad=True)
    y = T.full((4,), 0.5, dtype=T.float64)
    loss = T.nn.functional.binary_cross_entropy_with_logits(
        x, y, reduction="sum", pos_weight=pos_weight
    )
    (g,) = T.autograd.grad(loss, x, create_graph=True)
    return g, T.autograd.grad(g.sum(), x)[0]


def _pow_masked(T):
    x = T.tensor([2.0, -1.0, 0.0], requires_grad=True)
    y = T.tensor([0.0, 0.0, 0.0], requires_grad=True)
    g = T.tensor([math.nan, math.inf, -math.inf])
    gx, gy = T.autograd.grad(T.pow(x, y), (x, y), g)
    return gx, T.autograd.grad(x**0, x, g)[0], gy


def _pow_exponent_gradient_by_base(T):
    """d/dx of d(x ** y)/dy = d/dx (x ** y log x): 1 / x at y = 0 for a negative x (the
    nan of log x reaches x ** y's own gradient only where that is masked to 0)."""
    x = T.tensor([-0.5, -2.0, -4.0], requires_grad=True)
    y = T.zeros(3, requires_grad=True)
    (gy,) = T.autograd.grad(T.pow(x, y).sum(), y, create_graph=True)
    return T.autograd.grad(gy.sum(), x)[0]


@pytest.mark.parametrize("name", list(CASES))
def test_symgrad(name):
    import symgrad

    fn, expected = CASES[name]
    assert run(symgrad, fn, _number) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert run(torch, fn, _number) == expected
