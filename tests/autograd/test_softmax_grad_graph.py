"""The gradients of softmax and log_softmax are nodes of their own under create_graph, as
PyTorch's (SoftmaxBackwardDataBackward0, LogSoftmaxBackwardDataBackward0; they were a
composite of exp, sum, mul and sub), with correct second and third derivatives."""

from __future__ import annotations

import numpy as np
import pytest
from _graph_names import node_names

import symgrad
import symgrad.nn.functional as F


def _x() -> symgrad.Tensor:
    values = np.random.default_rng(0).standard_normal((3, 5))
    return symgrad.tensor(values, requires_grad=True)


def test_cross_entropy_double_backward_nodes() -> None:
    x = _x()
    (g,) = symgrad.autograd.grad(
        F.cross_entropy(x, symgrad.tensor([0, 3, 4])), x, create_graph=True
    )
    assert node_names(g) == {
        "AccumulateGrad",
        "LogSoftmaxBackward0",
        "LogSoftmaxBackwardDataBackward0",
        "NllLossBackwardBackward0",
    }


def test_softmax_double_backward_nodes() -> None:
    x = _x()
    (g,) = symgrad.autograd.grad((symgrad.softmax(x, 1) ** 2).sum(), x, create_graph=True)
    assert "SoftmaxBackwardDataBackward0" in node_names(g) and "SumBackward1" not in node_names(g)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: symgrad.softmax(x, 1),
        lambda x: symgrad.log_softmax(x, 0),
        lambda x: symgrad.log_softmax(x * x, -1),
    ],
)
def test_higher_derivatives_against_finite_differences(fn) -> None:  # noqa: ANN001
    w = symgrad.tensor(np.random.default_rng(1).standard_normal((3, 5)))

    def grad_of(x: symgrad.Tensor) -> symgrad.Tensor:
        (g,) = symgrad.autograd.grad((fn(x) * w).sum(), x, create_graph=True)
        return (g * g * w).sum()

    assert symgrad.autograd.gradcheck(grad_of, (_x(),))
    assert symgrad.autograd.gradgradcheck(grad_of, (_x(),))


def test_per_sample_hessians_under_vmap() -> None:
    def loss(x: symgrad.Tensor) -> symgrad.Tensor:
        return symgrad.log_softmax(x, 0)[1] + symgrad.softmax(x, 0)[2]

    xs = symgrad.tensor(np.random.default_rng(2).standard_normal((4, 5)))
    batched = symgrad.func.vmap(symgrad.func.hessian(loss))(xs)
    for k in range(4):
        one = symgrad.func.hessian(loss)(xs[k])
        np.testing.assert_allclose(batched[k].numpy(), one.numpy(), rtol=1e-12, atol=1e-14)
