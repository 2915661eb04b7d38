"""The element-wise ops of :mod:`symgrad.ops.math_special` at the edges of their domains
(values, first and second derivatives at 0, -0.0, the poles, +-inf and nan), the exception
types of their misuse, and the module-level in-place functions: PyTorch's answers, stored as
plain numbers, then compared with PyTorch itself where it is installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

NAN, INF = float("nan"), float("inf")


def derivatives(fn, values, dtype=symgrad.float64, module=symgrad):
    """``fn``'s value and its first and second derivatives (of the sum) at ``values``."""
    x = module.tensor(values, dtype=getattr(module, str(dtype).split(".")[-1]), requires_grad=True)
    out = fn(module, x)
    (d1,) = module.autograd.grad(out.sum(), x, create_graph=True)
    # a constant derivative (deg2rad's) has no graph: its derivative is 0
    (d2,) = (module.zeros_like(x),) if d1.grad_fn is None else module.autograd.grad(d1.sum(), x)
    return [t.detach().numpy() for t in (out, d1, d2)]


def same(actual, expected, rtol=1e-6):
    """Equal up to ``rtol``, nan where nan, and zeros of the same sign."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.broadcast_to(np.asarray(expected, np.float64), actual.shape)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=0, equal_nan=True)
    zero = expected == 0
    np.testing.assert_array_equal(np.signbit(actual[zero]), np.signbit(expected[zero]))


# -- values and derivatives at the edges ---------------------------------------------------------
def test_acosh_derivative_is_one_over_sqrt_of_x_squared_minus_one():
    # PyTorch: grad * (x * x - 1).rsqrt(), so it is defined for x <= -1 too
    x = [-3.0, -2.0, -1.0, 1.0, 2.0, -INF, INF]
    value, d1, d2 = derivatives(lambda T, x: T.acosh(x), x)
    same(value, [NAN, NAN, NAN, 0.0, 1.3169578969248166, NAN, INF])
    same(d1, [0.35355339059327373, 0.5773502691896258, INF, INF, 0.5773502691896258, 0.0, 0.0])
    same(d2, [0.13258252147247765, 0.3849001794597505, INF, -INF, -0.3849001794597505, NAN, NAN])


def test_lgamma_at_the_infinities_and_signed_zeros():
    value, d1, d2 = derivatives(lambda T, x: T.lgamma(x), [-INF, INF, 0.0, -0.0])
    same(value, [INF, INF, INF, INF])
    same(d1, [NAN, INF, -INF, INF])  # digamma(+-0) is -+inf
    same(d2, [NAN, 0.0, INF, INF])


def test_digamma_at_signed_zeros_poles_and_infinities():
    x = [0.0, -0.0, -1.0, -2.0, -INF, INF, -1e10]
    value, d1, d2 = derivatives(lambda T, x: T.digamma(x), x)
    same(value, [-INF, INF, NAN, NAN, NAN, INF, NAN])
    # the trigamma reflection pi^2 / sin(pi x)^2 - trigamma(1 - x): sin(pi x) is not quite 0
    # at a negative integer, so PyTorch's trigamma there is large but finite
    same(d1, [INF, INF, 6.580790147320947e32, 1.6451975368302367e32, NAN, 0.0, 1968116675982.59])
    # polygamma(2, x) = -2 zeta(3, x): -inf at the poles, nan at +inf
    same(d2, [-INF, -INF, -INF, -INF, -INF, NAN, -INF])


def test_trigamma_reflection_in_float32():
    _, d1, _ = derivatives(lambda T, x: T.digamma(x), [-1.0, -2.0, 0.0], dtype=symgrad.float32)
    same(d1, [1.2913697e15, 3.2284242e14, INF], rtol=1e-5)


def test_erfinv_keeps_the_sign_of_zero():
    value, d1, d2 = derivatives(lambda T, x: T.erfinv(x), [-0.0, 0.0])
    same(value, [-0.0, 0.0])
    same(d1, [0.886226925452758, 0.886226925452758])
    same(d2, [-0.0, 0.0])


def test_atan2_gradient_is_zero_where_x_squared_plus_y_squared_is_zero():
    # PyTorch: 1 / (x^2 + y^2) taken as 0 where that sum is 0 (also where it underflows),
    # so the gradients are other * 0 and -self * 0, with those signs
    x = symgrad.tensor([0.0, 0.0, -0.0, -0.0, 1e-200, 2.3e-162, 1.0], dtype=symgrad.float64)
    y = symgrad.tensor([0.0, -0.0, 0.0, -0.0, 1e-200, 0.0, 0.0], dtype=symgrad.float64)
    x.requires_grad_()
    y.requires_grad_()
    symgrad.atan2(x, y).sum().backward()
    same(x.grad, [0.0, -0.0, 0.0, -0.0, 0.0, NAN, 0.0])
    same(y.grad, [-0.0, -0.0, 0.0, 0.0, -0.0, -INF, -1.0])


def test_xlogy_gradient_wrt_x_is_log_y_masked_where_x_is_0_and_y_is_not_positive():
    x = symgrad.tensor([0.0, 0.0, 0.0, 0.0, 0.0, 1.0], dtype=symgrad.float64, requires_grad=True)
    y = symgrad.tensor([0.5, 0.0, -1.0, INF, NAN, 2.0], dtype=symgrad.float64)
    symgrad.xlogy(x, y).sum().backward()
    same(x.grad, [math.log(0.5), 0.0, 0.0, INF, NAN, math.log(2.0)])
    # xlogy(grad, y): a zero incoming gradient gives 0, even where log(y) is infinite
    x.grad = None
    symgrad.xlogy(x, y).backward(symgrad.zeros(6, dtype=symgrad.float64))
    same(x.grad, [0.0, 0.0, 0.0, 0.0, NAN, 0.0])


@pytest.mark.parametrize(
    ("other", "expected"),
    [
        (0.5, [math.log(0.5), math.log(0.5), math.log(0.5)]),
        (0.0, [0.0, 0.0, -INF]),
        (-1.0, [0.0, 0.0, NAN]),
        (NAN, [0.0, 0.0, NAN]),
        (INF, [INF, INF, INF]),
    ],
)
def test_xlogy_of_a_number_other_masks_x_equal_0_only_where_other_is_not_positive(other, expected):
    x = symgrad.tensor([0.0, -0.0, 1.0], dtype=symgrad.float64, requires_grad=True)
    symgrad.xlogy(x, other).sum().backward()
    same(x.grad, expected)


def test_sinc_gradient_is_zero_where_pi_x_squared_underflows():
    x = symgrad.tensor([1e-170, -1e-170, 0.0], dtype=symgrad.float64, requires_grad=True)
    symgrad.sinc(x).sum().backward()
    same(x.grad, [0.0, 0.0, 0.0])  # PyTorch's where(x * x * pi == 0, 0, ...)


# -- the same against PyTorch, at every edge point -------------------------------------------
EDGES = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, -2.5, INF, -INF, NAN, 1e10, -1e10]
UNARY = (
    "asin acos atan sinh cosh asinh acosh atanh exp2 log2 log10 erfc erfinv lgamma digamma "
    "sinc deg2rad rad2deg"
).split()
# PyTorch's gradient there is masked by where/masked_fill: its own derivative, 0 * inf, is nan,
# where the derivative of the declared formula's zero branch is 0
MASKED_SECOND = {("sinc", 0.0), ("sinc", -0.0)}
# float32 second derivatives where x * x overflows: PyTorch's chain of grad / (x * x + 1)
# divides twice (-2e-30 at 1e10), the derived -2x / (x^2 + 1)^2 squares to inf first (-0.0)
OVERFLOW_SECOND = {("atan", 1e10), ("atan", -1e10), ("atanh", 1e10), ("atanh", -1e10)}


@pytest.mark.parametrize("name", UNARY)
def test_unary_edges_match_pytorch(name):
    torch = pytest.importorskip("torch")
    for dtype in ("float64", "float32"):
        ours = derivatives(lambda T, x: getattr(T, name)(x), EDGES, dtype=dtype)
        theirs = derivatives(lambda T, x: getattr(T, name)(x), EDGES, dtype=dtype, module=torch)
        # PyTorch's float32 digamma and trigamma are themselves only accurate to ~1e-6
        rtol = 1e-6 if dtype == "float64" else 2e-5
        skip = MASKED_SECOND | (OVERFLOW_SECOND if dtype == "float32" else set())
        for order, (a, b) in enumerate(zip(ours, theirs)):
            keep = [order < 2 or (name, v) not in skip for v in EDGES]
            same(a[keep], b[keep], rtol=rtol)


BINARY = {
    "atan2": lambda T, x, y: T.atan2(x, y),
    "hypot": lambda T, x, y: T.hypot(x, y),
    "logaddexp": lambda T, x, y: T.logaddexp(x, y),
    "xlogy": lambda T, x, y: T.xlogy(x, y),
    "copysign": lambda T, x, y: T.copysign(x, y),
    "lerp": lambda T, x, y: T.lerp(x, y, 0.3),
    "lerp_tensor_weight": lambda T, x, y: T.lerp(x, T.tensor(0.7, dtype=T.float64), y),
}


def first_and_second(module, fn, xs, ys):
    x = module.tensor(xs, dtype=module.float64, requires_grad=True)
    y = module.tensor(ys, dtype=module.float64, requires_grad=True)
    out = fn(module, x, y)
    grads = module.autograd.grad(out.sum(), (x, y), create_graph=True)
    result = [out] + list(grads)
    for g in grads:
        if g.grad_fn is None:
            result += [module.zeros_like(x), module.zeros_like(y)]
            continue
        second = module.autograd.grad(g.sum(), (x, y), retain_graph=True, allow_unused=True)
        result += [module.zeros_like(x) if s is None else s for s in second]
    return [t.detach().numpy() for t in result]


def _masked_second(name, x, y):
    """Where PyTorch's first derivative is masked (see MASKED_SECOND)."""
    if name == "atan2":
        return x == 0 and y == 0
    if name == "xlogy":
        return x == 0 and not y > 0
    return name == "copysign" and x == 0


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_edges_match_pytorch(name):
    torch = pytest.importorskip("torch")
    grid = [(x, y) for x in EDGES for y in EDGES]
    xs, ys = [p[0] for p in grid], [p[1] for p in grid]
    ours = first_and_second(symgrad, BINARY[name], xs, ys)
    theirs = first_and_second(torch, BINARY[name], xs, ys)
    keep = np.array([not _masked_second(name, x, y) for x, y in grid])
    for order, (a, b) in enumerate(zip(ours, theirs)):
        if order < 3:
            same(a, b)
        else:
            same(a[keep], b[keep])


