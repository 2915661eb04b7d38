"""In-place ops under autograd: version counters, saved tensors changed in place, leaves that
require grad, and history rebased onto the in-place node."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import symgrad


def leaf(values):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=True)


def version(t):
    """The version counter's value (an int, as in PyTorch)."""
    return t._version


IN_PLACE = {
    "add_": lambda t: t.add_(1),
    "sub_": lambda t: t.sub_(1),
    "mul_": lambda t: t.mul_(2),
    "div_": lambda t: t.div_(2),
    "fill_": lambda t: t.fill_(3),
    "zero_": lambda t: t.zero_(),
    "copy_": lambda t: t.copy_(symgrad.ones(2)),
    "setitem": lambda t: t.__setitem__(0, 5.0),
    "+=": lambda t: t.__iadd__(1),
}


@pytest.mark.parametrize("op", IN_PLACE.values(), ids=IN_PLACE.keys())
def test_every_in_place_op_bumps_the_version_once(op):
    t = symgrad.tensor([1.0, 2.0])
    before = version(t)
    result = op(t)
    assert version(t) == before + 1
    assert result is t or result is None  # __setitem__ returns None


def test_version_counter_is_shared_with_detached_aliases():
    x = symgrad.tensor([1.0, 2.0])
    d = x.detach()
    d.add_(1)
    assert version(x) == version(d) == 1
    np.testing.assert_allclose(x.numpy(), [2.0, 3.0])


def test_data_has_its_own_version_counter():
    x = symgrad.tensor([1.0, 2.0])
    x.data.add_(1)
    assert version(x) == 0
    np.testing.assert_allclose(x.numpy(), [2.0, 3.0])


def test_version_is_an_int_as_in_pytorch():
    t = symgrad.tensor([1.0])
    t.add_(1)
    assert t._version == 1 and isinstance(t._version, int)


# -- saved tensors changed in place ---------------------------------------------------------------


def test_modifying_a_saved_input_raises_at_backward_naming_the_op():
    x = leaf([1.0, 2.0])
    y = x * 1
    z = y * y
    y.mul_(2)
    with pytest.raises(RuntimeError, match="(?s)modified by an inplace.*MulBackward0") as info:
        z.sum().backward()
    assert "version 1; expected version 0" in str(info.value)


def test_modifying_a_saved_output_raises_at_backward_naming_the_op():
    x = leaf([1.0, 2.0])
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match="(?s)modified by an inplace operation.*ExpBackward0"):
        y.sum().backward()


def test_modifying_a_tensor_that_was_not_saved_is_fine():
    x = leaf([1.0, 2.0])
    y = x * 1
    z = y + y  # add saves nothing
    y.mul_(2)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_squaring_in_place_raises_as_pytorch():
    x = leaf([1.0, 2.0])
    y = x * 3
    y.mul_(y)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_modifying_under_no_grad_still_counts():
    x = leaf([1.0, 2.0])
    y = x * 1
    z = y * y
    with symgrad.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_changing_a_quotient_in_place_is_allowed_as_in_pytorch():
    a, b = leaf([1.5, 2.0]), leaf([2.0, 3.0])
    y = a / b
    y.add_(1)
    y.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), [-1.5 / 4, -2.0 / 9])


# -- leaves that require grad ---------------------------------------------------------------------


@pytest.mark.parametrize("op", IN_PLACE.values(), ids=IN_PLACE.keys())
def test_in_place_on_a_leaf_requiring_grad_raises(op):
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        op(x)
    np.testing.assert_allclose(x.detach().numpy(), [1.0, 2.0])


def test_in_place_on_a_leaf_is_allowed_under_no_grad():
    w = leaf([1.0, 2.0])
    (w * w).sum().backward()
    with symgrad.no_grad():
        w.sub_(0.5 * w.grad)
        w -= 0.25 * w.grad
    np.testing.assert_allclose(w.detach().numpy(), [-0.5, -1.0])  # w - 0.75 * 2w
    assert w.is_leaf and w.requires_grad and w.grad_fn is None


# -- rebased history -------------------------------------------------------------------------------


def test_in_place_chain_on_a_non_leaf_gives_the_right_gradient():
    # y = ((2x + x) * x - x*x) / 2 = x^2, so dy/dx = 2x
    x = leaf([1.0, 2.0, -3.0])
    y = x * 2
    y.add_(x)
    y.mul_(x)
    y.sub_(x * x)
    y.div_(2)
    assert type(y.grad_fn).__name__ == "DivBackward0" and not y.is_leaf
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy())


def test_in_place_with_an_operand_requiring_grad_on_a_constant():
    a = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64)
    x = leaf([3.0, 4.0])
    a.mul_(x)
    assert a.requires_grad and not a.is_leaf
    a.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0])


