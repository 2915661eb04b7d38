"""Tensor hooks (``register_hook``, handles) and ``retain_grad``, with PyTorch's ordering."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad


def leaf(values):
    return symgrad.tensor(values, dtype=symgrad.float64, requires_grad=True)


def test_leaf_hook_sees_the_gradient_and_can_replace_it():
    x = leaf([1.0, 2.0])
    seen = []

    def hook(g):
        seen.append(g.clone())
        return g * 10

    x.register_hook(hook)
    (x * x).sum().backward()
    np.testing.assert_allclose(seen[0].numpy(), [2.0, 4.0])
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 40.0])


def test_non_leaf_hook_replaces_the_gradient_flowing_on():
    x = leaf([1.0, 2.0])
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.clone()) or g * 10)
    (y * y).sum().backward()
    np.testing.assert_allclose(seen[0].numpy(), [6.0, 12.0])  # 2 y
    np.testing.assert_allclose(x.grad.numpy(), [180.0, 360.0])  # 3 * 10 * 2 y


def test_hook_returning_none_keeps_the_gradient():
    x = leaf([1.0, 2.0])
    y = x * 3
    calls = []
    y.register_hook(lambda g: calls.append("y"))
    x.register_hook(lambda g: calls.append("x"))
    y.sum().backward()
    assert calls == ["y", "x"]
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_non_leaf_hook_sees_the_summed_gradient_once():
    x = leaf([1.0, 2.0])
    y = x * 1
    seen = []
    y.register_hook(lambda g: seen.append(g.clone()))
    (y * 2 + y * 3).sum().backward()
    assert len(seen) == 1
    np.testing.assert_allclose(seen[0].numpy(), [5.0, 5.0])


def test_hooks_run_in_registration_order_each_on_the_previous_result():
    x = leaf([1.0])
    order = []
    x.register_hook(lambda g: order.append("first") or g + 1)
    x.register_hook(lambda g: order.append(("second", g.item())) or g * 2)
    x.sum().backward()
    assert order == ["first", ("second", 2.0)]
    assert x.grad.item() == 4.0


def test_removed_hook_no_longer_runs():
    x = leaf([1.0, 2.0])
    handle = x.register_hook(lambda g: g * 10)
    handle.remove()
    handle.remove()  # a second remove is harmless
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])


def test_removed_non_leaf_hook_no_longer_runs():
    x = leaf([1.0, 2.0])
    y = x * 3
    handle = y.register_hook(lambda g: g * 10)
    handle.remove()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])


def test_hook_on_a_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        symgrad.ones(2).register_hook(lambda g: g)


def test_hook_changing_the_shape_raises_naming_both_shapes():
    x = leaf([1.0, 2.0])
    y = x * 1

    def widen(g):
        return symgrad.ones(3, dtype=symgrad.float64)

    y.register_hook(widen)
    with pytest.raises(RuntimeError, match=r"hook 'widen' has changed the size.*\[2\].*\[3\]"):
        y.sum().backward()


def test_leaf_hook_changing_the_shape_raises():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match="changed the size"):
        (x * 2).sum().backward()


def test_hook_changing_the_dtype_raises():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: g.float())
    with pytest.raises(RuntimeError, match="changed the type"):
        (x * 2).sum().backward()


def test_hook_returning_a_non_tensor_raises():
    x = leaf([1.0, 2.0])
    x.register_hook(lambda g: 3.0)
    with pytest.raises(TypeError, match="must return a Tensor or None"):
        (x * 2).sum().backward()


def test_hook_registered_before_an_in_place_op_sees_the_old_version():
    x = leaf([1.0, 2.0])
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.clone()))
    y.mul_(3)
    (y * y).sum().backward()
    np.testing.assert_allclose(seen[0].numpy(), [36.0, 72.0])  # d/dy_old of (3 y_old)^2


# -- retain_grad ---------------------------------------------------------------------------------


def test_retain_grad_keeps_a_non_leaf_gradient():
    a, b, c, d = (leaf([v]) for v in (2.0, 3.0, 5.0, 10.0))
    t = d.log()
    t.retain_grad()
    e = a * b + t * c
    assert t.retains_grad and not a.retains_grad and not e.retains_grad
    e.backward()
    np.testing.assert_allclose(t.grad.numpy(), [5.0])
    with pytest.warns(UserWarning, match="not a leaf"):
        assert e.grad is None


def test_retained_grad_accumulates():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    z = y.sum()
    z.backward(retain_graph=True)
    z.backward()
    np.testing.assert_allclose(y.grad.numpy(), [2.0, 2.0])


def test_retained_grad_is_the_users_own_copy():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    (y * 3).sum().backward()
    y.grad.add_(100)
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])


def test_retain_grad_on_a_leaf_is_a_no_op():
    x = leaf([1.0, 2.0])
    x.retain_grad()
    x.sum().backward()
    assert not x.retains_grad
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])


def test_retain_grad_on_a_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        symgrad.ones(2).retain_grad()


@pytest.mark.parametrize("retain_first", [True, False])
def test_retain_grad_runs_after_every_hook_whatever_the_order(retain_first):
    x = leaf([1.0, 2.0])
    y = x * 3
    if retain_first:
        y.retain_grad()
    y.register_hook(lambda g: g * 10)
    if not retain_first:
        y.retain_grad()
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [60.0, 120.0])
    np.testing.assert_allclose(x.grad.numpy(), [180.0, 360.0])


def test_retain_grad_follows_a_tensor_modified_in_place():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.mul_(3)
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [12.0, 24.0])  # 2 y_new
    np.testing.assert_allclose(x.grad.numpy(), [72.0, 144.0])


def test_reading_non_leaf_grad_warns_only_while_unset():
    x = leaf([1.0])
    y = x * 2
    with pytest.warns(UserWarning, match="retain_grad"):
        _ = y.grad
    y.grad = symgrad.ones(1, dtype=symgrad.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.item() == 1.0


def test_reading_a_leaf_grad_never_warns():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert leaf([1.0]).grad is None
        assert symgrad.ones(1).grad is None


@pytest.mark.torch
def test_hooks_and_retain_grad_match_pytorch():
    torch = pytest.importorskip("torch")

    def run(lib):
        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        y = x.exp()
        y.retain_grad()
        y.register_hook(lambda g: g * 2)
        z = y * x
        z.register_hook(lambda g: g + 1)
        z.sum().backward()
        return x.grad.numpy(), y.grad.numpy()

    for ours, theirs in zip(run(symgrad), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def _hook_order(lib):
    log = []
    a = lib.tensor([1.0], requires_grad=True)
    b = lib.tensor([2.0], requires_grad=True)
    y = a * 2
    z = y * 3
    w = (z + b).sum()
    for name, t in (("b", b), ("a", a), ("y", y), ("z", z)):
        t.register_hook(lambda g, name=name: log.append(name))
    w.backward()
    return log


def test_a_leaf_hook_runs_as_soon_as_its_gradient_is_complete():
    # b's gradient is complete once the sum's AddBackward0 has run: before z's and y's nodes
    assert _hook_order(symgrad) == ["b", "z", "y", "a"]


@pytest.mark.torch
def test_hook_order_matches_pytorch():
    torch = pytest.importorskip("torch")
    assert _hook_order(symgrad) == _hook_order(torch)


def _hooks_of_differentiated_tensors(lib):
    a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([3.0, 4.0], dtype=lib.float64)
    a.register_hook(lambda g: g * 10)
    y = a * b
    y.register_hook(lambda g: g + 1)
    (ga,) = lib.autograd.grad((y * b).sum(), a, retain_graph=True)
    (gy,) = lib.autograd.grad((y * b).sum(), y)
    return ga.tolist(), gy.tolist()


def test_autograd_grad_returns_what_the_hooks_of_its_inputs_give():
    # a's hook scales what autograd.grad returns, y's adds to it (as backward's .grad would)
    assert _hooks_of_differentiated_tensors(symgrad) == ([120.0, 200.0], [4.0, 5.0])


@pytest.mark.torch
def test_autograd_grad_runs_input_hooks_as_pytorch():
    torch = pytest.importorskip("torch")
    assert _hooks_of_differentiated_tensors(torch) == ([120.0, 200.0], [4.0, 5.0])
