"""Element-wise ops of 0-d tensors: the same values, dtypes and gradients as of one-element
tensors, with results that are 0-d arrays of their own (writable, changeable in place)."""

import numpy as np
import pytest

import symgrad

OPS = [
    ("sin", lambda x: symgrad.sin(x)),
    ("exp_tanh", lambda x: symgrad.exp(symgrad.tanh(x))),
    ("mul_self", lambda x: x * x),
    ("add_number", lambda x: x + 0.1),
    ("number_minus", lambda x: 0.5 - x),
    ("pow", lambda x: x**3),
    ("where_free_chain", lambda x: symgrad.sigmoid(x * 2.0) / (1.0 + x * x)),
]


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
@pytest.mark.parametrize("name, fn", OPS, ids=[n for n, _ in OPS])
def test_zero_dim_matches_one_element(name, fn, dtype):
    x0 = symgrad.tensor(0.3, dtype=dtype, requires_grad=True)
    x1 = symgrad.tensor([0.3], dtype=dtype, requires_grad=True)
    y0, y1 = fn(x0), fn(x1)
    assert y0.shape == () and y0.dtype == dtype
    assert type(y0.grad_fn) is type(y1.grad_fn)
    np.testing.assert_array_equal(y0.detach().numpy(), y1.detach().numpy()[0])
    y0.backward()
    y1.sum().backward()
    assert x0.grad.shape == () and x0.grad.dtype == dtype
    np.testing.assert_array_equal(x0.grad.numpy(), x1.grad.numpy()[0])


def test_zero_dim_results_are_arrays_of_their_own():
    x = symgrad.tensor(0.25)
    y = symgrad.exp(x)
    assert type(y.numpy()) is np.ndarray and y.numpy().flags.writeable
    y.add_(1.0)
    assert y.item() == pytest.approx(np.exp(0.25) + 1.0)
    assert x.item() == 0.25


def test_zero_dim_chain_values():
    # y = exp(tanh(sin(y * x + 0.1))) * 0.5, three rounds from y = x = 0.5, in float64
    x = symgrad.tensor(0.5, dtype=symgrad.float64, requires_grad=True)
    y = x
    expected = 0.5
    for _ in range(3):
        y = symgrad.exp(symgrad.tanh(symgrad.sin(y * x + 0.1))) * 0.5
        expected = np.exp(np.tanh(np.sin(expected * 0.5 + 0.1))) * 0.5
    assert y.item() == expected
