"""Arithmetic, the element-wise ops, and their values at extremes, kinks and special points."""

from __future__ import annotations

from crosscheck.spec import PROGRAMS, C, F, I, Program, V, program

# -- arithmetic, broadcasting, reflected scalars --------------------------------------------------


@program(F(2, 3), F(3), float32=True)
def add_broadcast(T, x, y):
    return x + y


@program(F(2, 1, 3), F(4, 1))
def mul_broadcast(T, x, y):
    return x * y


@program(F(3, 1), F(1, 4, lo=0.5, hi=2.0), second_order=True)
def div_broadcast(T, x, y):
    return x / y


@program(F(2, 3), F(3))
def sub_alpha(T, x, y):
    return T.sub(x, y, alpha=2.5)


@program(F(2, 3), F(2, 3))
def add_alpha_method(T, x, y):
    return x.add(y, alpha=-0.5)


@program(F(4))
def neg(T, x):
    return -x


@program(F(4))
def rsub_scalar(T, x):
    return 2.0 - x


@program(F(4, lo=0.5, hi=2.0), second_order=True)
def rdiv_scalar(T, x):
    """PyTorch computes ``3.0 / x`` as ``x.reciprocal() * 3.0`` (MulBackward0)."""
    return 3.0 / x


@program(F(4), second_order=True)
def rpow_scalar(T, x):
    return 2.0**x


@program(F(2, 3), float32=True)
def scalar_chain(T, x):
    """Python ints and floats on both sides of every operator."""
    return ((1 + x) * 2 - 0.5) / 4 + 3 * x


@program(F(2, 2), F(2, 2), second_order=True)
def product_rule(T, x, y):
    return (x * y + x / (y * y + 1)).sum()


# -- element-wise ops ---------------------------------------------------------------------------

_UNARY = {
    "exp": (lambda T, x: T.exp(x), -2, 2),
    "log": (lambda T, x: x.log(), 0.2, 3),
    "log1p": (lambda T, x: T.log1p(x), -0.8, 3),
    "expm1": (lambda T, x: x.expm1(), -2, 2),
    "sqrt": (lambda T, x: T.sqrt(x), 0.2, 3),
    "rsqrt": (lambda T, x: x.rsqrt(), 0.2, 3),
    "abs": (lambda T, x: T.abs(x), -2, 2),
    "sign": (lambda T, x: x.sign() * x, -2, 2),
    "sin": (lambda T, x: T.sin(x), -3, 3),
    "cos": (lambda T, x: x.cos(), -3, 3),
    "tan": (lambda T, x: T.tan(x), -1.2, 1.2),
    "tanh": (lambda T, x: x.tanh(), -3, 3),
    "sigmoid": (lambda T, x: T.sigmoid(x), -4, 4),
    "relu": (lambda T, x: T.relu(x), -2, 2),
    "leaky_relu": (lambda T, x: T.nn.functional.leaky_relu(x, 0.2), -2, 2),
    "elu": (lambda T, x: T.nn.functional.elu(x, alpha=0.7), -2, 2),
    "softplus": (lambda T, x: T.nn.functional.softplus(x), -3, 3),
    "softplus_beta_threshold": (
        lambda T, x: T.nn.functional.softplus(x, beta=2.0, threshold=3.0),
        -3,
        3,
    ),
    "gelu": (lambda T, x: T.nn.functional.gelu(x), -3, 3),
    "gelu_tanh": (lambda T, x: T.nn.functional.gelu(x, approximate="tanh"), -3, 3),
    "erf": (lambda T, x: T.erf(x), -2, 2),
    "reciprocal": (lambda T, x: x.reciprocal(), 0.3, 2),
    "square": (lambda T, x: T.square(x), -2, 2),
    "pow_int": (lambda T, x: x**3, -2, 2),
    "pow_fractional": (lambda T, x: T.pow(x, 1.5), 0.2, 2),
    "pow_negative": (lambda T, x: x.pow(-2.5), 0.3, 2),
    "clamp": (lambda T, x: T.clamp(x, -0.5, 1.0), -2, 2),
    "clamp_min": (lambda T, x: x.clamp(min=0.3), -2, 2),
    "clamp_max": (lambda T, x: x.clamp(max=-0.1), -2, 2),
}

_UNARY_XFAIL: dict = {}

