"""Gradients arriving at one place are summed into the engine's own buffer where no one else
holds it (large arrays): the sums stay right, and no array the user can see changes."""

import numpy as np
import pytest

import symgrad

N = 1 << 15  # above the size from which the engine sums in place


def _x(seed: int = 0) -> symgrad.Tensor:
    rng = np.random.default_rng(seed)
    return symgrad.tensor(rng.standard_normal(N), requires_grad=True)


def test_a_leaf_used_four_times_gets_the_sum():
    x = _x()
    a = x.detach().numpy().copy()
    (symgrad.sin(x) * symgrad.exp(-x * x) + symgrad.tanh(x)).sum().backward()
    s, e, t = np.sin(a), np.exp(-a * a), np.tanh(a)
    np.testing.assert_allclose(x.grad.numpy(), (np.cos(a) - 2 * a * s) * e + (1 - t * t))


def test_an_inner_node_summing_several_paths():
    x = _x(1)
    a = x.detach().numpy().copy()
    y = x * 2  # y's gradient arrives from three uses
    (y * y + symgrad.sin(y) + 3 * y).sum().backward()
    b = 2 * a
    np.testing.assert_allclose(x.grad.numpy(), 2 * (2 * b + np.cos(b) + 3))


def _c(value: float) -> symgrad.Tensor:
    """A constant factor: the gradient of ``y * _c(v)`` is a new array, the rule's own."""
    return symgrad.full((N,), value, dtype=symgrad.float64)


def test_the_same_gradient_sent_along_two_edges_is_not_changed():
    # add's rule sends one array to both inputs: summing into it would change the other's
    z = _x(3)
    w = z * 1.0
    ((w + w + w) * _c(2.0)).sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), np.full(N, 6.0))


@pytest.mark.parametrize("retained_first", [True, False])
def test_a_retained_gradient_is_not_changed_by_later_sums(retained_first):
    x = _x(4)
    if retained_first:
        other = x * 5.0
        y = x + 0.0  # newer: its gradient reaches x first
    else:
        y = x + 0.0
        other = x * 5.0
    y.retain_grad()
    (y * _c(2.0) + other).sum().backward()
    np.testing.assert_array_equal(y.grad.numpy(), np.full(N, 2.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 7.0))


@pytest.mark.parametrize("kept_first", [True, False])
def test_a_gradient_a_hook_kept_is_not_changed_by_later_sums(kept_first):
    x = _x(5)
    if kept_first:
        other = x * 4.0
        y = x + 0.0
    else:
        y = x + 0.0
        other = x * 4.0
    kept = []
    y.register_hook(lambda g: kept.append(g.numpy()))
    (y * _c(3.0) + other).sum().backward()
    np.testing.assert_array_equal(kept[0], np.full(N, 3.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 7.0))


def test_the_callers_gradient_is_not_changed():
    x = _x(6)
    g = _c(1.0)
    (x + 0.0 + x * 0.5).backward(g)
    np.testing.assert_array_equal(g.numpy(), np.ones(N))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 1.5))
    h = _c(2.0)
    x.grad = None
    w = x + 0.0
    symgrad.autograd.backward([w, w * 1.0], [h, h])
    np.testing.assert_array_equal(h.numpy(), np.full(N, 2.0))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 4.0))


def test_a_tensor_a_hook_returns_is_not_changed():
    x = _x(7)
    shared = _c(1.0)
    other = x * 3.0
    y = x + 0.0
    y.register_hook(lambda g: shared)
    (y * _c(2.0) + other).sum().backward()
    np.testing.assert_array_equal(shared.numpy(), np.ones(N))
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 4.0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sums_match_pytorch(dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(8)
    a = rng.standard_normal(N).astype(dtype)
    grads = []
    for lib in (symgrad, torch):
        x = lib.tensor(a.copy(), requires_grad=True)
        y = x * 2
        y.retain_grad()
        (lib.sin(y) * y + lib.cos(x) * x + y * 3).sum().backward()
        grads.append((x.grad.detach().numpy(), y.grad.detach().numpy()))
    for ours, theirs in zip(*grads):
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
