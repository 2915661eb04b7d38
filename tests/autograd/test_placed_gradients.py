"""Gradients of basic indexes (``x[0]``, ``x[:, 2:]``) wait in a backward pass's buffers as
blocks in place (``symgrad.autograd.placed``) and are summed into one array. The values
are the rule's arrays' (every combination below against plain expected values, the same
graph without the shortcut, and PyTorch), hooks, retained gradients and ``.grad`` see
arrays, and the zero of a negative-zero gradient keeps its sign, as PyTorch's copy into the
slice does."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.autograd import placed

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])


def _heads(T, x):
    q, k, v = x[0], x[1], x[2]
    return (q * 2.0 + k * 3.0 - v).sum() + (q * k).sum()


def _halves(T, x):
    a, b = x[:, :2], x[:, 2:]
    return (a.exp() * b).sum() + x[1].sum() + x[::2, 1:3].sum()


def _overlap(T, x):
    return (x[:, :3] * 2.0).sum() + (x[:, 1:] ** 2).sum() + x[..., None][1].sum()


def _whole_and_part(T, x):
    return (x * x[0]).sum() + x[-1, -1]


def _chain(T, x):
    return (x[1][2:] * 5.0).sum() + x[0][1]


CASES = {"heads": _heads, "halves": _halves, "overlap": _overlap, "whole": _whole_and_part,
         "chain": _chain}  # fmt: skip
X = np.arange(12.0).reshape(3, 4) / 7 - 0.5


def _expected(f):
    """Central differences of ``f`` on float64 (exact enough for these polynomials and exp)."""
    h, grad = 1e-6, np.zeros_like(X)
    for i in np.ndindex(X.shape):
        up, down = X.copy(), X.copy()
        up[i] += h
        down[i] -= h
        value = (
            float(f(symgrad, symgrad.tensor(up))) - float(f(symgrad, symgrad.tensor(down)))
        ) / (2 * h)
        grad[i] = value
    return grad


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_summed_blocks_give_the_gradient(lib, name):
    x = lib.tensor(X, requires_grad=True)
    CASES[name](lib, x).backward()
    np.testing.assert_allclose(x.grad.numpy(), _expected(CASES[name]), rtol=1e-6, atol=1e-8)


@pytest.mark.filterwarnings("ignore:Anomaly Detection has been enabled")
@pytest.mark.parametrize("name", CASES)
def test_blocks_give_the_rules_values_bit_for_bit(name):
    """The same pass with and without blocks (anomaly mode runs the rules' arrays): the
    same bits, through ``backward`` and through ``autograd.grad``."""
    rng = np.random.default_rng(7)
    data = rng.standard_normal(X.shape).astype(np.float32)
    x = symgrad.tensor(data, requires_grad=True)
    CASES[name](symgrad, x).backward()
    (taken,) = symgrad.autograd.grad(CASES[name](symgrad, x), x)
    with symgrad.autograd.detect_anomaly():
        (plain,) = symgrad.autograd.grad(CASES[name](symgrad, x), x)
    assert x.grad.dtype == taken.dtype == plain.dtype == symgrad.float32
    np.testing.assert_array_equal(x.grad.numpy(), plain.numpy())
    np.testing.assert_array_equal(taken.numpy(), plain.numpy())


def test_blocks_are_summed_into_one_array(monkeypatch):
    """Three heads of one tensor: one array of zeros is made for their sum."""
    made = []
    real = placed.Placed.array
    monkeypatch.setattr(placed.Placed, "array", lambda self: made.append(1) or real(self))
    x = symgrad.tensor(X, requires_grad=True)
    _heads(symgrad, x).backward()
    assert len(made) == 1
    assert (
        x.grad.tolist()
        == (np.array([[2.0], [3.0], [-1.0]]) + X[[1, 0, 2]] * [[1], [1], [0]]).tolist()
    )


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_hooks_and_retained_gradients_see_arrays(lib):
    x = lib.tensor(X, requires_grad=True)
    y = x * 1.0
    seen = []
    y.register_hook(lambda g: seen.append(type(g).__name__) or g * 2)
    s = y[0]
    s.retain_grad()
    (s * 3.0 + y[1]).sum().backward()
    assert seen == ["Tensor"]
    assert s.grad.tolist() == [3.0] * 4
    assert x.grad.tolist() == [[6.0] * 4, [2.0] * 4, [0.0] * 4]
    assert type(x.grad) is lib.Tensor


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_gradients_accumulate_over_passes(lib):
    x = lib.tensor(X, requires_grad=True)
    loss = x[0].sum() + x[0:2].sum()
    loss.backward(retain_graph=True)
    loss.backward()
    assert x.grad.tolist() == [[4.0] * 4, [2.0] * 4, [0.0] * 4]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_negative_zero_keeps_its_sign(lib):
    """PyTorch copies an index's gradient into zeros: a -0.0 stays -0.0 (in every pass)."""
    x = lib.zeros(3, requires_grad=True)
    x[1].backward(lib.tensor(-0.0))
    assert [np.copysign(1, v) for v in x.grad.tolist()] == [1, -1, 1]
    y = lib.zeros(3, requires_grad=True)
    (g,) = lib.autograd.grad(y[1:], y, lib.tensor([-0.0, -0.0]))
    assert [np.copysign(1, v) for v in g.tolist()] == [1, -1, -1]


def test_second_derivatives_run_the_rule():
    """``create_graph`` records the rule's ops: the gradient is a tensor with its own graph."""
    x = symgrad.tensor(X, requires_grad=True)
    (g,) = symgrad.autograd.grad((x[0] ** 3).sum() + (x[0:2] ** 2).sum(), x, create_graph=True)
    g.sum().backward()
    assert x.grad.tolist() == [(6 * X[0] + 2).tolist(), [2.0] * 4, [0.0] * 4]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_grad_of_inputs_and_node_hooks_see_arrays(lib):
    """``autograd.grad`` of a leaf and of an index's result; a node hook on the index's node
    gets its gradient as a tensor (of the input's shape)."""
    x = lib.tensor(X, requires_grad=True)
    y = x * 2.0
    s = y[0]
    seen = []
    s.grad_fn.register_hook(lambda gin, gout: seen.append((type(gin[0]), tuple(gin[0].shape))))
    loss = (s * 3.0).sum() + y[1:].sum()
    gx, gs = lib.autograd.grad(loss, [x, s])
    assert seen == [(lib.Tensor, (3, 4))]
    assert gs.tolist() == [3.0] * 4
    assert gx.tolist() == [[6.0] * 4, [2.0] * 4, [2.0] * 4]


def test_grad_makes_one_array_of_zeros(monkeypatch):
    made = []
    real = placed.Placed.array
    monkeypatch.setattr(placed.Placed, "array", lambda self: made.append(1) or real(self))
    x = symgrad.tensor(X, requires_grad=True)
    symgrad.autograd.grad(_heads(symgrad, x), x)
    assert len(made) == 1