_FLOAT32_UNARY = {"exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "gelu", "erf", "pow_int"}

for _name, (_fn, _lo, _hi) in _UNARY.items():
    PROGRAMS.append(
        Program(
            _name,
            _fn,
            (F(2, 3, lo=_lo, hi=_hi),),
            second_order=True,
            float32=_name in _FLOAT32_UNARY,
            xfail=_UNARY_XFAIL.get(_name, {}),
        )
    )


@program(F(2, 3, lo=0.3, hi=2.0), F(3, lo=-1.0, hi=2.0), second_order=True)
def pow_tensor_exponent(T, x, y):
    return T.pow(x, y)


@program(F(2, 3), F(3), second_order=True)
def maximum_minimum(T, x, y):
    return T.maximum(x, y) * 2 + T.minimum(x, y)


@program(V([1.0, 2.0, 3.0, -1.0]), V([1.0, 0.5, 3.0, -1.0]))
def maximum_ties(T, x, y):
    """Ties share the gradient half and half."""
    return T.maximum(x, y) + 3 * T.minimum(x, y)


@program(F(2, 3), F(2, 3), C(2, 3))
def where_condition(T, x, y, c):
    return T.where(c > 0, x * 2, y)


@program(F(2, 3))
def where_scalar_other(T, x):
    return T.where(x > 0, x, 0.0)


@program(V([-1.0, 0.0, 2.0]))
def relu_at_zero(T, x):
    return T.relu(x)


@program(V([-1.0, 0.0, 2.0]))
def abs_at_zero(T, x):
    return x.abs()


@program(V([-1.0, 0.0, 0.5, 1.0, 2.0]))
def clamp_at_bounds(T, x):
    return x.clamp(0.0, 1.0)


@program(V([-1.0, 0.0, 2.0]))
def leaky_relu_elu_at_zero(T, x):
    f = T.nn.functional
    return f.leaky_relu(x, 0.1) + f.elu(x)


@program(F(2, 3), F(3, lo=-1.0, hi=-0.2), F(3, lo=0.2, hi=1.0), composite=True)
def clamp_tensor_bounds(T, x, lo, hi):
    return T.clamp(x, lo, hi)


@program(
    V([-1.0, 0.0, 0.5, 1.0, 2.0]),
    V([0.0, 0.0, 0.0, -1.0, 0.0]),
    V([1.0, 1.0, 1.0, 1.0, 2.0]),
    composite=True,
)
def clamp_tensor_bounds_ties(T, x, lo, hi):
    """On a tie with a tensor bound, PyTorch gives the whole gradient to the input."""
    return x.clamp(lo, hi)


# -- extremes, kinks and special values -----------------------------------------------------------


@program(V([1000.0, 1000.5, -1000.0, 3.0]), second_order=True)
def logsumexp_large(T, x):
    return T.logsumexp(x, 0)


@program(V([[1000.0, -1000.0, 0.0], [-5.0, 800.0, 799.0]]))
def log_softmax_large(T, x):
    return T.log_softmax(x, dim=1)


@program(V([1000.0, -1000.0, 0.0, 30.0, -30.0]))
def sigmoid_softplus_extremes(T, x):
    return T.sigmoid(x) + T.nn.functional.softplus(x)


@program(V([[1000.0, -1000.0], [-1000.0, 1000.0]]), C(values=[[1.0, 0.0], [1.0, 0.0]]))
def bce_with_logits_extremes(T, x, t):
    return T.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="none")


@program(V([[1000.0, -1000.0, 0.0], [0.0, 0.0, 1e4]]), I([1, 2]))
def cross_entropy_extremes(T, x, y):
    return T.nn.functional.cross_entropy(x, y, reduction="none")


@program(V([0.0, 1.0, 0.5, 1e-9]), C(values=[1.0, 0.0, 0.5, 1.0]))
def bce_at_zero_and_one(T, p, t):
    """Logs are clamped at -100, the gradient's denominator at 1e-12."""
    return T.nn.functional.binary_cross_entropy(p, t, reduction="none")


@program(V([[0.0, 0.0, 0.0], [1.0, -2.0, 2.0]]))
def norm_of_zero_row(T, x):
    return x.norm(dim=1)


@program(V([0.0, 1.0, 4.0]))
def sqrt_at_zero(T, x):
    return x.sqrt()


@program(V([0.0, 1.0, -1.0]))
def log_and_reciprocal_at_zero(T, x):
    return T.log(x.abs()) + 1 / x


@program(V([0.0, 0.0, 2.0, -1.5]), V([2.0, 0.0, 0.0, 2.0]))
def pow_at_zero(T, x, y):
    return x**y


@program(V([0.0, 0.0, 2.0]))
def pow_scalar_exponents_at_zero(T, x):
    return x**0 + x**1 + x**0.5 * 0 + x**2


@program(V([-1.0, 4.0, -9.0]))
def where_nan_in_unselected_branch(T, x):
    """0 * nan: the masked-out sqrt of a negative number still poisons the gradient."""
    return T.where(x > 0, x.sqrt(), 0.0)


@program(V([[1.0, 2.0], [3.0, 4.0]]))
def var_of_single_element(T, x):
    return x[:, :1].var(1)
