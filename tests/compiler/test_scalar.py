"""``symgrad.compile``'s scalar programs (one-element values, on Python floats and ``math``): the
eager values and gradients for every element-wise primitive, at ordinary and at edge values
(where the math functions raise and the NumPy program answers), in float64 and float32."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad.autograd import grad
from symgrad.ops.elementwise import REGISTRY

EDGES = [0.0, -0.0, 1e-300, -7.5, 800.0, -800.0, np.inf, -np.inf, np.nan]
CASES = [(name, params) for name in sorted(REGISTRY) for params in REGISTRY[name].domain.params]


def _points(prim, params, rng) -> list[list[float]]:
    """Rows of input values: a few from the primitive's domain, then edge values."""
    names = tuple(str(x) for x in prim.inputs)
    columns = prim.domain.sample(names, rng, (4,))
    rows = [[float(np.asarray(c).reshape(-1)[k]) for c in columns] for k in range(4)]
    for e in EDGES:
        rows.append([e if i == 0 else float(r) for i, r in enumerate(rows[0])])
        rows.append([float(r) if i == 0 else e for i, r in enumerate(rows[0])])
    return rows


def _value_and_grads(fn, row, dtype):
    xs = [symgrad.tensor([v], dtype=dtype, requires_grad=True) for v in row]
    out = fn(*xs)
    weight = symgrad.tensor([0.75], dtype=out.dtype)
    if not out.requires_grad:
        return out.detach().numpy(), []
    gs = grad([out], xs, [weight], allow_unused=True)
    return out.detach().numpy(), [None if g is None else g.numpy() for g in gs]


def _same(a, b, rtol):
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=rtol, atol=0, equal_nan=True)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("name", "params"), CASES, ids=[f"{n}{p}" for n, p in CASES])
def test_every_elementwise_primitive_gives_the_eager_results_on_floats(name, params, dtype):
    prim = REGISTRY[name]
    dtype = getattr(symgrad, dtype)
    # float32: the math kernels compute in float64 and round each result once; NumPy's float32
    # kernels may be a unit in the last place off the correctly rounded value
    rtol = 1e-12 if dtype == symgrad.float64 else 1e-6

    def fn(*xs):
        return prim(*xs, params=params)

    compiled = symgrad.compile(fn)
    rows = _points(prim, params, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for row in rows:
            try:
                eager_value, eager_grads = _value_and_grads(fn, row, dtype)
            except Exception as error:  # noqa: BLE001 - outside the op's domain: the same error
                with pytest.raises(type(error)):
                    _value_and_grads(compiled, row, dtype)
                continue
            value, grads = _value_and_grads(compiled, row, dtype)
            _same(value, eager_value, rtol)
            for a, b in zip(grads, eager_grads):
                assert (a is None) == (b is None)
                if a is not None:
                    _same(a, b, rtol)


def _chain(x):
    y = x
    for _ in range(5):
        y = symgrad.exp(symgrad.tanh(symgrad.sin(y * x + 0.1))) * 0.5
    return y


def test_a_one_element_chain_runs_on_floats_and_gives_the_eager_numbers():
    """To a few units in the last place: the C library's sin, tanh and exp against NumPy's
    own (vectorised) ones."""
    compiled = symgrad.compile(_chain)
    x = symgrad.tensor([0.5], dtype=symgrad.float64, requires_grad=True)
    y = compiled(x)
    y.backward()
    assert compiled._last.program.scalar
    assert "a0 = a0.item()" in compiled.source
    x2 = symgrad.tensor([0.5], dtype=symgrad.float64, requires_grad=True)
    y2 = _chain(x2)
    y2.backward()
    np.testing.assert_allclose(y.detach().numpy(), y2.detach().numpy(), rtol=1e-14, atol=0)
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-14, atol=0)
    assert y.shape == (1,) and y.dtype == symgrad.float64
    assert y.grad_fn.name() == "CompiledFunctionBackward"