# -- misuse: PyTorch's exception types -------------------------------------------------------
def _t(*values, dtype=None):
    return symgrad.tensor(list(values), dtype=dtype)


TYPE_ERRORS = {
    "atan2(number, t)": (
        lambda T: T.atan2(2.0, T.tensor([1.0])),
        "atan2\\(\\): argument 'input' \\(position 1\\) must be Tensor, not float",
    ),
    "arctan2(number, t)": (
        lambda T: T.arctan2(2, T.tensor([1.0])),
        "arctan2\\(\\): argument 'input' \\(position 1\\) must be Tensor, not int",
    ),
    "arctan2(t, number)": (
        lambda T: T.arctan2(T.tensor([1.0]), 2.0),
        "arctan2\\(\\): argument 'other' \\(position 2\\) must be Tensor, not float",
    ),
    "hypot(number, t)": (
        lambda T: T.hypot(2.0, T.tensor([1.0])),
        "hypot\\(\\): argument 'input' \\(position 1\\) must be Tensor, not float",
    ),
    "logaddexp(number, t)": (
        lambda T: T.logaddexp(2.0, T.tensor([1.0])),
        "logaddexp\\(\\): argument 'input' \\(position 1\\) must be Tensor, not float",
    ),
    "t.hypot(number)": (
        lambda T: T.tensor([1.0]).hypot(2.0),
        "hypot\\(\\): argument 'other' \\(position 1\\) must be Tensor, not float",
    ),
    "t.logaddexp(number)": (
        lambda T: T.tensor([1.0]).logaddexp(2),
        "logaddexp\\(\\): argument 'other' \\(position 1\\) must be Tensor, not int",
    ),
    "t.atan2_(number)": (
        lambda T: T.tensor([1.0]).atan2_(2.0),
        "atan2_\\(\\): argument 'other' \\(position 1\\) must be Tensor, not float",
    ),
    "t.arctan2_(number)": (
        lambda T: T.tensor([1.0]).arctan2_(2.0),
        "arctan2_\\(\\): argument 'other' \\(position 1\\) must be Tensor, not float",
    ),
    "copysign(number, t)": (
        lambda T: T.copysign(2.0, T.tensor([1.0])),
        "copysign\\(\\) received an invalid combination of arguments - got \\(float, Tensor\\)",
    ),
    "copysign(t, str)": (
        lambda T: T.copysign(T.tensor([1.0]), "a"),
        "copysign\\(\\) received an invalid combination of arguments - got \\(Tensor, str\\)",
    ),
    "xlogy(number, number)": (
        lambda T: T.xlogy(2.0, 3.0),
        "xlogy\\(\\) received an invalid combination of arguments - got \\(float, float\\)",
    ),
    "lerp(number, t, w)": (
        lambda T: T.lerp(2.0, T.tensor([1.0]), 0.5),
        "lerp\\(\\) received an invalid combination of arguments - got \\(float, Tensor, float\\)",
    ),
    "lerp(t, number, w)": (
        lambda T: T.lerp(T.tensor([1.0]), 2.0, 0.5),
        "lerp\\(\\) received an invalid combination of arguments - got \\(Tensor, float, float\\)",
    ),
    "lerp(t, t, str)": (
        lambda T: T.lerp(T.tensor([1.0]), T.tensor([1.0]), "a"),
        "lerp\\(\\) received an invalid combination of arguments - got \\(Tensor, Tensor, str\\)",
    ),
}