def test_setitem_on_a_non_leaf():
    x = leaf([1.0, 2.0, 3.0])
    w = leaf(4.0)
    y = x * 1
    y[1] = w * 2
    assert type(y.grad_fn).__name__ == "CopySlices"
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.0, 6.0])
    assert w.grad.item() == 32.0  # d/dw (2w)^2


def test_fill_and_zero_cut_the_old_values_off():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.fill_(3.0)
    assert type(y.grad_fn).__name__ == "FillBackward2"
    z = x * 2
    z.zero_()
    assert type(z.grad_fn).__name__ == "ZeroBackward0"
    (y + z + x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_fill_with_a_tensor_value_passes_the_summed_gradient_to_it():
    x = leaf([1.0, 2.0])
    v = leaf(3.0)
    y = x * 2
    y.fill_(v)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    assert v.grad.item() == 12.0  # sum of 2 v over two elements


def test_copy_passes_the_gradient_to_the_source_in_its_dtype_and_shape():
    x = leaf([1.0, 2.0])
    src = symgrad.tensor([5.0], requires_grad=True)  # float32, broadcast to two elements
    y = x * 2
    y.copy_(src)
    assert type(y.grad_fn).__name__ == "CopyBackwards"
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    assert src.grad.dtype == symgrad.float32
    np.testing.assert_allclose(src.grad.numpy(), [20.0])


def test_copy_into_an_integer_tensor_records_nothing():
    a = symgrad.zeros(2, dtype=symgrad.int64)
    a.copy_(leaf([1.5, 2.5]))
    assert not a.requires_grad and a.grad_fn is None
    assert a.tolist() == [1, 2]


def test_double_backward_through_an_in_place_op():
    x = leaf([1.5])
    y = x * 1
    y.mul_(x)  # y = x^2
    (g,) = symgrad.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = symgrad.autograd.grad(g.sum(), x)
    assert g.item() == 3.0 and h.item() == 2.0


@pytest.mark.torch
def test_in_place_program_matches_pytorch():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x.sin()
        y = y * 1
        y.mul_(x)
        y[0] = x[2] * 3
        y.add_(x.exp())
        y.sum().backward()
        return x.grad.numpy()

    np.testing.assert_allclose(run(symgrad), run(torch), rtol=1e-12)


def test_fill_zero_and_copy_nodes_replay_symbolically():
    from symgrad import symbolic

    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    filled, zeroed, copied = x * 3, x * 3, x * 3
    filled.fill_(2.5)
    zeroed.zero_()
    copied.copy_(x * x)
    total = (filled * x + zeroed + copied).sum()
    x0, x1 = symbolic.symbols(x)
    expected = sympy.Rational(5, 2) * (x0 + x1) + x0**2 + x1**2
    assert sympy.expand(symbolic.expression(total) - expected) == 0
    gradient = list(symbolic.gradient(total, x))
    assert [sympy.expand(gradient[i] - expected.diff(s)) for i, s in enumerate((x0, x1))] == [0, 0]


# -- in-place ops on views ---------------------------------------------------------------------


def test_augmented_assignment_to_a_slice_changes_the_tensor_and_its_gradient():
    x = symgrad.tensor([1.0, 2.0, 3.0], dtype=symgrad.float64, requires_grad=True)
    y = x * 1
    y[1:] *= 2
    (y * y).sum().backward()
    assert y.tolist() == [1.0, 4.0, 6.0]
    assert x.grad.tolist() == [2.0, 16.0, 24.0]  # d/dx of x0^2 + (2 x1)^2 + (2 x2)^2
    assert y.grad_fn.name() == "torch::autograd::CopySlices"


def test_in_place_op_on_a_slice_of_a_slice_reaches_the_first_tensor():
    x = symgrad.tensor([1.0, 2.0, 3.0], dtype=symgrad.float64, requires_grad=True)
    w = symgrad.tensor(3.0, dtype=symgrad.float64, requires_grad=True)
    y = x * 1
    inner = y[0:2][1:]
    inner.mul_(w)
    y.sum().backward()
    assert y.tolist() == [1.0, 6.0, 3.0] and inner.tolist() == [6.0]
    assert x.grad.tolist() == [1.0, 3.0, 1.0]
    assert w.grad.item() == 2.0


def test_a_slice_changed_in_place_stays_a_view_of_the_tensor():
    y = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
    head = y[:2]
    head.add_(1)
    head.mul_(2)  # again: head still views y
    assert y.tolist() == [4.0, 6.0, 3.0] and head.tolist() == [4.0, 6.0]


def test_without_recording_a_view_writes_into_the_tensor_memory():
    y = symgrad.zeros(3)
    y[1:].fill_(2.0)
    y.view(3, 1).add_(1)
    assert y.tolist() == [1.0, 3.0, 3.0]


def test_in_place_on_a_view_of_a_leaf_requiring_grad_raises():
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w[0:1].mul_(2)
