"""``symgrad.autograd.grad``: returned (not accumulated) gradients, ``grad_outputs``,
``allow_unused`` and higher derivatives through ``create_graph``."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.autograd import grad


def leaf(values):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=True)


def test_returns_a_tuple_and_leaves_grad_untouched():
    x = leaf([1.0, 2.0])
    result = grad((x**2).sum(), x)
    assert isinstance(result, tuple) and len(result) == 1
    np.testing.assert_allclose(result[0].numpy(), [2.0, 4.0])
    assert x.grad is None


def test_several_inputs_in_order():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    gx, gw = grad((x * w).sum(), [x, w])
    np.testing.assert_allclose(gx.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(gw.numpy(), [1.0, 2.0])


def test_grad_outputs_is_the_v_of_the_vjp():
    x = leaf([1.0, 2.0])
    (g,) = grad(x * x, x, grad_outputs=symgrad.tensor([1.0, 10.0], dtype=symgrad.float64))
    np.testing.assert_allclose(g.numpy(), [2.0, 40.0])


def test_grad_outputs_as_a_one_element_list():
    x = leaf([1.0, 2.0])
    (g,) = grad(x * x, x, grad_outputs=[symgrad.ones(2, dtype=symgrad.float64)])
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])


def test_several_outputs_with_none_for_a_scalar_one():
    x = leaf([1.0, 2.0])
    (g,) = grad([x * x, x.sum()], x, grad_outputs=[symgrad.ones(2, dtype=symgrad.float64), None])
    np.testing.assert_allclose(g.numpy(), [3.0, 5.0])


def test_non_scalar_output_without_grad_outputs_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        grad(x * x, x)


def test_with_respect_to_a_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    (g,) = grad((y * y).sum(), y)
    np.testing.assert_allclose(g.numpy(), [4.0, 8.0])


def test_unused_input_raises_unless_allowed():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        grad((x * 2).sum(), [x, w])
    gx, gw = grad((x * 2).sum(), [x, w], allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    assert gw is None


def test_materialize_grads_gives_zeros_for_unused_inputs():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    _, gw = grad((x * 2).sum(), [x, w], materialize_grads=True)
    np.testing.assert_allclose(gw.numpy(), [0.0, 0.0])


def test_input_that_does_not_require_grad_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        grad((x * 2).sum(), symgrad.ones(2))


@pytest.mark.parametrize("inputs", [[], ()])
def test_empty_inputs_raise(inputs):
    x = leaf([1.0])
    with pytest.raises(RuntimeError) as error:
        grad(x * 2, inputs, allow_unused=True)
    assert str(error.value) == "`inputs` argument to `grad()` cannot be empty."


def test_empty_inputs_message_is_pytorchs():
    torch = pytest.importorskip("torch")
    x = torch.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError) as error:
        torch.autograd.grad(x * 2, [], allow_unused=True)
    assert str(error.value) == "`inputs` argument to `grad()` cannot be empty."


def test_frees_the_graph_unless_retained():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    grad(y, x, retain_graph=True)
    grad(y, x)
    with pytest.raises(RuntimeError, match="second time"):
        grad(y, x)


def test_result_does_not_alias_grad_outputs():
    x = leaf([1.0, 2.0])
    v = symgrad.ones(2, dtype=symgrad.float64)
    (g,) = grad(x * 1, x, grad_outputs=v)
    g.add_(1)
    np.testing.assert_allclose(v.numpy(), [1.0, 1.0])


# -- higher derivatives -------------------------------------------------------------------------


def test_without_create_graph_the_result_is_constant():
    x = leaf([1.0])
    (g,) = grad(x**3, x)
    assert not g.requires_grad and g.grad_fn is None


def test_double_backward():
    x = leaf([2.0])
    (g,) = grad(x**3, x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    (g2,) = grad(g, x)
    np.testing.assert_allclose(g.detach().numpy(), [12.0])  # 3 x^2
    np.testing.assert_allclose(g2.numpy(), [12.0])  # 6 x


def test_triple_backward():
    x = leaf(2.0)
    (g1,) = grad(x**4, x, create_graph=True)
    (g2,) = grad(g1, x, create_graph=True)
    (g3,) = grad(g2, x)
    assert [g1.item(), g2.item(), g3.item()] == [32.0, 48.0, 48.0]  # 4x^3, 12x^2, 24x


def test_double_backward_through_a_composition():
    # f = sin(x) * exp(x): f'' = 2 cos(x) exp(x)
    x = leaf([0.3, -1.2])
    f = (x.sin() * x.exp()).sum()
    (g,) = grad(f, x, create_graph=True)
    (h,) = grad(g.sum(), x)
    xs = x.detach().numpy()
    np.testing.assert_allclose(h.numpy(), 2 * np.cos(xs) * np.exp(xs), rtol=1e-12)


def test_mixed_second_derivative():
    # f = x^2 y^3: d/dy (df/dx) = 6 x y^2
    x, y = leaf(1.5), leaf(-2.0)
    (gx,) = grad(x**2 * y**3, x, create_graph=True)
    (gxy,) = grad(gx, y)
    assert gxy.item() == pytest.approx(6 * 1.5 * 4.0)


def test_hessian_vector_product_of_a_quadratic_form():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = leaf([0.5, -1.0])
    f = 0.5 * (x @ (symgrad.tensor(a) @ x))
    (g,) = grad(f, x, create_graph=True)
    v = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64)
    (hv,) = grad(g, x, grad_outputs=v)
    np.testing.assert_allclose(g.detach().numpy(), a @ x.detach().numpy())
    np.testing.assert_allclose(hv.numpy(), a @ v.numpy())


def test_backward_with_create_graph_leaves_a_differentiable_grad():
    x = leaf([1.0, 2.0])
    (x**3).sum().backward(create_graph=True)
    g = x.grad
    assert g.requires_grad
    x.grad = None
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


def test_create_graph_retains_the_graph_by_default():
    x = leaf([1.0, 2.0])
    y = (x**3).sum()
    grad(y, x, create_graph=True)
    (g,) = grad(y, x)  # would raise if the first call had freed the buffers
    np.testing.assert_allclose(g.numpy(), [3.0, 12.0])


@pytest.mark.torch
def test_double_backward_matches_pytorch():
    torch = pytest.importorskip("torch")
    values = np.array([0.4, -0.7, 1.3])

    def run(lib):
        x = lib.tensor(values, requires_grad=True)
        y = (x.sigmoid() * x.tanh()).sum() + (x**2).prod()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), x)
        return g.detach().numpy(), h.numpy()

    for ours, theirs in zip(run(symgrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_inputs_from_a_generator():
    x, w = leaf([1.0, 2.0]), leaf([3.0])
    gx, gw = grad((x * w).sum(), (t for t in (x, w)))
    assert gx.tolist() == [3.0, 3.0] and gw.tolist() == [3.0]
