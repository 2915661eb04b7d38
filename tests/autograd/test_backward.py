"""``Tensor.backward`` and ``symgrad.autograd.backward``: vector-Jacobian products, accumulation,
freed buffers, ``inputs=``, and the errors PyTorch raises."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import symgrad
from symgrad.autograd import backward


def leaf(values, dtype=symgrad.float64):
    return symgrad.tensor(values, dtype=dtype, requires_grad=True)


# -- vector-Jacobian products -----------------------------------------------------------------


def test_scalar_root_needs_no_gradient():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_non_scalar_root_computes_v_transpose_jacobian():
    # y = A x, so v^T J = v^T A
    a = np.array([[1.0, 2.0, 0.0], [0.0, -1.0, 3.0]])
    x = leaf([0.5, -1.0, 2.0])
    y = symgrad.tensor(a) @ x
    v = symgrad.tensor([10.0, 1.0], dtype=symgrad.float64)
    y.backward(v)
    np.testing.assert_allclose(x.grad.numpy(), v.numpy() @ a)


def test_elementwise_root_with_ones_gives_the_diagonal_of_the_jacobian():
    x = leaf([[0.0, 1.0], [2.0, 3.0]])
    (x**3).backward(symgrad.ones_like(x))
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.detach().numpy() ** 2)


def test_one_element_root_of_any_shape_needs_no_gradient():
    x = leaf([1.0, 2.0])
    (x * 2)[0:1].backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.0])


def test_gradient_of_another_dtype_is_converted_to_the_roots_dtype():
    x = leaf([1.0, 2.0], dtype=symgrad.float32)
    (x * 2).backward(symgrad.ones(2, dtype=symgrad.float64))
    assert x.grad.dtype == symgrad.float32
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_a_leaf_can_be_the_root():
    x = leaf([1.0, 2.0])
    x.backward(symgrad.tensor([3.0, 4.0], dtype=symgrad.float64))
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])


def test_paths_meeting_at_a_node_are_summed():
    x = leaf([2.0])
    y = x * 3
    z = y * y + y.exp() + y  # y reaches z along three paths
    z.backward()
    y0 = 6.0
    np.testing.assert_allclose(x.grad.numpy(), [3 * (2 * y0 + np.exp(y0) + 1)])


def test_several_roots_at_once():
    x = leaf([1.0, 2.0])
    backward([(x * x).sum(), (3 * x).sum()])
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 7.0])


def test_several_roots_with_their_gradients():
    x = leaf([1.0, 2.0])
    backward([x * x, x.sum()], [symgrad.tensor([1.0, 10.0], dtype=symgrad.float64), None])
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 41.0])


def test_only_leaves_get_grad():
    x = leaf([1.0])
    y = x * 2
    (y * y).backward()
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None
    assert x.grad is not None


# -- accumulation and freed buffers ---------------------------------------------------------------


def test_gradients_accumulate_across_backward_calls():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


def test_second_backward_through_freed_buffers_raises():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_any_number_of_backward_calls():
    x = leaf([1.0])
    y = x.exp()
    for _ in range(3):
        y.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [3 * np.e])


def test_graph_that_saved_no_tensor_can_be_backpropagated_twice():
    # PyTorch only complains when a freed saved tensor is needed; add and sum save none
    x = leaf([1.0, 2.0])
    y = (x + x).sum()
    y.backward()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 4.0])


def test_grad_is_accumulated_in_place():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    first = x.grad
    y.backward()
    assert x.grad is first
    np.testing.assert_allclose(first.numpy(), [4.0, 8.0])


def test_grad_set_to_none_starts_over():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    x.grad = None
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_assigned_grad_is_accumulated_into():
    x = leaf([1.0, 2.0])
    x.grad = symgrad.ones(2, dtype=symgrad.float64)
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


# -- .grad never aliases someone else's memory ----------------------------------------------------


def test_grad_does_not_alias_the_gradient_passed_to_backward():
    x = leaf([1.0, 2.0])
    v = symgrad.tensor([3.0, 4.0], dtype=symgrad.float64)
    x.backward(v)
    assert x.grad is not v
    v.add_(100)
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])
    x.grad.add_(1)
    np.testing.assert_allclose(v.numpy(), [103.0, 104.0])


@pytest.mark.parametrize("op", [lambda x: x + 0, lambda x: x * 1, lambda x: x.reshape(2)])
def test_grad_does_not_alias_the_gradient_passed_through_an_op(op):
    x = leaf([1.0, 2.0])
    v = symgrad.tensor([3.0, 4.0], dtype=symgrad.float64)
    op(x).backward(v)
    v.add_(100)
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])


def test_two_leaves_never_share_a_grad():
    x, y = leaf([1.0, 2.0]), leaf([1.0, 2.0])
    (x + y).sum().backward()
    x.grad.add_(10)
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0])


def test_two_leaves_fed_the_callers_gradient_never_share_it():
    x, y = leaf([1.0, 2.0]), leaf([1.0, 2.0])
    v = symgrad.ones(2, dtype=symgrad.float64)
    (x + y).backward(v)
    x.grad.add_(10)
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(v.numpy(), [1.0, 1.0])


def test_create_graph_grad_does_not_alias_the_gradient_passed_to_backward():
    x = leaf([1.0, 2.0])
    v = symgrad.tensor([3.0, 4.0], dtype=symgrad.float64)
    x.backward(v, create_graph=True)
    assert x.grad is not v
    x.grad.zero_()
    np.testing.assert_allclose(v.numpy(), [3.0, 4.0])


def test_custom_function_gradient_is_copied_not_kept():
    constant = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64)

    class ReturnsConstant(symgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return constant

    x = leaf([0.0, 0.0])
    ReturnsConstant.apply(x).sum().backward()
    ReturnsConstant.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(constant.numpy(), [1.0, 2.0])  # untouched by accumulation


def test_hook_result_is_copied_not_kept():
    replacement = symgrad.tensor([5.0, 5.0], dtype=symgrad.float64)
    x = leaf([0.0, 0.0])
    x.register_hook(lambda g: replacement)
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [10.0, 10.0])
    np.testing.assert_allclose(replacement.numpy(), [5.0, 5.0])


# -- inputs= ------------------------------------------------------------------------------------


def test_inputs_restricts_accumulation_to_the_given_leaves():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * w).sum().backward(inputs=[x])
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 4.0])
    assert w.grad is None


def test_inputs_may_be_a_single_tensor():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * w).sum().backward(inputs=w)
    np.testing.assert_allclose(w.grad.numpy(), [1.0, 2.0])
    assert x.grad is None


def test_inputs_may_name_a_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    (y * y).sum().backward(inputs=[y])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch warns only while a non-leaf's grad is unset
        np.testing.assert_allclose(y.grad.numpy(), [4.0, 8.0])
    assert x.grad is None


def test_inputs_not_reached_get_no_grad():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * 2).sum().backward(inputs=[w])
    assert w.grad is None and x.grad is None


def test_empty_inputs_is_an_error():
    x = leaf([1.0])
    with pytest.raises(RuntimeError) as error:
        (x * 2).backward(inputs=[])
    assert str(error.value) == "`inputs` argument to `backward()` cannot be empty."  # PyTorch's


# -- errors -------------------------------------------------------------------------------------


def test_non_scalar_root_without_gradient_raises():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        (x * 2).backward()


def test_root_that_does_not_require_grad_raises():
    x = symgrad.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        (x * 2).sum().backward()


def test_root_computed_under_no_grad_raises():
    x = leaf([1.0, 2.0])
    with symgrad.no_grad():
        y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.backward()


@pytest.mark.parametrize("shape", [(3,), (1, 2), (2, 1), ()])
def test_gradient_of_the_wrong_shape_raises_naming_both_shapes(shape):
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape") as info:
        (x * 2).backward(symgrad.ones(shape))
    message = str(info.value)
    assert str(list(shape)) in message and "[2]" in message


def test_gradient_that_is_not_a_tensor_raises_type_error():
    x = leaf([1.0, 2.0])
    with pytest.raises(TypeError, match="gradients can be either Tensors or None"):
        (x * 2).backward([1.0, 1.0])


def test_one_gradient_per_root_is_needed():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        backward([x.sum(), x.sum()], [symgrad.tensor(1.0, dtype=symgrad.float64)])


@pytest.mark.torch
def test_vjp_of_a_mixed_program_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    a, b, v = rng.normal(size=(3, 4)), rng.normal(size=(4,)), rng.normal(size=(3,))

    def run(lib):
        x = lib.tensor(a, requires_grad=True)
        w = lib.tensor(b, requires_grad=True)
        y = (x * w).tanh() @ w + x.sum(1) ** 2
        y.backward(lib.tensor(v))
        return x.grad.detach().numpy(), w.grad.detach().numpy()

    for ours, theirs in zip(run(symgrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@given(
    st.lists(st.floats(-2, 2), min_size=3, max_size=3),
    st.lists(st.floats(-2, 2), min_size=3, max_size=3),
    st.floats(-3, 3),
)
def test_vjp_is_linear_in_the_gradient(v1, v2, scale):
    def vjp(v):
        x = leaf([0.3, -0.8, 1.1])
        (x.sin() * x.exp()).backward(symgrad.tensor(v, dtype=symgrad.float64))
        return x.grad.numpy()

    combined = [scale * a + b for a, b in zip(v1, v2)]
    np.testing.assert_allclose(vjp(combined), scale * vjp(v1) + vjp(v2), atol=1e-12)


def test_gradient_of_a_broadcast_leaf_has_the_leafs_shape():
    bias = leaf([[1.0], [2.0]])  # (2, 1) broadcast against (2, 3)
    (bias * symgrad.ones(2, 3, dtype=symgrad.float64)).sum().backward()
    assert bias.grad.shape == (2, 1)
    np.testing.assert_allclose(bias.grad.numpy(), [[3.0], [3.0]])


def test_backward_inputs_of_a_tensor_that_retains_its_grad_count_it_once():
    # PyTorch: h.grad == [1, 2] (the retain_grad hook and inputs= fill the same .grad once)
    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    b = symgrad.tensor([1.0, 1.0], requires_grad=True)
    h = a * b
    h.retain_grad()
    (h * a).sum().backward(inputs=[h])
    np.testing.assert_array_equal(h.grad.numpy(), [1.0, 2.0])
    assert a.grad is None and b.grad is None

    a = symgrad.tensor([1.0, 2.0], requires_grad=True)
    h = a * 2
    h.retain_grad()
    (h * a).sum().backward(inputs=[h, a])
    np.testing.assert_array_equal(h.grad.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(a.grad.numpy(), [4.0, 8.0])