NOT_IMPLEMENTED = {
    "hypot(long, long)": (lambda T: T.hypot(T.tensor([1, 2]), T.tensor([3, 4])), "Long"),
    "hypot(bool, bool)": (lambda T: T.hypot(T.tensor([True]), T.tensor([False])), "Bool"),
    "logaddexp(long, long)": (lambda T: T.logaddexp(T.tensor([1]), T.tensor([3])), "Long"),
    "long.logaddexp(bool)": (lambda T: T.tensor([1]).logaddexp(T.tensor([True])), "Long"),
    "long.hypot_(long)": (lambda T: T.tensor([1]).hypot_(T.tensor([2])), "Long"),
    "lerp(long, long, number)": (
        lambda T: T.lerp(T.tensor([1]), T.tensor([2]), 0.5),
        "Long",
    ),
    "lerp(int, int, int)": (
        lambda T: T.lerp(
            T.tensor([1], dtype=T.int32), T.tensor([1], dtype=T.int32), T.tensor([1], dtype=T.int32)
        ),
        "Int",
    ),
    "long.lerp_(long, number)": (lambda T: T.tensor([1]).lerp_(T.tensor([1]), 0.5), "Long"),
}

RUNTIME_ERRORS = {
    "lerp end of another dtype": (
        lambda T: T.lerp(T.tensor([1.0]), T.tensor([1.0], dtype=T.float64), 0.5),
        "expected dtype float for `end` but got dtype double",
    ),
    "lerp 0-d end of another dtype": (
        lambda T: T.lerp(T.tensor([1.0], dtype=T.float64), T.tensor(1.0), 0.5),
        "expected dtype double for `end` but got dtype float",
    ),
    "lerp integer end": (
        lambda T: T.lerp(T.tensor([1.0]), T.tensor([1]), 0.5),
        "expected dtype float for `end` but got dtype long int",
    ),
    "lerp weight of another dtype": (
        lambda T: T.lerp(T.tensor([1.0]), T.tensor([2.0]), T.tensor([1])),
        "expected dtype float for `weight` but got dtype long int",
    ),
}


