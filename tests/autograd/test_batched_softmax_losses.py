"""Forward-mode rules and vmap batching rules of softmax, log_softmax, their gradients and
nll_loss: ``func.hessian`` of a cross-entropy (forward over reverse) runs batched, with no
per-element loop and no warning, and agrees with the closed form ``diag(p) - p pᵀ``. Ops
whose tangent comes from their VJP rule (logsumexp, prod, norm, ...) run batched as well
under ``jacfwd``'s vmap over the basis of tangents."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F

RNG = np.random.default_rng(7)
X = RNG.standard_normal((6, 4))
W = RNG.standard_normal((3, 4))
B = RNG.standard_normal(3)
Y = np.array([0, 2, 1, 2, 0, 1])
CLASS_WEIGHT = np.array([0.5, 2.0, 1.5])


def _probabilities(b: np.ndarray) -> np.ndarray:
    z = X @ W.T + b
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _expected_hessian(reduction: str, weighted: bool) -> np.ndarray:
    """sum over rows of w_n (diag(p_n) - p_n p_nᵀ), over the total weight for a mean."""
    p = _probabilities(B)
    w = CLASS_WEIGHT[Y] if weighted else np.ones(len(Y))
    h = sum(wn * (np.diag(pn) - np.outer(pn, pn)) for wn, pn in zip(w, p))
    return h / w.sum() if reduction == "mean" else h


def _loss(T, reduction: str, weighted: bool):
    x, w, y = T.tensor(X), T.tensor(W), T.tensor(Y)
    weight = T.tensor(CLASS_WEIGHT) if weighted else None
    return lambda b: T.nn.functional.cross_entropy(
        x @ w.T + b, y, weight=weight, reduction=reduction
    )


CASES = [("mean", False), ("sum", False), ("mean", True), ("sum", True)]


@pytest.fixture(autouse=True)
def _warn_again():
    """The fallbacks warn once per process: forget that they did, so each test sees them."""
    from symgrad.prim import batch_rules

    batch_rules._warned.clear()
    importlib.import_module("symgrad.func.vmap")._warned_loop[0] = False


@pytest.mark.parametrize("reduction,weighted", CASES)
def test_hessian_of_cross_entropy_is_batched_and_exact(reduction, weighted):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "runs once per batch element" fallback
        h = symgrad.func.hessian(_loss(symgrad, reduction, weighted))(symgrad.tensor(B))
    np.testing.assert_allclose(h.numpy(), _expected_hessian(reduction, weighted), atol=1e-14)


@pytest.mark.parametrize("reduction,weighted", CASES)
def test_hessian_of_cross_entropy_against_torch(reduction, weighted):
    torch = pytest.importorskip("torch")
    ours = symgrad.func.hessian(_loss(symgrad, reduction, weighted))(symgrad.tensor(B))
    theirs = torch.func.hessian(_loss(torch, reduction, weighted))(torch.tensor(B))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-14)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [0, 1])
def test_forward_mode_tangent_of_softmax(op, dim):
    t = RNG.standard_normal(X.shape)
    _, tangent = symgrad.func.jvp(
        lambda a: getattr(F, op)(a, dim), (symgrad.tensor(X),), (symgrad.tensor(t),)
    )
    e = np.exp(X - X.max(axis=dim, keepdims=True))
    p = e / e.sum(axis=dim, keepdims=True)
    mixed = (p * t).sum(axis=dim, keepdims=True)
    expected = p * (t - mixed) if op == "softmax" else t - mixed
    np.testing.assert_allclose(tangent.numpy(), expected, atol=1e-14)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_forward_over_reverse_of_softmax_gradient(op):
    """The gradient ops (SoftmaxBackwardData, LogSoftmaxBackwardData) have tangents too."""
    weights = RNG.standard_normal(X.shape[1])

    def f(a):
        return (getattr(F, op)(a, 1) * symgrad.tensor(weights)).sum()

    def reference(a):
        return symgrad.func.jacrev(symgrad.func.jacrev(f))(a)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        forward_over_reverse = symgrad.func.jacfwd(symgrad.func.jacrev(f))(symgrad.tensor(X))
    np.testing.assert_allclose(
        forward_over_reverse.numpy(), reference(symgrad.tensor(X)).numpy(), atol=1e-13
    )


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("weighted", [False, True])
def test_vmap_of_nll_loss_and_its_gradient(reduction, weighted):
    batch = RNG.standard_normal((5, len(Y), 3))
    weight = symgrad.tensor(CLASS_WEIGHT) if weighted else None
    y = symgrad.tensor(Y)

    def loss(a):
        return F.nll_loss(a, y, weight=weight, reduction=reduction)

    def grad(a):
        return symgrad.func.grad(lambda v: loss(v).sum())(a)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = symgrad.func.vmap(loss)(symgrad.tensor(batch))
        grads = symgrad.func.vmap(grad)(symgrad.tensor(batch))
    w = CLASS_WEIGHT[Y] if weighted else np.ones(len(Y))
    picked = -batch[:, np.arange(len(Y)), Y] * w
    expected = {"none": picked, "sum": picked.sum(1), "mean": picked.sum(1) / w.sum()}
    np.testing.assert_allclose(values.numpy(), expected[reduction], atol=1e-14)
    coef = w / w.sum() if reduction == "mean" else w
    expected_grad = np.zeros_like(batch)
    expected_grad[:, np.arange(len(Y)), Y] = -coef
    np.testing.assert_allclose(grads.numpy(), expected_grad, atol=1e-15)


REDUCTIONS = {
    "logsumexp": lambda T: lambda a: T.logsumexp(a, 1).sum(),
    "prod": lambda T: lambda a: a.prod(1).sum(),
    "norm": lambda T: lambda a: a.norm(dim=1).sum(),
    "amax_squared": lambda T: lambda a: (a.amax(1) ** 2).sum(),
    "cumprod": lambda T: lambda a: a.cumprod(1).sum(),
}


@pytest.mark.parametrize("name", REDUCTIONS)
def test_hessian_through_ops_without_a_forward_rule(name):
    f = REDUCTIONS[name](symgrad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h = symgrad.func.hessian(f)(symgrad.tensor(X))
    reverse = symgrad.func.jacrev(symgrad.func.jacrev(f))(symgrad.tensor(X))
    np.testing.assert_allclose(h.numpy(), reverse.numpy(), atol=1e-13)
    assert h.shape == (*X.shape, *X.shape)


@pytest.mark.parametrize("name", REDUCTIONS)
def test_hessian_through_ops_without_a_forward_rule_against_torch(name):
    torch = pytest.importorskip("torch")
    ours = symgrad.func.hessian(REDUCTIONS[name](symgrad))(symgrad.tensor(X))
    theirs = torch.func.hessian(REDUCTIONS[name](torch))(torch.tensor(X))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-13)
