"""The sign of a zero gradient, as PyTorch gives it: ``x.grad`` prints ``0.`` or ``-0.``.

relu's backward is ``threshold_backward``, a select: where the input was cut, the gradient is
``+0`` whatever arrives (a negative number, inf or nan). ``amax``'s is the incoming gradient
times a mask over the count of maxima: ``g * 0``, so ``-0`` where a negative gradient arrives.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F

X = [-1.0, 2.0, -3.0, 0.25, 1.0]

_RELUS = {
    "relu": lambda x: x.relu(),
    "symgrad.relu": lambda x: symgrad.relu(x),
    "F.relu": lambda x: F.relu(x),
    "relu_": lambda x: (x * 1).relu_(),
    "rrelu (eval)": lambda x: F.rrelu(x, training=False) * 0 + F.relu(x),
}


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
@pytest.mark.parametrize("name", sorted(_RELUS))
def test_relu_cut_gradient_is_positive_zero(name: str, dtype: symgrad.dtype) -> None:
    x = symgrad.tensor(X, dtype=dtype, requires_grad=True)
    (_RELUS[name](x) * -2).sum().backward()
    grad = x.grad.numpy()
    np.testing.assert_array_equal(grad, [0.0, -2.0, 0.0, -2.0, -2.0])
    assert np.signbit(grad).tolist() == [False, True, False, True, True]
    assert "-0." not in repr(x.grad)


@pytest.mark.parametrize("incoming", [np.inf, -np.inf, np.nan])
def test_relu_cut_gradient_drops_infinities_and_nan(incoming: float) -> None:
    x = symgrad.tensor(X, requires_grad=True)
    x.relu().backward(symgrad.full((5,), incoming))
    grad = x.grad.numpy()
    assert grad[0] == 0.0 and grad[2] == 0.0 and not np.signbit(grad[[0, 2]]).any()
    np.testing.assert_array_equal(grad[[1, 3, 4]], [incoming] * 3)


def test_relu_nan_input_passes_its_gradient() -> None:
    x = symgrad.tensor([np.nan, -1.0, 0.0], requires_grad=True)
    x.relu().backward(symgrad.tensor([-5.0, -5.0, -5.0]))
    grad = x.grad.numpy()
    np.testing.assert_array_equal(grad, [-5.0, 0.0, 0.0])
    assert np.signbit(grad).tolist() == [True, False, False]


def test_relu_broadcast_gradient() -> None:
    """A gradient spread from one value (a sum's) keeps the signs too."""
    x = symgrad.tensor([[-1.0, 2.0], [3.0, -4.0]], requires_grad=True)
    (x.relu().sum() * -1).backward()
    grad = x.grad.numpy()
    np.testing.assert_array_equal(grad, [[0.0, -1.0], [-1.0, 0.0]])
    assert np.signbit(grad).tolist() == [[False, True], [True, False]]


def test_relu_large_array_matches_small() -> None:
    """The blocked path of a large array gives the same bits as a small one."""
    rng = np.random.default_rng(0)
    data = rng.standard_normal(200_000).astype(np.float32)
    g = rng.standard_normal(200_000).astype(np.float32)
    x = symgrad.tensor(data, requires_grad=True)
    x.relu().backward(symgrad.tensor(g))
    expected = np.where(data > 0, g, np.float32(0))
    assert x.grad.numpy().tobytes() == expected.tobytes()


@pytest.mark.parametrize("op", ["amax", "amin"])
def test_amax_amin_other_elements_get_negative_zero(op: str) -> None:
    x = symgrad.tensor(X, requires_grad=True)
    (getattr(x, op)(0) * -2).backward()
    grad = x.grad.numpy()
    at = 1 if op == "amax" else 2
    expected = np.zeros(5)
    expected[at] = -2.0
    np.testing.assert_array_equal(grad, expected)
    assert np.signbit(grad).all()


def test_full_max_of_a_nan_gives_the_nans_the_gradient() -> None:
    """PyTorch's evenly_distribute_backward: a nan maximum's gradient goes to the nans."""
    x = symgrad.tensor([1.0, np.nan, 2.0, np.nan], requires_grad=True)
    x.max().backward(symgrad.tensor(-4.0))
    grad = x.grad.numpy()
    np.testing.assert_array_equal(grad, [0.0, -2.0, 0.0, -2.0])
    assert np.signbit(grad).tolist() == [False, True, False, True]
    y = symgrad.tensor([3.0, np.nan], requires_grad=True)
    y.min().backward()
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 1.0])


