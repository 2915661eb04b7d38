"""Custom ``symgrad.autograd.Function``: forward/backward/apply, saved tensors, flags,
multiple outputs, non-differentiable outputs and the errors for malformed backward results."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.autograd import Function


def leaf(values):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=True)


class MyExp(Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        return grad_output * out


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_forward_and_backward():
    x = leaf([0.0, 1.0])
    y = MyExp.apply(x)
    np.testing.assert_allclose(y.detach().numpy(), [1.0, np.e])
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, np.e])


def test_node_is_named_after_the_class():
    y = MyExp.apply(leaf([0.0]))
    assert type(y.grad_fn).__name__ == "MyExpBackward"
    assert y.grad_fn.name() == "MyExpBackward"
    assert repr(y).endswith("grad_fn=<MyExpBackward>)")
    ((node, index),) = y.grad_fn.next_functions
    assert type(node).__name__ == "AccumulateGrad" and index == 0


def test_composes_with_built_in_ops():
    x = leaf([0.5, -1.0])
    (MyExp.apply(x * 2) * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.exp(2 * np.array([0.5, -1.0])))


def test_forward_runs_without_recording():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            seen.append((symgrad.is_grad_enabled(), y.requires_grad))
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Probe.apply(leaf([1.0]))
    assert seen == [(False, False)]


def test_needs_input_grad_and_non_tensor_arguments():
    class Scaled(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            ctx.k = k
            ctx.flags = ctx.needs_input_grad
            ctx.save_for_backward(a, b)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b * ctx.k, g * a * ctx.k, None

    a, b = leaf([1.0, 2.0]), symgrad.tensor([3.0, 4.0], dtype=symgrad.float64)
    y = Scaled.apply(a, b, 3.0)
    assert y.grad_fn.flags == (True, False, False)
    y.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [9.0, 12.0])
    assert b.grad is None


def test_multiple_outputs_share_one_node():
    class ProductAndSum(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a + b

        @staticmethod
        def backward(ctx, g_product, g_sum):
            a, b = ctx.saved_tensors
            return g_product * b + g_sum, g_product * a + g_sum

    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    p, s = ProductAndSum.apply(a, b)
    assert p.grad_fn is s.grad_fn
    (p.sum() + 2 * s.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), [5.0, 6.0])
    np.testing.assert_allclose(b.grad.numpy(), [3.0, 4.0])


def test_unused_output_gets_a_zero_gradient():
    class Two(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g1, g2):
            assert g1 is not None  # materialized as zeros, as PyTorch does by default
            return g1 * 2 + g2 * 3

    a = leaf([1.0, 2.0])
    _, s = Two.apply(a)
    s.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 3.0])


def test_mark_non_differentiable():
    class ValueAndIndex(Function):
        @staticmethod
        def forward(ctx, a):
            index = a.argmax()
            value = a.max()
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(a, index)
            return value, index

        @staticmethod
        def backward(ctx, g, g_index):
            a, index = ctx.saved_tensors
            result = symgrad.zeros_like(a)
            result[index] = g
            return result

    a = leaf([3.0, 7.0, 2.0])
    value, index = ValueAndIndex.apply(a)
    assert value.requires_grad and not index.requires_grad
    (value * 5).backward()
    np.testing.assert_allclose(a.grad.numpy(), [0.0, 5.0, 0.0])


def test_non_differentiable_float_output_does_not_require_grad():
    class Marked(Function):
        @staticmethod
        def forward(ctx, a):
            out = a * 2
            ctx.mark_non_differentiable(out)
            return out

        @staticmethod
        def backward(ctx, g):
            return g

    out = Marked.apply(leaf([1.0]))
    assert not out.requires_grad and out.grad_fn is None


def test_none_gradient_for_an_input():
    class OnlySecond(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return None, g

    x, y = leaf([3.0]), leaf([3.0])
    OnlySecond.apply(x, y).sum().backward()
    assert x.grad is None
    np.testing.assert_allclose(y.grad.numpy(), [1.0])


def test_returning_an_input_gives_a_new_tensor_in_the_graph():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = leaf([3.0])
    out = Identity.apply(x)
    assert out is not x and x.is_leaf
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0])


def test_not_recorded_under_no_grad_or_without_inputs_requiring_grad():
    with symgrad.no_grad():
        y = MyExp.apply(leaf([0.0]))
    z = MyExp.apply(symgrad.tensor([0.0]))
    assert y.grad_fn is None and not y.requires_grad
    assert z.grad_fn is None and not z.requires_grad


def test_double_backward_through_a_differentiable_backward():
    x = leaf([3.0])
    (g,) = symgrad.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    (g2,) = symgrad.autograd.grad(g.sum(), x)
    assert g.item() == 6.0 and g2.item() == 2.0


def test_too_few_gradients_raise():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g

    a = leaf([1.0, 2.0])
    expected = r"BadBackward returned an incorrect number of gradients \(expected 2, got 1\)"
    with pytest.raises(RuntimeError, match=expected):
        Bad.apply(a, a).sum().backward()


def test_too_many_gradients_raise():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 1, got 2\)"):
        Bad.apply(leaf([1.0])).sum().backward()


@pytest.mark.parametrize("shape", [(3,), ()])
def test_gradient_of_the_wrong_shape_raises_naming_both_shapes(shape):
    class Bad(Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum()

        @staticmethod
        def backward(ctx, g):
            return symgrad.ones(shape, dtype=symgrad.float64)

    with pytest.raises(RuntimeError, match="invalid gradient at index 0") as info:
        Bad.apply(leaf([1.0, 2.0])).backward()
    assert f"got {list(shape)}" in str(info.value) and "[2]" in str(info.value)


def test_gradient_that_is_not_a_tensor_raises():
    class Bad(Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return 2.0

    with pytest.raises(RuntimeError, match="expected Variable or None.*must return tensors"):
        Bad.apply(leaf([1.0])).sum().backward()


def test_saved_tensor_modified_in_place_raises_at_backward():
    x = leaf([3.0])
    y = x * 1
    out = Square.apply(y)
    y.add_(1)
    with pytest.raises(RuntimeError, match="(?s)modified by an inplace operation.*SquareBackward"):
        out.sum().backward()


def _saved_tensor_named(T, saved: str) -> str:
    """Where PyTorch's error says a saved tensor changed in place came from: a Function that
    saves its input or its output, the tensor changed by mul_ after the call."""

    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x * 2
            ctx.save_for_backward(x if saved == "input" else out)
            return out

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * 2

    x = T.tensor([1.0, 2.0], requires_grad=True)
    h = x * 1
    y = Scale.apply(h)
    (h if saved == "input" else y).mul_(3)
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    return str(info.value).split("], ")[1].split(" is at")[0]


SAVED_TENSOR_NAMES = {
    "input": "which is output 0 of Mul,",
    "output": "which is output 0 of Scale,",
}


@pytest.mark.parametrize("saved", sorted(SAVED_TENSOR_NAMES))
def test_a_saved_output_changed_in_place_is_named_as_the_functions_output(saved):
    # a saved output was named by the node of the in-place op ("output 0 of Mul")
    assert _saved_tensor_named(symgrad, saved) == SAVED_TENSOR_NAMES[saved]


@pytest.mark.torch
@pytest.mark.parametrize("saved", sorted(SAVED_TENSOR_NAMES))
def test_a_saved_output_changed_in_place_is_named_as_pytorch(saved):
    torch = pytest.importorskip("torch")
    assert _saved_tensor_named(torch, saved) == SAVED_TENSOR_NAMES[saved]


def test_saved_tensors_are_freed_after_backward():
    x = leaf([3.0])
    out = Square.apply(x).sum()
    out.backward()
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()


def test_backward_that_ignores_its_saved_tensors_can_run_twice():
    class Doubler(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf([3.0])
    out = Doubler.apply(x).sum()
    out.backward()
    out.backward()  # PyTorch only complains when a freed saved tensor is read
    assert x.grad.item() == 4.0


@pytest.mark.torch
def test_custom_exp_matches_pytorch():
    torch = pytest.importorskip("torch")

    class TorchExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad_output):
            (out,) = ctx.saved_tensors
            return grad_output * out

    values = np.array([-1.0, 0.25, 2.0])
    ours, theirs = leaf(values), torch.tensor(values, requires_grad=True)
    (MyExp.apply(ours) * ours).sum().backward()
    (TorchExp.apply(theirs) * theirs).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_a_leaf_first_used_by_a_function_gets_its_whole_gradient():
    # the leaf's AccumulateGrad node is made after Square's node (when apply builds the edges):
    # it still runs last, after the ops that use the leaf later
    x = leaf([1.0, 2.0])
    y = Square.apply(x)
    (y + x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0 * 1 + 3, 2.0 * 2 + 3])


def _instance_call(lib):
    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        instance = Twice()
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward"):
        instance(lib.ones(2, requires_grad=True))
    return Twice.apply(lib.ones(2)).tolist()


def test_calling_an_instance_raises_and_names_apply():
    assert _instance_call(symgrad) == [2.0, 2.0]
    with pytest.warns(DeprecationWarning):
        instance = MyExp()
    with pytest.raises(RuntimeError, match=r"MyExp\.apply\(\.\.\.\) rather than MyExp\(\)"):
        instance(leaf([1.0]))


@pytest.mark.torch
def test_calling_an_instance_raises_as_in_pytorch():
    torch = pytest.importorskip("torch")
    assert _instance_call(torch) == [2.0, 2.0]
