"""The activations of ``nn.functional``: values, gradients and second derivatives at the
kinks (PyTorch's one-sided choices), node names, in-place forms and argument errors.

The expected numbers are PyTorch's (2.13), written out so the tests run without it; with
PyTorch importable, ``test_matches_pytorch`` recomputes them there.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as SF

from .activation_values import CASES, X


def _run(T, call):
    x = T.tensor(X, dtype=T.float64, requires_grad=True)
    y = call(T.nn.functional, x)
    w = T.linspace(1, 2, y.numel(), dtype=T.float64)
    (g,) = T.autograd.grad((y * w).sum(), x, create_graph=True)
    (gg,) = T.autograd.grad(g.sum(), x)
    return y, g, gg


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_gradients_and_node_names(name):
    call, node, values, grads, second = CASES[name]
    y, g, gg = _run(symgrad, call)
    assert y.grad_fn.name() == node
    np.testing.assert_allclose(y.detach().numpy(), values, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(g.detach().numpy(), grads, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gg.numpy(), second, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    call = CASES[name][0]
    ours, theirs = _run(symgrad, call), _run(torch, call)
    assert ours[0].grad_fn.name() == theirs[0].grad_fn.name()
    for a, b in zip(ours, theirs):
        # (second derivatives near 0 may differ by an ulp of 1e-15: op order inside the formula)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-13, atol=4e-15)


def test_hardswish_and_hardsigmoid_at_their_kinks():
    x = symgrad.tensor([-3.0, 3.0, float("nan")], dtype=symgrad.float64, requires_grad=True)
    SF.hardswish(x).sum().backward()
    # PyTorch: 0 from -3 down, 1 from 3 up, nan at nan
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 1.0, np.nan])
    x.grad = None
    SF.hardsigmoid(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_hardsigmoid_slope_is_one_sixth():
    # PyTorch's backward multiplies by float32's 1/6 (0.1666666716337204) in float64 too;
    # symgrad's derivative is the formula's, 1/6: a documented difference of 3e-8 relative
    x = symgrad.tensor([0.5], dtype=symgrad.float64, requires_grad=True)
    SF.hardsigmoid(x).sum().backward()
    assert x.grad.item() == 1 / 6


def test_hardsigmoid_slope_differs_from_pytorch_by_float32_rounding():
    torch = pytest.importorskip("torch")
    t = torch.tensor([0.5], dtype=torch.float64, requires_grad=True)
    torch.nn.functional.hardsigmoid(t).sum().backward()
    assert t.grad.item() == float(np.float32(1 / 6))


def test_shrinks_give_no_gradient_at_nan_and_keep_positive_zeros():
    x = symgrad.tensor([-0.5, -0.0, float("nan")], dtype=symgrad.float64, requires_grad=True)
    for f in (SF.softshrink, SF.hardshrink):
        y = f(x)
        assert not np.signbit(y.detach().numpy()[:2]).any()
        (g,) = symgrad.autograd.grad(y.sum(), x)
        np.testing.assert_array_equal(g.numpy(), [0.0, 0.0, 0.0])


def test_logsigmoid_is_stable():
    x = symgrad.tensor([-1000.0, 1000.0], dtype=symgrad.float64, requires_grad=True)
    y = SF.logsigmoid(x)
    np.testing.assert_array_equal(y.detach().numpy(), [-1000.0, 0.0])
    assert not np.signbit(y.detach().numpy()[1])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0])


def test_mish_gradient_is_finite_far_out():
    x = symgrad.tensor([-1000.0, 1000.0], dtype=symgrad.float64, requires_grad=True)
    (g,) = symgrad.autograd.grad(SF.mish(x).sum(), x, create_graph=True)
    np.testing.assert_array_equal(g.detach().numpy(), [0.0, 1.0])


@pytest.mark.parametrize(
    "name, kwargs", [("selu", {}), ("celu", {}), ("mish", {}), ("hardtanh", {}), ("relu6", {})]
)
def test_inplace_forms_overwrite_the_input(name, kwargs):
    x = symgrad.tensor([-2.0, 0.5, 7.0])
    expected = getattr(SF, name)(x, **kwargs)
    y = getattr(SF, name)(x, inplace=True, **kwargs)
    assert y is x
    np.testing.assert_array_equal(x.numpy(), expected.numpy())


def test_inplace_on_a_leaf_that_requires_grad_raises():
    x = symgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        SF.selu(x, inplace=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x: F.selu(x),
        lambda F, x: F.mish(x),
        lambda F, x: F.logsigmoid(x),
        lambda F, x: F.hardswish(x),
        lambda F, x: F.softshrink(x),
        lambda F, x: F.glu(x),
    ],
)
def test_integer_inputs_raise_not_implemented(call):
    with pytest.raises(NotImplementedError, match="Long"):
        call(SF, symgrad.tensor([1, 2]))


def test_hardtanh_keeps_integers():
    y = SF.hardtanh(symgrad.tensor([-3, 0, 3]))
    assert y.dtype is symgrad.int64
    assert y.tolist() == [-1, 0, 1]


def test_argument_errors():
    x = symgrad.tensor([1.0, 2.0])
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        SF.hardtanh(x, 1.0, -1.0)
    with pytest.raises(RuntimeError, match="alpha cannot be 0"):
        SF.celu(x, 0.0)
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        SF.softshrink(x, -1.0)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        SF.glu(symgrad.ones(3))
    with pytest.raises(RuntimeError, match="scalars"):
        SF.glu(symgrad.tensor(1.0))
    with pytest.raises(IndexError, match="Dimension out of range"):
        SF.glu(symgrad.ones(2, 4), dim=2)


def test_glu_along_dim0_and_its_node():
    x = symgrad.tensor([[1.0, 2.0], [0.0, 0.0]], requires_grad=True)
    y = SF.glu(x, dim=0)
    assert y.grad_fn.name() == "GluBackward0"
    np.testing.assert_allclose(y.detach().numpy(), [[0.5, 1.0]])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.5, 0.5], [0.25, 0.5]])


def test_softmin_warns_without_dim():
    with pytest.warns(UserWarning, match="Implicit dimension"):
        SF.softmin(symgrad.ones(2, 3))


def test_celu_gradient_with_an_alpha_float32_cannot_hold():
    # PyTorch's derivative formula scales by 1 / float32(alpha), even in float64
    x = symgrad.tensor([-1.0], dtype=symgrad.float64, requires_grad=True)
    SF.celu(x, 0.7).sum().backward()
    assert x.grad.item() == pytest.approx(0.23965103469267596, rel=1e-15)


def test_gelu_rejects_an_unknown_approximation_as_pytorch():
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        SF.gelu(symgrad.ones(2), approximate="bad")


@pytest.mark.parametrize(
    "call, plain, node",
    [
        (lambda F, x: F.selu(x, inplace=True), lambda F, x: F.selu(x), "EluBackward1"),
        (lambda F, x: F.celu_(x, 0.5), lambda F, x: F.celu(x, 0.5), "CeluBackward1"),
        (lambda F, x: F.elu(x, inplace=True), lambda F, x: F.elu(x), "EluBackward1"),
        (
            lambda F, x: F.leaky_relu_(x, 0.2),
            lambda F, x: F.leaky_relu(x, 0.2),
            "LeakyReluBackward1",
        ),
        (lambda F, x: F.hardtanh_(x), lambda F, x: F.hardtanh(x), "HardtanhBackward0"),
        (lambda F, x: F.mish(x, inplace=True), lambda F, x: F.mish(x), "MishBackward0"),
    ],
)
def test_in_place_forms_record_pytorchs_nodes(call, plain, node):
    x = symgrad.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = call(SF, x * 1.0)
    assert y.grad_fn.name() == node
    (g,) = symgrad.autograd.grad(y.sum(), x)
    z = plain(SF, x)
    (h,) = symgrad.autograd.grad(z.sum(), x)
    np.testing.assert_array_equal(y.detach().numpy(), z.detach().numpy())
    # the in-place forms differentiate through the result: PyTorch's celu_ gradient differs
    # from celu's in the last bit (0.13533527 for 0.13533528 at -1)
    np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=2e-7)


def test_sigmoid_rounds_float32_as_pytorch():
    # PyTorch computes 1 / (1 + exp(-x)): in float32 its last bit near 0, and 0 (not the
    # denormal 3.8e-44) at -100, where exp(100) overflows
    x = symgrad.tensor([-100.0, -1e-3, 0.0, 5.0, float("inf"), float("-inf")])
    np.testing.assert_array_equal(
        symgrad.sigmoid(x).numpy(),
        np.array([0.0, 4.9975002e-01, 0.5, 9.9330717e-01, 1.0, 0.0], np.float32),
    )
    # the gradient of binary_cross_entropy_with_logits uses the same sigmoid
    z = symgrad.tensor([-1e-3], requires_grad=True)
    SF.binary_cross_entropy_with_logits(z, symgrad.tensor([0.0])).backward()
    assert z.grad.numpy()[0] == np.float32(4.9975002e-01)


def test_sigmoid_matches_pytorch_to_its_exp_rounding_in_float32():
    # the same formula; PyTorch's vectorised exp and NumPy's differ in the last bit at times
    torch = pytest.importorskip("torch")
    x = np.linspace(-120, 30, 2001, dtype=np.float32)
    expected = torch.sigmoid(torch.tensor(x)).numpy()
    got = symgrad.sigmoid(symgrad.tensor(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=3e-7, atol=1e-40)
    np.testing.assert_array_equal(got[x < -104], 0.0)
