"""The graphs that ``create_graph=True`` records for the gradients of scans and reductions by
products: the node names of the first gradient of ``f(x).pow(2).sum()`` and of its
``next_functions``, as PyTorch's backward formulas record them (logcumsumexp_backward is the
difference of two exponentials of reversed log-domain scans, ``SubBackward0``), with the first
gradient's values and its derivative along ``v``; and second derivatives that are exactly
PyTorch's where its formula makes them exact.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data;
the table holds the expected data, checked for symgrad always and for PyTorch when installed.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from _graph_names import second_order
from _torch_table import table_tests

import symgrad

_grad = second_order


def _zeroed(T, x):
    """``x`` with its negative elements (one in each row) shifted to 0, the gradient 1."""
    return x - T.where(x < 0, x.detach(), 0.0)


_CASES = {
    "logcumsumexp": lambda T, x: x.logcumsumexp(1),
    "logcumsumexp_dim0": lambda T, x: T.logcumsumexp(x, 0),
    "prod_with_zero": lambda T, x: _zeroed(T, x).prod(1) + 1,
    "prod_with_zero_keepdim": lambda T, x: _zeroed(T, x).prod(0, keepdim=True) + 1,
    "prod_with_zero_all": lambda T, x: _zeroed(T, x).prod() + 1,
    "prod_with_zero_transposed": lambda T, x: _zeroed(T, x).t().prod() + 1,
    "prod_one_with_zero": lambda T, x: _zeroed(T, x)[:, :1].prod(1) + 1,
    "prod_one_with_zero_all": lambda T, x: _zeroed(T, x)[:1, :1].prod() + 1,
}

# PyTorch's logcumsumexp_backward: exp(reversed scan of log|g| - out, plus x), the positive
# incoming gradients' minus the negative ones'
_LOGCUMSUMEXP_NODES = (
    "SubBackward0",
    (
        ("ExpBackward0", (("AddBackward0", ("FlipBackward0", "AccumulateGrad")),)),
        ("ExpBackward0", (("AddBackward0", ("FlipBackward0", "AccumulateGrad")),)),
    ),
)

_EXPECTED = {
    "logcumsumexp": (
        ([[-1.5453, 1.5871, 2.3055], [11.2434, 0.5946, 0.9269]], "float64", None),
        _LOGCUMSUMEXP_NODES,
        ([[2.6056, 3.7009, 4.489], [20.2566, 1.6007, 3.2204]], "float64", None),
    ),
    "logcumsumexp_dim0": (
        ([[-1.8057, 1.3651, 4.8436], [3.9029, 0.4086, 1.2313]], "float64", None),
        _LOGCUMSUMEXP_NODES,
        ([[1.8106, 7.1915, 8.8616], [7.9048, 2.7335, 5.2645]], "float64", None),
    ),
    # PyTorch's prod_safe_zeros_backward: g times the running products before and after
    # each element (a whole product's flattened, then viewed as the input)
    "prod_with_zero": (
        ([[0.65, 0.0, 0.0], [0.0, 2.8, 0.0]], "float64", None),
        (
            "MulBackward0",
            (
                ("UnsqueezeBackward0", (("MulBackward0", (None, "MulBackward1")),)),
                (
                    "MulBackward0",
                    (
                        ("CumprodBackward0", ("CatBackward0",)),
                        ("FlipBackward0", ("CumprodBackward0",)),
                    ),
                ),
            ),
        ),
        ([[6.9112, 2.6, 0.5], [7.0, 49.2, 20.0]], "float64", None),
    ),
    "prod_with_zero_keepdim": (
        ([[4.0, 0.0, 2.674], [0.0, 0.5, 4.966]], "float64", None),
        (
            "MulBackward0",
            (
                ("MulBackward0", (None, ("MulBackward1", ("PowBackward0",)))),
                (
                    "MulBackward0",
                    (
                        ("CumprodBackward0", ("CatBackward0",)),
                        ("FlipBackward0", ("CumprodBackward0",)),
                    ),
                ),
            ),
        ),
        ([[16.0, 10.0, 36.78], [2.0, 4.625, 37.2]], "float64", None),
    ),
    "prod_with_zero_all": (
        ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float64", None),
        (
            "ViewBackward0",
            (
                (
                    "MulBackward0",
                    (
                        ("MulBackward0", (None, "MulBackward1")),
                        ("MulBackward0", ("CumprodBackward0", "FlipBackward0")),
                    ),
                ),
            ),
        ),
        ([[4.55, 0.0, 0.0], [0.0, 0.91, 0.0]], "float64", None),
    ),
    "prod_with_zero_transposed": (
        ([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float64", None),
        ("TBackward0", (("ViewBackward0", (("MulBackward0", ("MulBackward0", "MulBackward0")),)),)),
        ([[4.55, 0.0, 0.0], [0.0, 0.91, 0.0]], "float64", None),
    ),
    "prod_one_with_zero": (
        ([[2.0, 0.0, 0.0], [6.0, 0.0, 0.0]], "float64", None),
        (
            "SliceBackwardBackward0",
            (("UnsqueezeBackward0", (("MulBackward0", (None, "MulBackward1")),)),),
        ),
        ([[2.0, 0.0, 0.0], [8.0, 0.0, 0.0]], "float64", None),
    ),
    "prod_one_with_zero_all": (
        ([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float64", None),
        (
            "SliceBackwardBackward0",
            (("SliceBackwardBackward0", (("ViewBackward0", ("MulBackward0",)),)),),
        ),
        ([[2.0, 0.0, 0.0], [0.0, 0.0, 0.0]], "float64", None),
    ),
}

test_graph_names, test_graph_names_are_pytorchs = table_tests(
    {k: (partial(_grad, f=f), _EXPECTED[k]) for k, f in _CASES.items()}
)


def _logcumsumexp_second(T, dtype):
    """The derivative of the sum of logcumsumexp's gradient (a constant, the length)."""
    x = T.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True)
    (g,) = T.autograd.grad(x.logcumsumexp(0).sum(), x, create_graph=True)
    return T.autograd.grad(g.sum(), x)[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logcumsumexp_gradient_sum_has_exactly_zero_derivative(dtype):
    # PyTorch's formula gives exactly 0 here; the gradient carried back term by term left
    # rounding noise of 1e-7 in float32
    h = _logcumsumexp_second(symgrad, getattr(symgrad, dtype))
    assert h.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.torch
def test_logcumsumexp_gradients_are_pytorchs_to_the_bit():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a, incoming, v = (rng.standard_normal((3, 5)) * 3 for _ in range(3))
    found = []
    for T in (symgrad, torch):
        x = T.tensor(a, requires_grad=True)
        (g,) = T.autograd.grad(x.logcumsumexp(1), x, T.tensor(incoming), create_graph=True)
        (h,) = T.autograd.grad((g * T.tensor(v)).sum(), x)
        found.append((g.tolist(), h.tolist()))
    assert found[0] == found[1]
    assert _logcumsumexp_second(torch, torch.float32).tolist() == [0.0, 0.0, 0.0]