def test_full_max_ties_share_and_others_get_positive_zero() -> None:
    x = symgrad.tensor([2.0, -1.0, 2.0], requires_grad=True)
    x.max().backward(symgrad.tensor(-1.0))
    grad = x.grad.numpy()
    np.testing.assert_array_equal(grad, [-0.5, 0.0, -0.5])
    assert not np.signbit(grad[1])


def test_amax_of_a_nan_gives_nan_everywhere() -> None:
    """No element equals a nan maximum: the count is 0 and every element gets g / 0 * 0."""
    x = symgrad.tensor([1.0, np.nan, 2.0], requires_grad=True)
    x.amax(0).backward()
    assert np.isnan(x.grad.numpy()).all()


def test_amax_infinite_gradient_is_nan_elsewhere() -> None:
    x = symgrad.tensor([1.0, 3.0, 2.0], requires_grad=True)
    x.amax(0).backward(symgrad.tensor(np.inf))
    grad = x.grad.numpy()
    assert grad[1] == np.inf and np.isnan(grad[[0, 2]]).all()


def test_amax_ties_and_double_backward() -> None:
    x = symgrad.tensor([[1.0, 3.0], [2.0, 2.0]], requires_grad=True)
    (gx,) = symgrad.autograd.grad(x.amax(1), x, symgrad.tensor([-1.0, -4.0]), create_graph=True)
    np.testing.assert_array_equal(gx.detach().numpy(), [[0.0, -1.0], [-2.0, -2.0]])
    assert np.signbit(gx.detach().numpy()).all()
    # the mask and the count are constants: the gradient records nothing, as in PyTorch
    assert gx.grad_fn is None and not gx.requires_grad


@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_of_all_shares_and_others_get_positive_zero(op: str) -> None:
    """PyTorch's evenly_distribute_backward: ``g / count`` at the ties, exactly, ``+0``
    elsewhere."""
    x = symgrad.tensor([2.0, 2.0, 1.0, 3.0, 2.0], requires_grad=True)
    getattr(x, op)().backward(symgrad.tensor(-3.0))
    grad = x.grad.numpy()
    np.testing.assert_array_equal(grad, [-1.0, -1.0, 0.0, 0.0, -1.0])
    assert np.signbit(grad).tolist() == [True, True, False, False, True]


def test_median_of_a_nan_gives_it_the_gradient() -> None:
    x = symgrad.tensor([1.0, np.nan, 2.0], requires_grad=True)
    x.median().backward(symgrad.tensor(-3.0))
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, -3.0, 0.0])


def test_inf_norm_gradient_signs_and_nans() -> None:
    """amax's rule on ``|x|`` times ``sgn(x)``: ``-0`` or ``+0`` off the maximum as the sign
    of ``x`` and of the gradient give it; a nan element gets the gradient times its sign, 0."""
    x = symgrad.tensor([1.0, -5.0, 5.0, -2.0], requires_grad=True)
    symgrad.linalg.vector_norm(x, float("inf")).backward(symgrad.tensor(-1.0))
    grad = x.grad.numpy()
    np.testing.assert_array_equal(grad, [0.0, 0.5, -0.5, 0.0])
    assert np.signbit(grad).tolist() == [True, False, True, False]
    y = symgrad.tensor([1.0, np.nan, -2.0], requires_grad=True)
    symgrad.linalg.vector_norm(y, float("inf")).backward()
    grad = y.grad.numpy()
    np.testing.assert_array_equal(grad, [0.0, 0.0, 0.0])
    assert np.signbit(grad).tolist() == [False, False, True]


def test_one_norm_gradient_at_a_nan_is_zero() -> None:
    """PyTorch's sign of nan is 0: the 1-norm's gradient ``g * sgn(x)`` is 0 there."""
    x = symgrad.tensor([np.nan, -2.0], requires_grad=True)
    symgrad.linalg.vector_norm(x, 1).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, -1.0])
    a = symgrad.tensor([[3.0, -2.0]], requires_grad=True)
    b = symgrad.tensor([[np.nan, 1.0]], requires_grad=True)
    F.pairwise_distance(a, b, p=1).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [[0.0, -1.0]])
    np.testing.assert_array_equal(b.grad.numpy(), [[0.0, 1.0]])


def test_relu_gradient_broader_than_its_input() -> None:
    """A gradient with more dimensions than the result (a batch of them, inside vmap) is
    masked by the result broadcast."""
    x = symgrad.tensor([-1.0, 2.0])
    _, vjp_fn = symgrad.func.vjp(lambda t: t.relu(), x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # batched at once: no warning of a loop per element
        (gx,) = symgrad.func.vmap(vjp_fn)(symgrad.tensor([[-1.0, -2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(gx.numpy(), [[0.0, -2.0], [0.0, 4.0]])
    assert not np.signbit(gx.numpy()[:, 0]).any()