@pytest.mark.parametrize("case", sorted(TYPE_ERRORS))
def test_type_errors(case):
    fn, message = TYPE_ERRORS[case]
    with pytest.raises(TypeError, match=message):
        fn(symgrad)


@pytest.mark.parametrize("case", sorted(NOT_IMPLEMENTED))
def test_integer_inputs_are_not_implemented(case):
    fn, name = NOT_IMPLEMENTED[case]
    with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
        fn(symgrad)


@pytest.mark.parametrize("case", sorted(RUNTIME_ERRORS))
def test_lerp_dtypes_must_match(case):
    fn, message = RUNTIME_ERRORS[case]
    with pytest.raises(RuntimeError, match=message):
        fn(symgrad)


def test_what_pytorch_accepts_still_works():
    # a 0-d weight may have any dtype; a float and an integer tensor promote
    x, end = _t(1.0, 2.0), _t(3.0, 4.0)
    assert symgrad.lerp(x, end, symgrad.tensor(0.5, dtype=symgrad.float64)).tolist() == [2.0, 3.0]
    assert symgrad.lerp(x, end, symgrad.tensor(1)).tolist() == [3.0, 4.0]
    same(symgrad.hypot(_t(3, 4), _t(4.0, 3.0)), [5.0, 5.0])
    same(symgrad.logaddexp(_t(0), _t(0.0)), [math.log(2.0)])
    same(symgrad.atan2(_t(1), _t(1)), [math.pi / 4])  # atan2 takes integers
    same(symgrad.copysign(_t(1, 2), -1), [-1.0, -2.0])
    same(symgrad.xlogy(2, _t(1.0)), [0.0])


