"""Forward mode together with reverse mode, and the forward-mode functional API.

Tangents flow through the ops a backward pass runs (forward-over-reverse: Hessian-vector
products), a tangent is differentiable in reverse mode (reverse-over-forward), and
``autograd.functional`` computes Jacobians and Hessians column by column in forward mode.
Expected values are written out; PyTorch's are compared when it is importable.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.autograd.forward_ad as fwAD
from symgrad.autograd import functional as F


def f64(*values):
    return symgrad.tensor(list(values), dtype=symgrad.float64)


def loss(x):
    return (x.sin() * x.exp()).sum() + (x[0] * x[2]) ** 2 + x.softmax(0).max()


X = [0.5, -1.0, 2.0]
V = [1.0, 0.5, -1.0]


def forward_over_reverse(T, fw, x, v, create_graph=True):
    """``H v`` of ``loss``: the gradient taken while the input carries ``v`` as tangent."""
    x = T.tensor(x, dtype=T.float64, requires_grad=True)
    with fw.dual_level():
        d = fw.make_dual(x, T.tensor(v, dtype=T.float64))
        (g,) = T.autograd.grad(loss(d), x, create_graph=create_graph)
        return g.detach().numpy().tolist(), fw.unpack_dual(g).tangent.detach().numpy().tolist()


GRADIENT = [6.09962050754058, -0.14152048688330707, 4.812351710622703]
HVP = [6.731076431289888, 0.17782582772596572, 9.833506565777617]


@pytest.mark.parametrize("create_graph", [True, False])
def test_hessian_vector_product_by_forward_over_reverse(create_graph):
    g, hv = forward_over_reverse(symgrad, fwAD, X, V, create_graph)
    np.testing.assert_allclose(g, GRADIENT, rtol=1e-12)
    np.testing.assert_allclose(hv, HVP, rtol=1e-12)
    _, reverse = F.hvp(loss, f64(*X), f64(*V))  # reverse-over-reverse agrees
    np.testing.assert_allclose(reverse.numpy(), HVP, rtol=1e-12)


@pytest.mark.torch
def test_hessian_vector_product_is_pytorchs():
    torch = pytest.importorskip("torch")
    import torch.autograd.forward_ad as torch_fw

    g, hv = forward_over_reverse(torch, torch_fw, X, V)
    np.testing.assert_allclose(g, GRADIENT, rtol=1e-12)
    np.testing.assert_allclose(hv, HVP, rtol=1e-12)
    x = torch.tensor(X, dtype=torch.float64)
    _, wanted = torch.autograd.functional.hvp(loss, x, torch.tensor(V, dtype=torch.float64))
    np.testing.assert_allclose(hv, wanted.numpy(), rtol=1e-12)


def test_accumulated_grad_carries_no_tangent():
    """As in PyTorch: ``.grad`` holds values only."""
    x = f64(*X).requires_grad_()
    with fwAD.dual_level():
        loss(fwAD.make_dual(x, f64(*V))).backward()
        assert fwAD.unpack_dual(x.grad).tangent is None
    np.testing.assert_allclose(x.grad.numpy(), GRADIENT, rtol=1e-12)


def test_a_tangent_is_differentiable_in_reverse_mode():
    """Reverse-over-forward: the gradient of ``<J(x) v, 1>`` by ``x`` is again ``H v``."""
    x = f64(*X).requires_grad_()
    with fwAD.dual_level():
        d = fwAD.make_dual(x, f64(*V))
        (g,) = symgrad.autograd.grad(loss(d), d, create_graph=True)
        tangent = fwAD.unpack_dual(loss(d)).tangent
    assert tangent.requires_grad
    (hv,) = symgrad.autograd.grad(tangent, x)
    np.testing.assert_allclose(hv.numpy(), HVP, rtol=1e-12)


# -- autograd.functional in forward mode ------------------------------------------------------
def two_in_two_out(a, b):
    return (a.sin()[:2] * b).sum(0), a.exp() @ a


A = [0.5, -1.0, 2.0]
B = [[1.0, 2.0], [0.3, -0.7]]


def _inputs(T):
    return T.tensor(A, dtype=T.float64), T.tensor(B, dtype=T.float64)


def _blocks(result):
    return [[np.asarray(b.detach().numpy()).tolist() for b in row] for row in result]


def test_forward_mode_jacobian_is_the_reverse_mode_one():
    fwd = F.jacobian(two_in_two_out, _inputs(symgrad), vectorize=True, strategy="forward-mode")
    rev = F.jacobian(two_in_two_out, _inputs(symgrad))
    assert type(fwd) is list and all(type(row) is list for row in fwd)  # PyTorch's types
    for f_row, r_row in zip(_blocks(fwd), _blocks(rev)):
        for f, r in zip(f_row, r_row):
            np.testing.assert_allclose(f, r, rtol=1e-12, atol=1e-15)
    single = F.jacobian(lambda a: a.tanh() * 2, f64(*A), vectorize=True, strategy="forward-mode")
    np.testing.assert_allclose(single.numpy(), np.diag(2 / np.cosh(np.array(A)) ** 2), rtol=1e-12)


def test_forward_over_reverse_hessian():
    h = F.hessian(loss, f64(*X), vectorize=True, outer_jacobian_strategy="forward-mode")
    rev = F.hessian(loss, f64(*X))
    np.testing.assert_allclose(h.numpy(), rev.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(h.numpy() @ np.array(V), HVP, rtol=1e-12)


def test_jvp_is_forward_mode_and_the_transposed_vjp_agrees():
    vs = (symgrad.ones(3, dtype=symgrad.float64), symgrad.ones(2, 2, dtype=symgrad.float64))
    outs, tangents = F.jvp(two_in_two_out, _inputs(symgrad), vs)
    _, strict = F.jvp(two_in_two_out, _inputs(symgrad), vs, strict=True)  # double VJP
    for a, b in zip(tangents, strict):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    np.testing.assert_allclose(tangents[0].numpy(), [2.0997084076658905, -0.9805489719872114])
    assert tangents[1].item() == pytest.approx(24.640250202842143, rel=1e-12)
    np.testing.assert_allclose(outs[1].item(), np.exp(A) @ np.array(A), rtol=1e-12)


@pytest.mark.torch
def test_functional_forward_mode_is_pytorchs():
    torch = pytest.importorskip("torch")
    ours = F.jacobian(two_in_two_out, _inputs(symgrad), vectorize=True, strategy="forward-mode")
    theirs = torch.autograd.functional.jacobian(
        two_in_two_out, _inputs(torch), vectorize=True, strategy="forward-mode"
    )
    assert type(ours) is type(theirs) and type(ours[0]) is type(theirs[0])
    for o_row, t_row in zip(_blocks(ours), _blocks(theirs)):
        for o, t in zip(o_row, t_row):
            np.testing.assert_allclose(o, t, rtol=1e-12, atol=1e-15)
    vs_t = (torch.ones(3, dtype=torch.float64), torch.ones(2, 2, dtype=torch.float64))
    vs_s = (symgrad.ones(3, dtype=symgrad.float64), symgrad.ones(2, 2, dtype=symgrad.float64))
    _, ours = F.jvp(two_in_two_out, _inputs(symgrad), vs_s)
    _, theirs = torch.autograd.functional.jvp(two_in_two_out, _inputs(torch), vs_t)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)


FORWARD_MODE_ERRORS = [
    (
        dict(strict=True, vectorize=True, strategy="forward-mode"),
        RuntimeError,
        '`strict=True` and `strategy="forward-mode"` are not supported together (yet)',
    ),
    (
        dict(create_graph=True, vectorize=True, strategy="forward-mode"),
        NotImplementedError,
        '`create_graph=True` and `strategy="forward-mode"` are not supported together (yet)',
    ),
    (
        dict(strategy="forward-mode"),
        NotImplementedError,
        "only implemented for `vectorize=True`",
    ),
]


@pytest.mark.parametrize("kwargs,error,message", FORWARD_MODE_ERRORS)
def test_forward_mode_jacobian_refuses_as_pytorch(kwargs, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        F.jacobian(lambda a: a**2, f64(1.0, 2.0), **kwargs)
    torch = pytest.importorskip("torch")
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        torch.autograd.functional.jacobian(lambda a: a**2, torch.ones(2), **kwargs)


def test_forward_over_reverse_hessian_needs_vectorize():
    message = "only implemented for `vectorize=True`"
    with pytest.raises(NotImplementedError, match=message):
        F.hessian(loss, f64(*X), outer_jacobian_strategy="forward-mode")
