"""autograd.grad with is_grads_batched (one vector-Jacobian product per batch row) and the
deprecated only_inputs."""

import warnings

import numpy as np
import pytest

import symgrad


def test_identity_rows_give_the_jacobian():
    x = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (jac,) = symgrad.autograd.grad(x**2, x, symgrad.eye(3), is_grads_batched=True)
    assert jac.tolist() == [[2.0, 0.0, 0.0], [0.0, 4.0, 0.0], [0.0, 0.0, 6.0]]
    assert jac.grad_fn is None


def test_several_outputs_and_unused_inputs():
    z = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    unused = symgrad.tensor([5.0], requires_grad=True)
    rows = [symgrad.ones(3, 2), symgrad.arange(3.0)]
    dz, du = symgrad.autograd.grad(
        [z.sum(0), (z**3).sum()], [z, unused], rows, is_grads_batched=True, allow_unused=True
    )
    expected = 1 + np.arange(3.0)[:, None, None] * 3 * np.array([[1.0, 4.0], [9.0, 16.0]])
    np.testing.assert_allclose(dz.numpy(), expected)
    assert du is None
    _, zeros = symgrad.autograd.grad(
        z.sum(0), [z, unused], symgrad.ones(3, 2), is_grads_batched=True, materialize_grads=True
    )
    assert zeros.tolist() == [0.0]  # not batched, as in PyTorch


def test_batched_gradients_stay_differentiable():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    (jac,) = symgrad.autograd.grad(
        x**3, x, symgrad.eye(2), is_grads_batched=True, create_graph=True
    )
    assert jac.requires_grad
    (second,) = symgrad.autograd.grad(jac.sum(), x)
    assert second.tolist() == [6.0, 12.0]


def test_batched_grad_output_shape_errors():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="first dimension of each grad_output"):
        symgrad.autograd.grad(x**2, x, symgrad.ones(2), is_grads_batched=True)
    with pytest.raises(RuntimeError, match="first dimension of each grad_output"):
        symgrad.autograd.grad(x**2, x, symgrad.ones(2, 3), is_grads_batched=True)


def test_only_inputs_false_warns_and_is_ignored():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(FutureWarning, match="only_inputs argument is deprecated"):
        (g,) = symgrad.autograd.grad((x**2).sum(), x, only_inputs=False)
    assert g.tolist() == [2.0, 4.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        symgrad.autograd.grad((x**2).sum(), x, only_inputs=True)


def test_batched_grads_match_torch():
    torch = pytest.importorskip("torch")
    data = [[0.5, -1.0], [2.0, 0.25]]
    rows = np.arange(8.0).reshape(2, 2, 2)
    ours = symgrad.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    (a,) = symgrad.autograd.grad(
        ours.tanh() * ours, ours, symgrad.tensor(rows), is_grads_batched=True
    )
    (b,) = torch.autograd.grad(
        theirs.tanh() * theirs, theirs, torch.tensor(rows), is_grads_batched=True
    )
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert a.dtype == symgrad.float32 and b.dtype == torch.float32