@pytest.mark.parametrize(
    "table", [TYPE_ERRORS, NOT_IMPLEMENTED, RUNTIME_ERRORS], ids=["type", "impl", "runtime"]
)
def test_the_same_errors_in_pytorch(table):
    torch = pytest.importorskip("torch")
    kind = {id(TYPE_ERRORS): TypeError, id(NOT_IMPLEMENTED): NotImplementedError}.get(
        id(table), RuntimeError
    )
    for fn, _ in table.values():
        with pytest.raises(kind):
            fn(torch)
        with pytest.raises(kind):
            fn(symgrad)


def test_tensor_methods_are_pytorchs():
    torch = pytest.importorskip("torch")
    ours = {n for n in dir(symgrad.Tensor) if not n.startswith("_")}
    assert not hasattr(symgrad.Tensor, "logaddexp_")
    assert sorted(n for n in ours if not hasattr(torch.Tensor, n)) == []


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "arcsinh", "arccosh", "arctanh"])
def test_in_place_inverse_hyperbolic_functions_have_no_derivative(name):
    # PyTorch records AsinhBackward1 (its in-place node) and refuses to differentiate it
    base = {"arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}.get(name, name)
    x = symgrad.tensor([1.5, 2.0], requires_grad=True)
    y = x * 0.5 + (1.0 if base == "acosh" else 0.0)
    assert getattr(y, f"{name}_")() is y
    assert y.grad_fn.name() == f"{base.capitalize()}Backward1"
    with pytest.raises(
        NotImplementedError, match=f"the derivative for 'inplace version of {base}'"
    ):
        y.sum().backward()
    # without a graph it is just the values
    z = symgrad.tensor([1.5 if base == "acosh" else 0.5])
    getattr(z, f"{name}_")()
    same(z, getattr(np, f"arc{base[1:]}")(np.float32(0.5 + (base == "acosh"))))
    # nor a forward-mode rule
    import symgrad.autograd.forward_ad as fwad

    with fwad.dual_level():
        dual = fwad.make_dual(symgrad.tensor([0.5]), symgrad.ones(1)) * 1
        with pytest.raises(NotImplementedError, match=f"forward AD with {base}_"):
            getattr(dual, f"{name}_")()


# -- module-level in-place functions ---------------------------------------------------------
def _tensor_arg(*values):
    return lambda T: T.tensor(list(values))


# name -> (input values, the other arguments built with the module T)
IN_PLACE_FUNCTIONS = {
    "as_strided_": ([0.25, 0.5, 0.75], lambda T: ((2,), (1,), 1)),
    "logit_": ([0.25, 0.5, 0.75], lambda T: ()),
    "i0_": ([0.25, -0.5, 2.0], lambda T: ()),
    "ldexp_": ([0.25, -0.5, 2.0], lambda T: (T.tensor([1.0, 2.0, -1.0]),)),
    "acosh_": ([1.25, 1.5, 2.0], lambda T: ()),
    "arccosh_": ([1.25, 1.5, 2.0], lambda T: ()),
    "addmv_": ([0.25, 0.5, 0.75], lambda T: (T.ones(3, 2), T.tensor([0.5, -1.0]))),
    "celu_": ([-0.25, 0.5, -0.75], lambda T: (2.0,)),
    "selu_": ([-0.25, 0.5, -0.75], lambda T: ()),
    "clamp_": ([0.25, 0.5, 0.75], lambda T: (0.3, 0.6)),
    "clip_": ([0.25, 0.5, 0.75], lambda T: (0.3, 0.6)),
    "clamp_min_": ([0.25, 0.5, 0.75], lambda T: (0.3,)),
    "clamp_max_": ([0.25, 0.5, 0.75], lambda T: (0.6,)),
    "fill_": ([0.25, 0.5, 0.75], lambda T: (1.5,)),
    "index_put_": ([0.25, 0.5, 0.75], lambda T: ((T.tensor([0, 2]),), T.tensor([1.0, 2.0]))),
    "xlogy_": ([0.25, 0.5, 0.75], lambda T: (T.tensor([2.0, 3.0, 4.0]),)),
    "nan_to_num_": ([0.25, 0.5, 0.75], lambda T: ()),
}
UNARY_IN_PLACE = (
    "abs_ acos_ arccos_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ ceil_ cos_ "
    "cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ expm1_ fix_ floor_ frac_ log10_ log1p_ log2_ "
    "log_ neg_ negative_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ "
    "sqrt_ square_ tan_ tanh_ trunc_ zero_ conj_physical_"
).split()
for _name in UNARY_IN_PLACE:
    IN_PLACE_FUNCTIONS.setdefault(_name, ([0.25, 0.5, 0.75], lambda T: ()))


def _run_in_place(module, name):
    values, others = IN_PLACE_FUNCTIONS[name]
    leaf = module.tensor(values, dtype=module.float64, requires_grad=True)
    x = leaf * 1
    version = x._version
    result = getattr(module, name)(x, *(_as64(module, a) for a in others(module)))
    node = None if x.grad_fn is None else type(x.grad_fn).__name__
    try:
        x.sum().backward()
        grad = None if leaf.grad is None else leaf.grad.numpy()
    except (NotImplementedError, RuntimeError) as e:
        grad = type(e).__name__
    return result is x, x.detach().numpy(), node, x._version - version, grad


def _as64(module, a):
    if isinstance(a, module.Tensor) and a.dtype == module.float32:
        return a.to(module.float64)
    return a


def test_every_in_place_function_of_pytorch_for_an_op_symgrad_has():
    torch = pytest.importorskip("torch")
    names = {n for n in dir(torch) if n.endswith("_") and not n.startswith("_")}
    ours = {n for n in names if hasattr(symgrad, n)}
    # the functional ones with ATen's signatures (dropout_, rrelu_) are tested with the others
    # of symgrad._aten_functions
    aten = {n for n in symgrad._aten_functions.__all__ if n.endswith("_")}
    # the integer-only ones (no gradient to check) are tested in test_number_parts
    integer = {"gcd_", "lcm_"}
    # tested in tests/ops/test_tensor_misc.py and tests/test_misc_toplevel.py
    others = {"resize_as_", "embedding_renorm_"}
    assert ours == set(IN_PLACE_FUNCTIONS) | aten | integer | others
    # what is left out: ops symgrad does not have
    for n in names - ours:
        assert not hasattr(symgrad, n[:-1]) and not hasattr(symgrad.Tensor, n), n


@pytest.mark.parametrize("name", sorted(IN_PLACE_FUNCTIONS))
def test_in_place_function_is_the_method(name):
    returned, values, node, bumps, grad = _run_in_place(symgrad, name)
    assert returned
    assert bumps == (0 if name == "detach_" else 1)
    if name != "detach_":
        assert node is not None and node.endswith(("Backward0", "Backward1", "Backward2"))
    with pytest.raises(TypeError, match=f"{name}\\(\\): argument 'input' \\(position 1\\)"):
        getattr(symgrad, name)(2.0)


@pytest.mark.parametrize("name", sorted(IN_PLACE_FUNCTIONS))
def test_in_place_function_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    ours, theirs = _run_in_place(symgrad, name), _run_in_place(torch, name)
    assert ours[0] == theirs[0]
    same(ours[1], theirs[1])
    assert ours[2:4] == theirs[2:4]
    if isinstance(theirs[4], str) or theirs[4] is None:
        assert ours[4] == theirs[4]
    else:
        same(ours[4], theirs[4])
    with pytest.raises(TypeError):
        getattr(torch, name)(2.0)


def test_in_place_function_on_an_integer_tensor():
    x = symgrad.tensor([-1, 2])
    assert symgrad.relu_(x) is x and x.tolist() == [0, 2] and x._version == 1
    with pytest.raises(RuntimeError, match="can't be cast"):
        symgrad.sqrt_(symgrad.tensor([1, 4]))
