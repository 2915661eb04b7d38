"""``batch_norm``'s running statistics, the normalizations' argument errors and edge cases
(zero vectors, empty batches), and their second derivatives. Expected numbers are
PyTorch's (2.13); with PyTorch importable the running statistics are recomputed there too."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as SF
from symgrad.autograd import gradcheck, gradgradcheck

X = [[0.5, -1.0, 2.0, 0.0], [1.5, 1.0, -0.5, 3.0], [-2.0, 0.25, 0.75, 1.0]]


def _stats(T, momentum):
    x = T.tensor(X, dtype=T.float64)
    mean, var = T.zeros(4, dtype=T.float64), T.ones(4, dtype=T.float64)
    T.nn.functional.batch_norm(x, mean, var, training=True, momentum=momentum)
    return mean, var


def test_running_statistics_move_by_momentum_with_the_unbiased_variance():
    mean, var = _stats(symgrad, 0.3)
    np.testing.assert_allclose(mean.numpy(), [0.0, 0.025, 0.225, 0.4], rtol=1e-15, atol=1e-17)
    np.testing.assert_allclose(var.numpy(), [1.675, 1.00625, 1.16875, 1.4], rtol=1e-15)
    assert mean._version == 0  # written by the kernel, as PyTorch's (no version bump)


def test_running_statistics_match_pytorch():
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(_stats(symgrad, 0.3), _stats(torch, 0.3)):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-15)


def test_running_statistics_of_views_update_the_base():
    mean, var = symgrad.zeros(4), symgrad.ones(4)
    x = symgrad.tensor(X).reshape(3, 2, 2)
    SF.batch_norm(x, mean[:2], var[:2], training=True)
    np.testing.assert_allclose(mean.numpy(), [0.004166667, 0.104166664, 0.0, 0.0], rtol=1e-6)
    np.testing.assert_allclose(var.numpy(), [1.0710417, 1.0660416, 1.0, 1.0], rtol=1e-6)


def test_evaluation_leaves_the_statistics_alone():
    mean, var = symgrad.zeros(4, dtype=symgrad.float64), symgrad.ones(4, dtype=symgrad.float64)
    y = SF.batch_norm(symgrad.tensor(X, dtype=symgrad.float64), mean, var)
    np.testing.assert_allclose(y.numpy(), np.array(X) / np.sqrt(1 + 1e-5), rtol=1e-15)
    assert mean.tolist() == [0.0] * 4 and var.tolist() == [1.0] * 4


def test_batch_norm_errors():
    x = symgrad.ones(3, 4)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        SF.batch_norm(symgrad.ones(1, 4), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        SF.batch_norm(x, None, None)
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        SF.batch_norm(x, symgrad.zeros(3), symgrad.ones(3))
    with pytest.raises(RuntimeError, match="weight should contain 4 elements not 2"):
        SF.batch_norm(x, None, None, symgrad.ones(2), training=True)
    with pytest.raises(ValueError, match="both be None or neither"):
        SF.batch_norm(x, symgrad.zeros(4), None, training=True)
    with pytest.raises(ValueError, match="eps must be positive"):
        SF.batch_norm(x, None, None, training=True, eps=0.0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        SF.batch_norm(symgrad.ones(6), None, None, training=True)


def test_batch_norm_of_an_empty_batch_keeps_the_graph():
    x = symgrad.ones(0, 3, requires_grad=True)
    y = SF.batch_norm(x, None, None, symgrad.ones(3, requires_grad=True), training=True)
    assert y.shape == (0, 3) and y.grad_fn.name() == "MulBackward0"


def test_layer_norm_errors():
    x = symgrad.ones(4, 6)
    with pytest.raises(RuntimeError, match=r"expected input with shape \[\*, 5\]"):
        SF.layer_norm(x, (5,))
    with pytest.raises(TypeError, match="must be tuple of ints, not int"):
        SF.layer_norm(x, 6)
    with pytest.raises(RuntimeError, match="weight to be of same shape"):
        SF.layer_norm(x, (6,), symgrad.ones(5))
    with pytest.raises(RuntimeError, match="at least 1-dimensional"):
        SF.layer_norm(x, ())
    with pytest.raises(NotImplementedError, match="LayerNormKernelImpl"):
        SF.layer_norm(symgrad.ones(4, 6, dtype=symgrad.int64), (6,))


def test_group_norm_errors():
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        SF.group_norm(symgrad.ones(4, 6), 4)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        SF.group_norm(symgrad.ones(6), 3)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        SF.group_norm(symgrad.ones(1, 3), 3)
    with pytest.raises(RuntimeError, match="number of channels"):
        SF.group_norm(symgrad.ones(2, 6), 3, symgrad.ones(5))


def test_constant_rows_normalize_to_zero():
    y = SF.layer_norm(symgrad.ones(2, 3, dtype=symgrad.float64), (3,))
    assert y.tolist() == [[0.0] * 3] * 2


def test_cosine_similarity_of_a_zero_vector_uses_eps():
    a = symgrad.tensor([[0.0, 0.0, 0.0], [1.0, 2.0, 2.0]], dtype=symgrad.float64)
    b = symgrad.tensor([[1.0, 0.0, 0.0], [0.0, 3.0, 4.0]], dtype=symgrad.float64)
    a.requires_grad_(), b.requires_grad_()
    c = SF.cosine_similarity(a, b)
    assert c.grad_fn.name() == "SumBackward1"
    c.sum().backward()
    np.testing.assert_allclose(c.detach().numpy(), [0.0, 0.9333333333333333], rtol=1e-15)
    expected_a = [
        [1e8, 0.0, 0.0],
        [-0.1037037037037037, -0.007407407407407418, 0.05925925925925926],
    ]
    np.testing.assert_allclose(a.grad.numpy(), expected_a, rtol=1e-12, atol=1e-16)
    expected_b = [[0.0, 0.0, 0.0], [0.06666666666666667, 0.021333333333333343, -0.016]]
    np.testing.assert_allclose(b.grad.numpy(), expected_b, rtol=1e-12, atol=1e-16)


def test_normalize_of_a_zero_vector():
    a = symgrad.tensor([[0.0, 0.0]], dtype=symgrad.float64, requires_grad=True)
    n = SF.normalize(a)
    n.sum().backward()
    assert n.tolist() == [[0.0, 0.0]] and a.grad.tolist() == [[1e12, 1e12]]


def test_cosine_similarity_errors():
    with pytest.raises(RuntimeError, match="floating point, yet common dtype is Long"):
        SF.cosine_similarity(symgrad.ones(2, 3, dtype=symgrad.int64), symgrad.ones(2, 3).long())
    with pytest.raises(RuntimeError, match="must match the size"):
        SF.cosine_similarity(symgrad.ones(2, 3), symgrad.ones(4, 3))
    mixed = SF.cosine_similarity(symgrad.ones(2, 3, dtype=symgrad.int64), symgrad.ones(2, 3))
    assert mixed.dtype is symgrad.float32


def test_pairwise_distance_adds_eps_and_records_at_norm():
    d = SF.pairwise_distance(symgrad.tensor([1.0, 2.0]), symgrad.tensor([1.0, 2.0]))
    assert d.shape == () and d.item() == pytest.approx(1.4142e-06, rel=1e-4)
    x = symgrad.ones(2, 3, requires_grad=True)
    assert SF.pairwise_distance(x, symgrad.zeros(3)).grad_fn.name() == "NormBackward1"


@pytest.mark.parametrize(
    "fn",
    [
        lambda x, w, b: SF.layer_norm(x, (4,), w, b),
        lambda x, w, b: SF.group_norm(x.reshape(3, 2, 2), 2, w[:2], b[:2]),
        lambda x, w, b: SF.batch_norm(x, None, None, w, b, training=True),
        lambda x, w, b: SF.batch_norm(
            x, symgrad.zeros(4, dtype=symgrad.float64), symgrad.ones(4, dtype=symgrad.float64), w, b
        ),
    ],
)
def test_first_and_second_derivatives_by_finite_differences(fn):
    rng = np.random.default_rng(0)
    leaves = [
        symgrad.tensor(rng.standard_normal(s), dtype=symgrad.float64, requires_grad=True)
        for s in ((3, 4), (4,), (4,))
    ]
    assert gradcheck(fn, leaves)
    assert gradgradcheck(fn, leaves)


def test_normalize_writes_into_out():
    out = symgrad.empty(1, 2)
    assert SF.normalize(symgrad.tensor([[3.0, 4.0]]), out=out) is out
    np.testing.assert_allclose(out.numpy(), [[0.6, 0.8]], rtol=1e-6)
