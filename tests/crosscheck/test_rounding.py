"""floor, ceil, round (with decimals), trunc/fix, frac and sign: values, node names, gradients,
straight-through estimators, double backward, in place, integer and bool tensors, errors and
closed forms.

Every case keeps its expected values (PyTorch 2.13's) so that it runs without PyTorch; the
``torch``-marked tests check the same expectations against PyTorch when it is installed, and
compare many random values with it exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symgrad
from symgrad.symbolic import expression, gradient, hessian, lambdify

NAN, INF = float("nan"), float("inf")

# halves and integers (round's ties and the others' steps), quarters (exact fractions), signed 0
X = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.75, 1.25, -2.0, -0.0]
SPECIAL = [INF, -INF, NAN, -0.4, 2.0]


def f64(T, values):
    return T.tensor(values, dtype=T.float64)


# (name, fn(T) -> tensor, expected values, expected dtype): -0.0 and 0.0 are told apart
VALUES = [
    ("floor", lambda T: f64(T, X).floor(), [-3, -2, -1, 0, 1, 2, -2, 1, -2, -0.0], "float64"),
    ("ceil", lambda T: T.ceil(f64(T, X)), [-2, -1, -0.0, 1, 2, 3, -1, 2, -2, -0.0], "float64"),
    ("round", lambda T: f64(T, X).round(), [-2, -2, -0.0, 0, 2, 2, -2, 1, -2, -0.0], "float64"),
    ("trunc", lambda T: T.trunc(f64(T, X)), [-2, -1, -0.0, 0, 1, 2, -1, 1, -2, -0.0], "float64"),
    ("fix", lambda T: f64(T, X).fix(), [-2, -1, -0.0, 0, 1, 2, -1, 1, -2, -0.0], "float64"),
    (
        "frac",
        lambda T: T.frac(f64(T, X)),
        [-0.5, -0.5, -0.5, 0.5, 0.5, 0.5, -0.75, 0.25, 0.0, 0.0],
        "float64",
    ),
    ("sign", lambda T: f64(T, X).sign(), [-1, -1, -1, 1, 1, 1, -1, 1, -1, 0.0], "float64"),
    ("floor_special", lambda T: f64(T, SPECIAL).floor(), [INF, -INF, NAN, -1, 2], "float64"),
    ("ceil_special", lambda T: f64(T, SPECIAL).ceil(), [INF, -INF, NAN, -0.0, 2], "float64"),
    ("round_special", lambda T: f64(T, SPECIAL).round(), [INF, -INF, NAN, -0.0, 2], "float64"),
    ("trunc_special", lambda T: f64(T, SPECIAL).trunc(), [INF, -INF, NAN, -0.0, 2], "float64"),
    ("frac_special", lambda T: f64(T, SPECIAL).frac(), [NAN, NAN, NAN, -0.4, 0.0], "float64"),
    ("sign_special", lambda T: f64(T, SPECIAL).sign(), [1, -1, 0.0, -1, 1], "float64"),
    # integers come back unchanged, also beyond 2**53; bool's sign is itself
    ("int_floor", lambda T: T.tensor([1, -2, 3]).floor(), [1, -2, 3], "int64"),
    ("int_ceil", lambda T: T.ceil(T.tensor([1, -2, 3])), [1, -2, 3], "int64"),
    ("int_round", lambda T: T.tensor([1, -2, 3]).round(), [1, -2, 3], "int64"),
    ("int_trunc", lambda T: T.tensor([2**60 + 1]).trunc(), [2**60 + 1], "int64"),
    ("int_sign", lambda T: T.tensor([5, -2, 0]).sign(), [1, -1, 0], "int64"),
    ("bool_sign", lambda T: T.tensor([True, False]).sign(), [True, False], "bool"),
    ("float32_floor", lambda T: T.tensor([-0.5, 1.5]).floor(), [-1, 1], "float32"),
    (
        "float16_round",
        lambda T: T.tensor([0.5, 1.5, 2.5], dtype=T.float16).round(),
        [0, 2, 2],
        "float16",
    ),
]


# to decimals: rint(x * 10**d) / 10**d (rint(x / 10**-d) * 10**-d for d < 0), in the input's
# dtype: (values, dtype, decimals, expected)
DECIMALS = [
    ([0.295, -0.575, 1.55, 0.125], "float32", 2, [0.29, -0.58, 1.55, 0.12]),
    ([0.295, -0.575, 1.55, 0.125], "float64", 2, [0.3, -0.57, 1.55, 0.12]),
    ([1.55, -1.55, 0.25, 0.35, -0.04], "float64", 1, [1.6, -1.6, 0.2, 0.4, -0.0]),
    ([15.0, 25.0, -25.0, 1234.5678, 4.9, -0.4], "float64", -1, [20, 20, -20, 1230, 0, -0.0]),
    ([150.0, 250.0, -250.0, 1234.5678], "float64", -2, [200, 200, -200, 1200]),
    (X, "float64", 0, [-2, -2, -0.0, 0, 2, 2, -2, 1, -2, -0.0]),
    ([1.5, -1.5], "float64", 400, [NAN, NAN]),  # 10**400 is inf, and inf / inf nan
    ([1.5, -1.5], "float64", -400, [NAN, NAN]),  # 0 * inf
    ([1.5], "float32", 39, [NAN]),  # 10**39 overflows float32, not float64
    ([1.5], "float64", 39, [1.5]),
]
VALUES += [
    (
        f"round_decimals_{decimals}_{dtype}_{k}",
        lambda T, v=v, dtype=dtype, decimals=decimals: T.round(
            T.tensor(v, dtype=getattr(T, dtype)), decimals=decimals
        ),
        expected,
        dtype,
    )
    for k, (v, dtype, decimals, expected) in enumerate(DECIMALS)
]


def _dtype(t) -> str:
    return str(t.dtype).split(".")[-1]


def _assert_values(out, expected, dtype) -> None:
    assert _dtype(out) == dtype
    got = out.detach().numpy()
    want = np.array(expected, dtype=got.dtype)
    np.testing.assert_array_equal(got, want)
    if got.dtype.kind == "f":
        _assert_same_signs(got, want)


def _assert_same_signs(got, want) -> None:
    """-0.0 and 0.0 told apart (NaN's sign bit is not PyTorch's promise)."""
    numbers = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


@pytest.mark.parametrize("name, fn, expected, dtype", VALUES, ids=[c[0] for c in VALUES])
def test_values(name, fn, expected, dtype):
    _assert_values(fn(symgrad), expected, dtype)


# (name, fn(T, x) -> tensor, PyTorch's node name)
NODES = [
    ("floor", lambda T, x: x.floor(), "FloorBackward0"),
    ("ceil", lambda T, x: T.ceil(x), "CeilBackward0"),
    ("round", lambda T, x: T.round(x), "RoundBackward0"),
    ("round_decimals", lambda T, x: x.round(decimals=2), "RoundBackward1"),
    ("round_decimals_0", lambda T, x: T.round(x, decimals=0), "RoundBackward1"),
    ("trunc", lambda T, x: x.trunc(), "TruncBackward0"),
    ("fix", lambda T, x: T.fix(x), "TruncBackward0"),
    ("frac", lambda T, x: x.frac(), "FracBackward0"),
    ("sign", lambda T, x: x.sign(), "SignBackward0"),
    ("floor_", lambda T, x: (x * 1).floor_(), "FloorBackward0"),
    ("ceil_", lambda T, x: (x * 1).ceil_(), "CeilBackward0"),
    ("round_", lambda T, x: (x * 1).round_(), "RoundBackward0"),
    ("round_decimals_", lambda T, x: (x * 1).round_(decimals=1), "RoundBackward1"),
    ("trunc_", lambda T, x: (x * 1).trunc_(), "TruncBackward0"),
    ("fix_", lambda T, x: (x * 1).fix_(), "TruncBackward0"),
    ("frac_", lambda T, x: (x * 1).frac_(), "FracBackward0"),
    ("sign_", lambda T, x: (x * 1).sign_(), "SignBackward0"),
]


def _node_name(T, fn) -> str:
    x = T.tensor([0.25, -1.75], requires_grad=True)
    out = fn(T, x)
    assert out.requires_grad
    return type(out.grad_fn).__name__


@pytest.mark.parametrize("name, fn, expected", NODES, ids=[c[0] for c in NODES])
def test_node_names(name, fn, expected):
    assert _node_name(symgrad, fn) == expected


# (name, fn(T, x) -> scalar, x, expected gradient)
XG = [0.25, 1.75, -2.25, -0.5]
GRADS = [
    ("floor", lambda T, x: x.floor().sum(), XG, [0, 0, 0, 0]),
    ("ceil", lambda T, x: x.ceil().sum(), XG, [0, 0, 0, 0]),
    ("round", lambda T, x: x.round().sum(), XG, [0, 0, 0, 0]),
    ("round_decimals", lambda T, x: x.round(decimals=1).sum(), XG, [0, 0, 0, 0]),
    ("trunc", lambda T, x: x.trunc().sum(), XG, [0, 0, 0, 0]),
    ("frac", lambda T, x: x.frac().sum(), XG, [1, 1, 1, 1]),
    ("sign", lambda T, x: x.sign().sum(), XG, [0, 0, 0, 0]),
    ("floor_times_x", lambda T, x: (x.floor() * x).sum(), XG, [0, 1, -3, -1]),
    ("frac_squared", lambda T, x: (x.frac() ** 2).sum(), XG, [0.5, 1.5, -0.5, -1]),
    (
        "straight_through_round",
        lambda T, x: ((x + (x.round() - x).detach()) * f64(T, [1, 2, 3, 4])).sum(),
        XG,
        [1, 2, 3, 4],
    ),
    (
        "straight_through_floor_squared",
        lambda T, x: ((x + (x.floor() - x).detach()) ** 2).sum(),
        XG,
        [0, 2, -6, -2],
    ),
    ("frac_in_place", lambda T, x: (lambda y: (y.frac_() ** 2).sum())(x * 2), XG, [2, 2, -2, 0]),
    ("floor_in_place", lambda T, x: (lambda y: (y.floor_() * x).sum())(x * 1), XG, [0, 1, -3, -1]),
]


def _grad(T, fn, values):
    x = f64(T, values).requires_grad_()
    fn(T, x).backward()
    return x.grad


@pytest.mark.parametrize("name, fn, values, expected", GRADS, ids=[c[0] for c in GRADS])
def test_gradients(name, fn, values, expected):
    np.testing.assert_allclose(_grad(symgrad, fn, values).numpy(), expected, rtol=1e-15)


def test_straight_through_estimator_forwards_the_rounded_values():
    x = symgrad.tensor([0.4, 1.6, -2.5], requires_grad=True)
    y = x + (x.round() - x).detach()
    _assert_values(y, [0, 2, -2], "float32")
    assert type(y.grad_fn).__name__ == "AddBackward0"


def _second_order(T):
    """x.grad of (floor(x) * x**2).sum() with create_graph (2 x floor(x)), its own gradient
    (2 floor(x)), and the create_graph gradients of floor and frac alone."""
    x = f64(T, [0.25, 1.75, -2.25]).requires_grad_()
    (g,) = T.autograd.grad((x.floor() * x * x).sum(), x, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), x)
    (g_floor,) = T.autograd.grad(x.floor().sum(), x, create_graph=True)
    (g_frac,) = T.autograd.grad(x.frac().sum(), x, create_graph=True)
    return g, gg, g_floor, g_frac


def _check_second_order(T):
    g, gg, g_floor, g_frac = _second_order(T)
    np.testing.assert_allclose(g.detach().numpy(), [0.0, 3.5, 13.5])
    np.testing.assert_allclose(gg.numpy(), [0.0, 2.0, -6.0])
    # a zero (or identity) derivative gives a gradient that records nothing
    assert not g_floor.requires_grad and g_floor.grad_fn is None
    np.testing.assert_array_equal(g_floor.numpy(), [0.0, 0.0, 0.0])
    assert not g_frac.requires_grad
    np.testing.assert_array_equal(g_frac.numpy(), [1.0, 1.0, 1.0])


def test_double_backward():
    _check_second_order(symgrad)


def test_zero_derivative_adds_no_node_to_the_double_backward_graph():
    x = symgrad.tensor([0.25, 1.75], dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad((x.sign() * x * x).sum(), x, create_graph=True)
    seen, stack = set(), [g.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            stack.extend(fn for fn, _ in node.next_functions)
    assert "SignBackwardBackward0" not in {type(n).__name__ for n in seen}


def _integers_come_back_as_new_tensors(T):
    t = T.tensor([1, -2, 3])
    for op in ("floor", "ceil", "round", "trunc", "sign"):
        r = getattr(t, op)()
        assert r is not t and not r.requires_grad
        r[0] = 7
        assert t.tolist() == [1, -2, 3], op
    assert t.floor_() is t and t.tolist() == [1, -2, 3]


def test_integers_come_back_as_new_tensors():
    _integers_come_back_as_new_tensors(symgrad)


# (name, call(T), PyTorch's exception type)
ERRORS = [
    ("bool_floor", lambda T: T.tensor([True]).floor(), NotImplementedError),
    ("bool_ceil", lambda T: T.ceil(T.tensor([True])), NotImplementedError),
    ("bool_round", lambda T: T.tensor([True]).round(), NotImplementedError),
    ("bool_trunc", lambda T: T.tensor([True]).trunc(), NotImplementedError),
    ("bool_frac", lambda T: T.tensor([True]).frac(), NotImplementedError),
    ("int_frac", lambda T: T.frac(T.tensor([1, 2])), NotImplementedError),
    ("int_round_decimals", lambda T: T.tensor([1, 2]).round(decimals=1), NotImplementedError),
    ("int_round_decimals_0", lambda T: T.tensor([1, 2]).round(decimals=0), NotImplementedError),
    ("float_decimals", lambda T: T.tensor([1.5]).round(decimals=1.0), TypeError),
    ("bool_decimals", lambda T: T.tensor([1.5]).round(decimals=True), TypeError),
    ("positional_decimals", lambda T: T.round(T.tensor([1.5]), 1), TypeError),
    ("positional_decimals_method", lambda T: T.tensor([1.5]).round(1), TypeError),
    ("leaf_floor_", lambda T: T.tensor([1.5], requires_grad=True).floor_(), RuntimeError),
    ("int_frac_", lambda T: T.tensor([1, 2]).frac_(), NotImplementedError),
    ("bool_floor_", lambda T: T.tensor([True]).floor_(), NotImplementedError),
    ("python_round", lambda T: round(T.tensor(2.5)), TypeError),
]


@pytest.mark.parametrize("name, call, expected", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors(name, call, expected):
    with pytest.raises(expected) as caught:
        call(symgrad)
    assert type(caught.value) is expected


def test_error_messages_say_what_to_do():
    with pytest.raises(NotImplementedError, match=r"floor is not implemented for bool.*float\(\)"):
        symgrad.tensor([True, False]).floor()
    with pytest.raises(TypeError, match="'decimals' must be int, not float"):
        symgrad.tensor([1.5]).round(decimals=1.5)


# -- closed forms: the derivative of a step is 0 there too ---------------------------------------


def test_closed_forms_show_the_steps_and_differentiate_them_to_zero():
    x = symgrad.tensor([1.25, -0.75], dtype=symgrad.float64, requires_grad=True, name="x")
    y = (x.floor() * x + x.frac() ** 2 + x.round(decimals=1) * x.ceil()).sum()
    text = str(expression(y))
    for part in ("floor(x[0])", "trunc(x[1])", "round(10*x[0])", "ceiling(x[1])"):
        assert part in text, text
    y.backward()
    exact = lambdify(gradient(y, x), [x])(x.detach().numpy())
    np.testing.assert_allclose(exact, x.grad.numpy(), rtol=1e-15)
    np.testing.assert_allclose(exact, [1 + 2 * 0.25, -1 + 2 * -0.75], rtol=1e-15)
    assert hessian(y, x) == sp.Matrix([[2, 0], [0, 2]])


def test_symbolic_round_is_half_to_even_and_trunc_toward_zero():
    from symgrad.prim import rounding

    halves = [sp.Rational(k, 2) for k in range(-7, 8, 2)]
    assert [rounding.round(h) for h in halves] == [-4, -2, -2, 0, 0, 2, 2, 4]
    assert [rounding.trunc(h) for h in halves] == [-3, -2, -1, 0, 0, 1, 2, 3]
    s = sp.Symbol("s", real=True)
    assert sp.diff(rounding.round(s) * s + rounding.trunc(s), s) == rounding.round(s)


# -- the expectations are PyTorch's ------------------------------------------------------------


@pytest.mark.torch
@pytest.mark.parametrize("name, fn, expected, dtype", VALUES, ids=[c[0] for c in VALUES])
def test_values_are_pytorchs(name, fn, expected, dtype):
    torch = pytest.importorskip("torch")
    _assert_values(fn(torch), expected, dtype)


@pytest.mark.torch
@pytest.mark.parametrize("name, fn, expected", NODES, ids=[c[0] for c in NODES])
def test_node_names_are_pytorchs(name, fn, expected):
    torch = pytest.importorskip("torch")
    assert _node_name(torch, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name, fn, values, expected", GRADS, ids=[c[0] for c in GRADS])
def test_gradients_are_pytorchs(name, fn, values, expected):
    torch = pytest.importorskip("torch")
    np.testing.assert_allclose(_grad(torch, fn, values).numpy(), expected, rtol=1e-15)


@pytest.mark.torch
def test_double_backward_and_integers_are_pytorchs():
    torch = pytest.importorskip("torch")
    _check_second_order(torch)
    _integers_come_back_as_new_tensors(torch)


@pytest.mark.torch
@pytest.mark.parametrize("name, call, expected", ERRORS, ids=[c[0] for c in ERRORS])
def test_errors_are_pytorchs(name, call, expected):
    torch = pytest.importorskip("torch")
    with pytest.raises(expected) as caught:
        call(torch)
    assert type(caught.value) is expected


def _random_values(dtype: str) -> np.ndarray:
    """Many values with three decimals (ties to every number of decimals up to 2), signed
    zeros and the special values."""
    rng = np.random.default_rng(5)
    v = np.round(rng.uniform(-60.0, 60.0, 4000), 3)
    v[:8] = [0.0, -0.0, INF, -INF, NAN, 0.5, -0.5, 2.5]
    return v.astype(dtype)


OPS = ["floor", "ceil", "round", "trunc", "frac", "sign"] + [
    f"round_decimals_{d}" for d in (-2, -1, 0, 1, 2, 3)
]


def _apply(T, op: str, t):
    if op.startswith("round_decimals_"):
        return t.round(decimals=int(op.rsplit("_", 1)[1]))
    return getattr(t, op)()


@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("op", OPS)
def test_random_values_equal_pytorchs_exactly(op, dtype):
    torch = pytest.importorskip("torch")
    v = _random_values(dtype)
    ours = _apply(symgrad, op, symgrad.tensor(v)).numpy()
    theirs = _apply(torch, op, torch.tensor(v)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)
    _assert_same_signs(ours, theirs)
