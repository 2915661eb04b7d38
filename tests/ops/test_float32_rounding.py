"""float32 transcendental functions round as PyTorch's: its vectorised float32 functions give
the correctly rounded result for nearly every input, so symgrad computes them in float64 and
rounds once (NumPy's own float32 versions differ from that in the last bit for a tenth to a
half of the inputs, and a training loop in float32 then prints other losses)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

_X = np.linspace(-3, 3, 2001, dtype=np.float32)

# (symgrad function, NumPy's float64 function, the float32 inputs)
CASES = {
    "exp": (symgrad.exp, np.exp, _X),
    "expm1": (symgrad.expm1, np.expm1, _X),
    "exp2": (symgrad.exp2, np.exp2, _X),
    "log": (symgrad.log, np.log, np.abs(_X) + np.float32(0.5)),
    "log2": (symgrad.log2, np.log2, np.abs(_X) + np.float32(0.5)),
    "log10": (symgrad.log10, np.log10, np.abs(_X) + np.float32(0.5)),
    "sin": (symgrad.sin, np.sin, _X),
    "cos": (symgrad.cos, np.cos, _X),
    "tan": (symgrad.tan, np.tan, _X),
    "tanh": (symgrad.tanh, np.tanh, _X),
    "sinh": (symgrad.sinh, np.sinh, _X),
    "cosh": (symgrad.cosh, np.cosh, _X),
    "atan": (symgrad.atan, np.arctan, _X),
    "asin": (symgrad.asin, np.arcsin, _X / np.float32(4)),
    "acos": (symgrad.acos, np.arccos, _X / np.float32(4)),
    "atanh": (symgrad.atanh, np.arctanh, _X / np.float32(4)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_functions_are_rounded_once_from_float64(name):
    fn, exact, x = CASES[name]
    expected = exact(x.astype(np.float64)).astype(np.float32)
    t = symgrad.tensor(x, requires_grad=True)
    y = fn(t)
    assert y.dtype == symgrad.float32
    np.testing.assert_array_equal(y.detach().numpy(), expected)
    with symgrad.no_grad():  # the same values unrecorded, on a view, and as a method
        np.testing.assert_array_equal(fn(t[::2]).numpy(), expected[::2])
        np.testing.assert_array_equal(getattr(t, name)().numpy(), expected)


def test_float32_sigmoid_rounds_each_step_as_pytorch():
    # PyTorch: 1 / (1 + exp(-x)) in float32, with exp rounded once
    e = np.exp(-_X.astype(np.float64)).astype(np.float32)
    expected = np.float32(1) / (np.float32(1) + e)
    np.testing.assert_array_equal(symgrad.sigmoid(symgrad.tensor(_X)).numpy(), expected)


def test_large_float32_arrays_and_float64_keep_their_values():
    x = np.random.default_rng(0).standard_normal(200_000).astype(np.float32)
    expected = np.exp(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(symgrad.exp(symgrad.tensor(x)).numpy(), expected)
    d = x.astype(np.float64)
    np.testing.assert_array_equal(symgrad.exp(symgrad.tensor(d)).numpy(), np.exp(d))
    h = symgrad.tensor(x[:100]).half()
    assert symgrad.exp(h).dtype == symgrad.float16


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_float32_functions_agree_with_pytorch(name):
    torch = pytest.importorskip("torch")
    fn, _, x = CASES[name]
    ours = fn(symgrad.tensor(x)).numpy()
    theirs = getattr(torch, name)(torch.tensor(x)).numpy()
    assert np.mean(ours == theirs) >= 0.9  # (NumPy's float32 functions: 0.5 to 0.9)
    np.testing.assert_allclose(ours, theirs, rtol=3e-7)
