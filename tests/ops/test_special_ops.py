"""The inverse trigonometric and hyperbolic functions, the gamma family, erfc/erfinv, sinc,
xlogy, copysign, lerp, nan_to_num and the in-place element-wise methods: values at the edges
as PyTorch prints them (stored, float32 defaults), node names and errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad

NAN, INF = float("nan"), float("inf")


def close(t, values, rtol=1e-6):
    np.testing.assert_allclose(t.detach().numpy(), values, rtol=rtol, equal_nan=True)


def test_edge_values_are_pytorchs():
    x = symgrad.tensor([0.0, 0.5], requires_grad=True)
    y = symgrad.sinc(x)
    y.sum().backward()
    close(y, [1.0, 0.6366197466850281])
    close(x.grad, [0.0, -1.2732396125793457])
    close(
        symgrad.xlogy(symgrad.tensor([0.0, 0.0, 2.0]), symgrad.tensor([0.0, NAN, 3.0])),
        [0.0, NAN, 2.1972246170043945],
    )
    close(
        symgrad.nan_to_num(symgrad.tensor([NAN, INF, -INF, 1.0])),
        [0.0, 3.4028234663852886e38, -3.4028234663852886e38, 1.0],
    )
    close(
        symgrad.lgamma(symgrad.tensor([0.5, 3.0, -0.5])),
        [0.5723649263381958, 0.6931471824645996, 1.2655121088027954],
    )
    close(
        symgrad.digamma(symgrad.tensor([1.0, 0.0, -1.0, 0.5])),
        [-0.5772159099578857, -INF, NAN, -1.9635108709335327],
    )
    close(
        symgrad.erfinv(symgrad.tensor([0.5, -1.0, 1.0, 2.0])), [0.4769362807273865, -INF, INF, NAN]
    )
    close(symgrad.erfc(symgrad.tensor([0.0, 5.0, 30.0])), [1.0, 1.5374598295869735e-12, 0.0])
    close(
        symgrad.atan2(symgrad.tensor([1.0, -1.0, 0.0]), symgrad.tensor([-1.0, -1.0, 0.0])),
        [2.356194496154785, -2.356194496154785, 0.0],
    )
    close(symgrad.copysign(symgrad.tensor([1.0, -2.0, 3.0]), -0.0), [-1.0, -2.0, -3.0])
    close(symgrad.lerp(symgrad.tensor([1.0]), symgrad.tensor([3.0]), 0.75), [2.5])
    close(symgrad.hypot(symgrad.tensor([3.0]), symgrad.tensor([4.0])), [5.0])
    close(
        symgrad.logaddexp(symgrad.tensor([1000.0]), symgrad.tensor([1000.0])), [1000.6931762695312]
    )
    assert symgrad.exp2(symgrad.tensor([1, 2])).tolist() == [2.0, 4.0]  # integers promote


def test_gradients_at_the_edges():
    x = symgrad.tensor([-2.0, 0.0, 3.0], requires_grad=True)
    symgrad.copysign(x, symgrad.tensor([1.0, -1.0, -1.0])).sum().backward()
    assert x.grad.tolist() == [-1.0, 0.0, -1.0]  # out / x, 0 at 0: PyTorch's
    x = symgrad.tensor([0.0, 2.0], requires_grad=True)
    symgrad.xlogy(x, symgrad.tensor([0.0, math.e])).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0]
    x = symgrad.tensor([NAN, 2.0, INF], requires_grad=True)
    symgrad.nan_to_num(x).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


def test_node_names():
    x = symgrad.tensor([0.5, 0.25], requires_grad=True)
    names = {
        "AsinBackward0": symgrad.asin(x),
        "AtanhBackward0": x.atanh(),
        "Log2Backward0": symgrad.log2(x),
        "Log10Backward0": x.log10(),
        "XlogyBackward0": symgrad.xlogy(x, x),
        "XlogyBackward1": symgrad.xlogy(2.0, x),
        "XlogyBackward2": symgrad.xlogy(x, 2.0),
        "CopysignBackward0": symgrad.copysign(x, x),
        "CopysignBackward1": symgrad.copysign(x, -1.0),
        "LerpBackward0": symgrad.lerp(x, x * 2, 0.3),
        "LerpBackward1": symgrad.lerp(x, x * 2, x),
        "NanToNumBackward0": symgrad.nan_to_num(x),
        "Deg2RadBackward0": symgrad.deg2rad(x),
        "SincBackward0": x.sinc(),
        "SigmoidBackward0": (x * 1).sigmoid_(),
        "ReluBackward0": (x * 1).relu_(),
    }
    assert {name: t.grad_fn.name() for name, t in names.items()} == {n: n for n in names}


def test_symbolic_meaning():
    x = symgrad.tensor(0.5, requires_grad=True, name="x")
    y = symgrad.tensor(2.0, requires_grad=True, name="y")
    assert str(symgrad.symbolic.expression(symgrad.atan2(x, y))) == "atan2(x, y)"
    (dx,) = symgrad.symbolic.gradient(symgrad.asinh(x), [x])
    assert str(dx) == "1/sqrt(x**2 + 1)"
    (dx,) = symgrad.symbolic.gradient(symgrad.lgamma(x), [x])
    assert str(dx) == "polygamma(0, x)"


def test_in_place_methods_and_their_errors():
    x = symgrad.tensor([0.25, 0.5], requires_grad=True)
    y = x * 1
    assert y.asin_() is y and y.grad_fn.name() == "AsinBackward0"
    y.sum().backward()
    np.testing.assert_allclose(
        x.grad.numpy(), 1 / np.sqrt(1 - np.array([0.25, 0.5]) ** 2), rtol=1e-6
    )
    with pytest.raises(
        RuntimeError, match="result type Float can't be cast to the desired output type Long"
    ):
        symgrad.tensor([1, 2]).sin_()
    with pytest.raises(
        TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not float"
    ):
        symgrad.hypot(x, 2.0)
