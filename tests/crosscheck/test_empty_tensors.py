"""Reductions, the softmax family and norms on empty tensors and along empty dimensions, and
variances with no degrees of freedom left.

Each case holds its expected result (values with their shape, or the exception type PyTorch
raises), so it runs without PyTorch; with PyTorch installed, the same table is checked against
it.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import symgrad

INF, NAN = math.inf, math.nan
E03 = np.zeros((0, 3))  # the result of an op that keeps a (0, 3) input's shape


def _z(T, *shape):
    return T.zeros(*shape, dtype=T.float64)


def _values(out):
    return out.values if hasattr(out, "values") else out


# (name, f(T) -> tensor or (values, indices), expected array or exception type)
CASES = [
    # extrema: an empty result where the reduced dim is not empty, IndexError where it is
    ("amax_keeps_empty_dim", lambda T: _z(T, 0, 3).amax(1), np.zeros(0)),
    ("amax_keepdim", lambda T: _z(T, 0, 3).amax(1, keepdim=True), np.zeros((0, 1))),
    ("amax_of_3x0_along_0", lambda T: _z(T, 3, 0).amax(0), np.zeros(0)),
    ("amax_two_dims_one_empty_left", lambda T: _z(T, 2, 0, 3).amax((0, 2)), np.zeros(0)),
    ("amax_empty_dim", lambda T: _z(T, 0, 3).amax(0), IndexError),
    ("amax_dims_with_an_empty_one", lambda T: _z(T, 2, 0, 3).amax((0, 1)), IndexError),
    ("amax_1d_empty", lambda T: _z(T, 0).amax(0), IndexError),
    ("amax_all", lambda T: _z(T, 0, 3).amax(), RuntimeError),
    ("amin_keeps_empty_dim", lambda T: _z(T, 0, 3).amin(1), np.zeros(0)),
    ("amin_empty_dim", lambda T: _z(T, 0, 3).amin(0), IndexError),
    ("max_dim_values", lambda T: _z(T, 0, 3).max(1).values, np.zeros(0)),
    ("max_dim_indices", lambda T: _z(T, 0, 3).max(1).indices, np.zeros(0, np.int64)),
    (
        "max_dim_keepdim",
        lambda T: _z(T, 0, 3).max(1, keepdim=True).indices,
        np.zeros((0, 1), np.int64),
    ),
    ("max_empty_dim", lambda T: _z(T, 0, 3).max(0), IndexError),
    ("max_all", lambda T: _z(T, 0, 3).max(), RuntimeError),
    ("min_dim_values", lambda T: _z(T, 0, 3).min(1).values, np.zeros(0)),
    (
        "min_dim_indices",
        lambda T: _z(T, 3, 0).min(0, keepdim=True).indices,
        np.zeros((1, 0), np.int64),
    ),
    ("min_empty_dim", lambda T: _z(T, 0, 3).min(0), IndexError),
    ("argmax_dim", lambda T: _z(T, 0, 3).argmax(1), np.zeros(0, np.int64)),
    ("argmax_empty_dim", lambda T: _z(T, 0, 3).argmax(0), IndexError),
    ("argmax_all", lambda T: _z(T, 0, 3).argmax(), IndexError),
    ("argmin_empty_dim", lambda T: _z(T, 0, 3).argmin(0), IndexError),
    # log-sum-exp of nothing is log(0) = -inf; softmax of nothing is nothing
    ("logsumexp_empty_dim", lambda T: T.logsumexp(_z(T, 0, 3), 0), np.full(3, -INF)),
    (
        "logsumexp_keepdim",
        lambda T: T.logsumexp(_z(T, 0, 3), 0, keepdim=True),
        np.full((1, 3), -INF),
    ),
    ("logsumexp_all", lambda T: T.logsumexp(_z(T, 0, 3), (0, 1)), np.array(-INF)),
    ("logsumexp_1d", lambda T: T.logsumexp(_z(T, 0), 0), np.array(-INF)),
    ("logsumexp_other_dim", lambda T: T.logsumexp(_z(T, 0, 3), 1), np.zeros(0)),
    ("softmax_empty_dim", lambda T: T.softmax(_z(T, 0, 3), 0), E03),
    ("softmax_other_dim", lambda T: _z(T, 0, 3).softmax(1), E03),
    ("softmax_3x0", lambda T: T.softmax(_z(T, 3, 0), 1), np.zeros((3, 0))),
    ("log_softmax_empty_dim", lambda T: T.log_softmax(_z(T, 0, 3), 0), E03),
    ("log_softmax_3x0", lambda T: _z(T, 3, 0).log_softmax(1), np.zeros((3, 0))),
    # sums, products, means: their identities (mean: 0 / 0)
    ("sum", lambda T: _z(T, 0, 3).sum(), np.array(0.0)),
    ("sum_empty_dim", lambda T: _z(T, 0, 3).sum(0), np.zeros(3)),
    ("sum_other_dim", lambda T: _z(T, 0, 3).sum(1), np.zeros(0)),
    ("sum_int", lambda T: T.zeros(0, dtype=T.int64).sum(), np.array(0)),
    ("prod", lambda T: _z(T, 0, 3).prod(), np.array(1.0)),
    ("prod_empty_dim", lambda T: _z(T, 0, 3).prod(0), np.ones(3)),
    ("prod_other_dim", lambda T: _z(T, 0, 3).prod(1), np.zeros(0)),
    ("mean", lambda T: _z(T, 0, 3).mean(), np.array(NAN)),
    ("mean_empty_dim", lambda T: _z(T, 0, 3).mean(0), np.full(3, NAN)),
    ("mean_other_dim", lambda T: _z(T, 0, 3).mean(1), np.zeros(0)),
    (
        "all_any",
        lambda T: T.stack([_z(T, 0, 3).all(0), _z(T, 0, 3).any(0)]),
        np.array([[True] * 3, [False] * 3]),
    ),
    # variance: nan for no element (0 / 0), never a negative number
    ("var", lambda T: _z(T, 0, 3).var(), np.array(NAN)),
    ("var_empty_dim", lambda T: _z(T, 0, 3).var(0), np.full(3, NAN)),
    ("var_uncorrected", lambda T: _z(T, 0, 3).var(0, unbiased=False), np.full(3, NAN)),
    ("std_empty_dim", lambda T: _z(T, 0, 3).std(0), np.full(3, NAN)),
    ("std_other_dim", lambda T: _z(T, 0, 3).std(1), np.zeros(0)),
    ("var_correction_beyond_n", lambda T: T.tensor([1.0, 2.0]).var(correction=3), np.array(INF)),
    # norms: 0 for nothing, an error where the norm takes a maximum or a negative power
    ("norm", lambda T: _z(T, 0, 3).norm(), np.array(0.0)),
    ("norm_empty_dim", lambda T: _z(T, 0, 3).norm(dim=0), np.zeros(3)),
    ("norm_p1", lambda T: _z(T, 0, 3).norm(p=1, dim=0), np.zeros(3)),
    ("norm_p3", lambda T: _z(T, 0, 3).norm(p=3, dim=0), np.zeros(3)),
    ("norm_p0", lambda T: _z(T, 0, 3).norm(p=0, dim=0), np.zeros(3)),
    ("norm_p_half", lambda T: _z(T, 0, 3).norm(p=0.5, dim=0), np.zeros(3)),
    ("norm_inf_other_dim", lambda T: _z(T, 0, 3).norm(p=INF, dim=1), np.zeros(0)),
    ("norm_inf_empty_dim", lambda T: _z(T, 0, 3).norm(p=INF, dim=0), RuntimeError),
    ("norm_minus_inf_empty_dim", lambda T: _z(T, 0, 3).norm(p=-INF, dim=0), RuntimeError),
    ("norm_inf_all", lambda T: _z(T, 0, 3).norm(p=INF), RuntimeError),
    ("norm_negative_p_empty_dim", lambda T: _z(T, 0, 3).norm(p=-1, dim=0), RuntimeError),
    ("norm_negative_p_all", lambda T: _z(T, 0, 3).norm(p=-2), RuntimeError),
    ("norm_negative_p_other_dim", lambda T: _z(T, 0, 3).norm(p=-1, dim=1), np.zeros(0)),
]


def _check(T, fn, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # var's "degrees of freedom" warning, asked for here
        if isinstance(expected, type):
            with pytest.raises(expected):
                fn(T)
            return
        out = fn(T)
    got = out.detach().numpy()
    assert got.shape == expected.shape
    assert got.dtype.kind == expected.dtype.kind
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_symgrad(name, fn, expected):
    _check(symgrad, fn, expected)


def test_messages_say_which_dim_is_empty():
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 1 .*\[2, 0, 3\]"):
        symgrad.zeros(2, 0, 3).amax((0, 1))
    with pytest.raises(IndexError, match=r"argmin\(\): Expected reduction dim 0 to have non-zero"):
        symgrad.zeros(0, 3).argmin(0)
    with pytest.raises(RuntimeError, match=r"-1 norm on the dimension 0because this"):
        symgrad.zeros(0, 3).norm(p=-1, dim=0)


# -- gradients through empty results: zeros shaped like the input ------------------------------
GRADIENTS = [
    ("amax", lambda T, x: x.amax(1)),
    ("amin_keepdim", lambda T, x: x.amin(1, keepdim=True)),
    ("max_dim", lambda T, x: x.max(1).values),
    ("min_dim_keepdim", lambda T, x: x.min(1, keepdim=True).values),
    ("logsumexp_empty_dim", lambda T, x: T.logsumexp(x, 0)),
    ("logsumexp_other_dim", lambda T, x: T.logsumexp(x, 1)),
    ("logsumexp_all", lambda T, x: T.logsumexp(x, (0, 1))),
    ("softmax_empty_dim", lambda T, x: T.softmax(x, 0)),
    ("softmax_other_dim", lambda T, x: x.softmax(1)),
    ("log_softmax_empty_dim", lambda T, x: T.log_softmax(x, 0)),
    ("log_softmax_other_dim", lambda T, x: x.log_softmax(1)),
    ("sum", lambda T, x: x.sum()),
    ("mean_empty_dim", lambda T, x: x.mean(0)),
    ("prod", lambda T, x: x.prod()),
    ("prod_empty_dim", lambda T, x: x.prod(0)),
    ("prod_other_dim", lambda T, x: x.prod(1)),
    ("norm", lambda T, x: x.norm()),
    ("norm_p3", lambda T, x: x.norm(p=3, dim=0)),
    ("norm_inf_other_dim", lambda T, x: x.norm(p=INF, dim=1)),
    ("var_empty_dim", lambda T, x: x.var(0)),
    ("std", lambda T, x: x.std()),
]


def _grad(T, fn, create_graph):
    x = T.zeros(0, 3, dtype=T.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(T, x)
    (g,) = T.autograd.grad(out.sum(), x, create_graph=create_graph)
    return tuple(g.shape)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name,fn", GRADIENTS, ids=[c[0] for c in GRADIENTS])
def test_gradient_through_an_empty_result(name, fn, create_graph):
    assert _grad(symgrad, fn, create_graph) == (0, 3)


# -- var and std without degrees of freedom: PyTorch's gradients --------------------------------
# (name, data, kwargs, op) -> (value, gradient of the sum), as PyTorch 2.13 gives them
NO_DOF = [
    ("var_no_dim", [1.0, 2.0], dict(correction=3), "var", INF, [INF, INF]),
    ("std_no_dim", [1.0, 2.0], dict(correction=3), "std", INF, [NAN, NAN]),
    ("var_no_dim_equal", [1.0, 1.0], dict(correction=2), "var", NAN, [NAN, NAN]),
    (
        "var_dim_n_equals_correction",
        [[1.0], [2.0]],
        dict(dim=0, correction=2),
        "var",
        [INF],
        [[-INF], [INF]],
    ),
    (
        "var_dim_correction_beyond_n",
        [[1.0], [2.0]],
        dict(dim=0, correction=3),
        "var",
        [INF],
        [[1.0], [-1.0]],
    ),
    (
        "std_dim_correction_beyond_n",
        [[1.0], [2.0]],
        dict(dim=0, correction=3),
        "std",
        [INF],
        [[0.0], [0.0]],
    ),
    ("std_of_one_element", [3.0], {}, "std", NAN, [NAN]),
    # std of equal elements is 0, and so is its gradient (not 0 / 0)
    ("std_equal", [1.0, 1.0], {}, "std", 0.0, [0.0, 0.0]),
    (
        "std_dim_one_column_equal",
        [[1.0, 2.0], [1.0, 3.0]],
        dict(dim=0),
        "std",
        [0.0, 0.5**0.5],
        [[0.0, -(0.5**0.5)], [0.0, 0.5**0.5]],
    ),
]


def _no_dof(T, data, kwargs, op):
    x = T.tensor(data, dtype=T.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = getattr(x, op)(**kwargs)
    out.sum().backward()
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name,data,kwargs,op,value,grad", NO_DOF, ids=[c[0] for c in NO_DOF])
def test_variance_without_degrees_of_freedom(name, data, kwargs, op, value, grad):
    got_value, got_grad = _no_dof(symgrad, data, kwargs, op)
    np.testing.assert_allclose(got_value, value, rtol=1e-15)
    np.testing.assert_allclose(got_grad, grad, rtol=1e-15)


# -- the same tables against PyTorch ------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_pytorch_agrees(name, fn, expected):
    torch = pytest.importorskip("torch")
    _check(torch, fn, expected)


@pytest.mark.torch
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name,fn", GRADIENTS, ids=[c[0] for c in GRADIENTS])
def test_pytorch_gradient_agrees(name, fn, create_graph):
    torch = pytest.importorskip("torch")
    assert _grad(torch, fn, create_graph) == (0, 3)


@pytest.mark.torch
@pytest.mark.parametrize("name,data,kwargs,op,value,grad", NO_DOF, ids=[c[0] for c in NO_DOF])
def test_pytorch_variance_agrees(name, data, kwargs, op, value, grad):
    torch = pytest.importorskip("torch")
    got_value, got_grad = _no_dof(torch, data, kwargs, op)
    np.testing.assert_allclose(got_value, value, rtol=1e-15)
    np.testing.assert_allclose(got_grad, grad, rtol=1e-15)