def test_float32_rounds_each_step_and_its_numbers_as_numpy_does():
    """0.1 next to a float32 array is float32(0.1) (NumPy's weak promotion), and each result
    is rounded to float32: sums, products and quotients are then exactly the eager ones."""

    def f(x, y):
        return ((x * 0.1 + y) / (x - 0.3) - y * y) * 1.7

    compiled = symgrad.compile(f)
    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = rng.standard_normal(2)
        args = [symgrad.tensor(a, dtype=symgrad.float32, requires_grad=True)]
        args.append(symgrad.tensor(b, dtype=symgrad.float32, requires_grad=True))
        value, grads = _value_and_grads(compiled, [a, b], symgrad.float32)
        eager_value, eager_grads = _value_and_grads(f, [a, b], symgrad.float32)
        assert compiled._last.program.scalar
        assert value.dtype == np.float32 and np.array_equal(value, eager_value)
        for g, e in zip(grads, eager_grads):
            np.testing.assert_allclose(g, e, rtol=1e-6)


@pytest.mark.parametrize(
    ("fn", "x"),
    [
        (symgrad.log, 0.0),  # -inf, and an infinite gradient
        (symgrad.sqrt, -1.0),  # nan
        (symgrad.exp, 1000.0),  # overflow to inf
        (lambda x: 1 / x, 0.0),  # division by zero
        (lambda x: x**0.5, -4.0),  # a negative base to a fractional power: nan
        (symgrad.sin, np.inf),  # nan
    ],
)
def test_where_numpy_gives_inf_or_nan_the_call_runs_on_numpy(fn, x):
    compiled = symgrad.compile(fn)
    compiled(symgrad.tensor([0.5], dtype=symgrad.float64, requires_grad=True))
    assert compiled._last.program.scalar
    value, grads = _value_and_grads(compiled, [x], symgrad.float64)
    eager_value, eager_grads = _value_and_grads(fn, [x], symgrad.float64)
    np.testing.assert_array_equal(value, eager_value)
    np.testing.assert_array_equal(grads[0], eager_grads[0])


def test_backend_numpy_keeps_numpy_and_larger_values_never_run_on_floats():
    numpy_only = symgrad.compile(_chain, backend="numpy")
    numpy_only(symgrad.tensor([0.5], requires_grad=True))
    assert not numpy_only._last.program.scalar
    chosen = symgrad.compile(_chain, backend="scalar")
    chosen(symgrad.tensor(0.5, requires_grad=True))
    assert chosen._last.program.scalar
    chosen(symgrad.tensor([0.5, 0.25], requires_grad=True))  # two elements: the NumPy program
    assert not chosen._last.program.scalar


def test_a_captured_one_element_tensor_is_read_afresh_at_every_call():
    w = symgrad.tensor(2.0, dtype=symgrad.float64, requires_grad=True)
    compiled = symgrad.compile(lambda x: symgrad.tanh(x * w))
    x = symgrad.tensor(0.3, dtype=symgrad.float64)
    compiled(x)
    assert compiled._last.program.scalar
    with symgrad.no_grad():
        w.mul_(-1.5)
    y = compiled(x)
    y.backward()
    np.testing.assert_allclose(y.item(), np.tanh(0.3 * -3.0), rtol=1e-15)
    np.testing.assert_allclose(w.grad.item(), 0.3 * (1 - np.tanh(-0.9) ** 2), rtol=1e-14)


def test_float32_overflow_and_underflow_are_numpy_s():
    def f(x):
        return (x * 1e30) * 1e30 + (x * 1e-30) * 1e-30

    compiled = symgrad.compile(f)
    for v in (1.0, -3.0, 0.0):
        value, grads = _value_and_grads(compiled, [v], symgrad.float32)
        eager_value, eager_grads = _value_and_grads(f, [v], symgrad.float32)
        assert compiled._last.program.scalar
        np.testing.assert_array_equal(value, eager_value)
        np.testing.assert_array_equal(grads[0], eager_grads[0])
