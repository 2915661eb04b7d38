"""nll_loss and cross_entropy at their edges (0-d and empty inputs, targets of the wrong rank,
dtype or size), and the graphs of first gradients under ``create_graph`` for nll_loss and for
products of single elements.

Each case holds its expected result (values, or the exception type PyTorch raises), so it runs
without PyTorch; with PyTorch installed, the same tables are checked against it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad


def _x(T, *shape):
    n = int(np.prod(shape))
    return T.arange(n, dtype=T.float64).reshape(shape) / 4


def _t(T, *values):
    return T.tensor(values, dtype=T.int64)


LOG3 = math.log(3.0)

# (name, f(T, F) -> tensor, expected array or exception type)
CASES = [
    # a 0-d input: nll_loss wants a dimension (ValueError); cross_entropy's class dim 1 is out
    # of range (IndexError), unless the target has the input's shape (class probabilities)
    ("nll_0d", lambda T, F: F.nll_loss(T.tensor(1.5), T.tensor(1)), ValueError),
    ("ce_0d", lambda T, F: F.cross_entropy(T.tensor(1.5), _t(T, 1, 0)), IndexError),
    (
        "ce_0d_smoothing",
        lambda T, F: F.cross_entropy(T.tensor(1.5), _t(T, 1), label_smoothing=0.2),
        IndexError,
    ),
    ("ce_0d_same_shape", lambda T, F: F.cross_entropy(T.tensor(1.5), T.tensor(2)), RuntimeError),
    ("ce_0d_probabilities", lambda T, F: F.cross_entropy(T.tensor(1.5), T.tensor(0.5)), IndexError),
    # empty inputs: the target checks still come first
    (
        "ce_empty_2d_target",
        lambda T, F: F.cross_entropy(_x(T, 0), _t(T, 0, 1).reshape(1, 2)),
        RuntimeError,
    ),
    ("ce_empty_classes", lambda T, F: F.cross_entropy(_x(T, 2, 0), _t(T, 1, 0)), IndexError),
    ("nll_empty_1d_target", lambda T, F: F.nll_loss(_x(T, 0), _t(T, 1, 0)), ValueError),
    # shapes: the batch sizes (ValueError), then the target's rank and size (RuntimeError)
    ("nll_batch", lambda T, F: F.nll_loss(_x(T, 2, 3), _t(T, 1, 0, 0)), ValueError),
    ("nll_batch_0d_target", lambda T, F: F.nll_loss(_x(T, 2, 3), T.tensor(1)), ValueError),
    (
        "nll_multi_target",
        lambda T, F: F.nll_loss(_x(T, 2, 3), _t(T, 0, 1, 1, 0).reshape(2, 2)),
        RuntimeError,
    ),
    (
        "nll_spatial_size",
        lambda T, F: F.nll_loss(_x(T, 2, 3, 2), T.zeros(2, 3, dtype=T.int64)),
        RuntimeError,
    ),
    (
        "nll_4d_target_rank",
        lambda T, F: F.nll_loss(_x(T, 2, 3, 2, 2), T.zeros(2, 2, dtype=T.int64)),
        RuntimeError,
    ),
    ("nll_1d_two_targets", lambda T, F: F.nll_loss(_x(T, 3), _t(T, 1, 2)), ValueError),
    ("ce_batch_float_target", lambda T, F: F.cross_entropy(_x(T, 4, 3), T.zeros(5)), ValueError),
    # dtypes and weights (RuntimeError)
    ("nll_float_target", lambda T, F: F.nll_loss(_x(T, 2, 3), T.tensor([1.0, 0.0])), RuntimeError),
    (
        "nll_int32_target",
        lambda T, F: F.nll_loss(_x(T, 3), T.tensor(1, dtype=T.int32)),
        RuntimeError,
    ),
    (
        "nll_weight_size",
        lambda T, F: F.nll_loss(_x(T, 2, 3), _t(T, 1, 2), weight=T.ones(2)),
        RuntimeError,
    ),
    (
        "ce_int_probabilities",
        lambda T, F: F.cross_entropy(_x(T, 4, 3), T.zeros(4, 3, dtype=T.int64)),
        RuntimeError,
    ),
    (
        "ce_probabilities_ignore",
        lambda T, F: F.cross_entropy(_x(T, 4, 3), T.zeros(4, 3), ignore_index=2),
        RuntimeError,
    ),
    (
        "ce_smoothing_above_1",
        lambda T, F: F.cross_entropy(_x(T, 4, 3), _t(T, 0, 1, 2, 0), label_smoothing=2.0),
        RuntimeError,
    ),
    # values: a 1-D input takes a target of shape () or (1,) and gives a 0-d loss
    ("nll_1d", lambda T, F: F.nll_loss(_x(T, 3), _t(T, 1), reduction="none"), np.array(-0.25)),
    (
        "ce_1d",
        lambda T, F: F.cross_entropy(T.zeros(3), T.tensor(1), reduction="none"),
        np.array(LOG3),
    ),
    # a negative label_smoothing is no smoothing
    (
        "ce_negative_smoothing",
        lambda T, F: F.cross_entropy(T.zeros(2, 3), _t(T, 0, 2), label_smoothing=-1.0),
        np.array(LOG3),
    ),
]


def _check(T, fn, expected):
    F = T.nn.functional
    if isinstance(expected, type):
        with pytest.raises(expected):
            fn(T, F)
        return
    got = fn(T, F).detach().numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_symgrad(name, fn, expected):
    _check(symgrad, fn, expected)


def test_messages_say_what_pytorch_expects():
    F = symgrad.nn.functional
    with pytest.raises(ValueError, match=r"batch_size \(2\) to match target batch_size \(3\)"):
        F.nll_loss(symgrad.zeros(2, 3), symgrad.tensor([1, 0, 0]))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 2\], got \[2, 3\]"):
        F.nll_loss(symgrad.zeros(2, 3, 2), symgrad.zeros(2, 3, dtype=symgrad.int64))
    with pytest.raises(RuntimeError, match=r"for all 3 classes .* shape: \[2\]"):
        F.nll_loss(symgrad.zeros(2, 3), symgrad.tensor([1, 2]), weight=symgrad.ones(2))


def test_nll_loss_saves_its_input():
    x = symgrad.zeros(4, 3, requires_grad=True)
    y = x * 1
    loss = symgrad.nn.functional.nll_loss(y, symgrad.tensor([1, 0, 2, 2]))
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


# -- first gradients under create_graph ---------------------------------------------------------
def _first_gradient(T, fn, x):
    """``(requires_grad, its gradient for x)`` of ``fn``'s first gradient (seeded with ones
    that do not require grad, so only a graph back to x can make it require grad)."""
    x = T.tensor(np.asarray(x, dtype=np.float64), requires_grad=True)
    out = fn(T, x)
    (g,) = T.autograd.grad(out, x, T.ones(tuple(out.shape), dtype=T.float64), create_graph=True)
    if not g.requires_grad:
        return False, None
    weights = T.arange(g.numel(), dtype=T.float64).reshape(tuple(g.shape))
    (gx,) = T.autograd.grad((g * weights).sum(), x)
    return True, gx.detach().numpy().tolist()


def _nll(reduction, **options):
    def fn(T, x):
        return T.nn.functional.nll_loss(x, _t(T, 1, 0, 2), reduction=reduction, **options)

    return fn


ROWS = np.arange(9.0).reshape(3, 3) / 9
ZEROS = [[0.0] * 3] * 3
FIRST = [
    # nll_loss: the first gradient is a node of its own, whose derivative for x is 0
    ("nll_mean", _nll("mean"), ROWS, (True, ZEROS)),
    ("nll_sum", _nll("sum"), ROWS, (True, ZEROS)),
    ("nll_none", _nll("none"), ROWS, (True, ZEROS)),
    ("nll_ignore", _nll("sum", ignore_index=0), ROWS, (True, ZEROS)),
    # prod of single elements: g itself for a 0-d input or one holding a zero
    ("prod_0d", lambda T, x: x.prod(), 2.0, (False, None)),
    ("prod_0d_dim", lambda T, x: x.prod(0), 2.0, (False, None)),
    ("prod_single_zero", lambda T, x: x.prod(), [[0.0]], (False, None)),
    ("prod_dim_single_zero", lambda T, x: x.prod(1), [[0.0], [3.0]], (False, None)),
    ("prod_single", lambda T, x: x.prod(), [[2.0]], (True, [[0.0]])),
    ("prod_dim_single", lambda T, x: x.prod(1), [[1.0], [3.0]], (True, [[0.0], [0.0]])),
]


@pytest.mark.parametrize("name,fn,x,expected", FIRST, ids=[c[0] for c in FIRST])
def test_first_gradient_graphs(name, fn, x, expected):
    assert _first_gradient(symgrad, fn, x) == expected


def _nll_seed_gradient(T, reduction):
    """The gradient, for the seed, of nll_loss's first gradient weighted by 0, 1, 2, ..."""
    x = T.tensor(ROWS, requires_grad=True)
    out = _nll(reduction, weight=T.tensor([1.0, 2.0, 0.5], dtype=T.float64))(T, x)
    seed = T.ones(tuple(out.shape), dtype=T.float64, requires_grad=True)
    (g,) = T.autograd.grad(out, x, seed, create_graph=True)
    weights = T.arange(9, dtype=T.float64).reshape(3, 3)
    (gs,) = T.autograd.grad((g * weights).sum(), seed)
    return g.grad_fn.name(), gs.detach().numpy().tolist()


# picked weights 1, 3 and 8 times class weights 2, 1 and 0.5
NLL_SEED = [
    ("none", ["NllLossBackwardBackward0", [-2.0, -3.0, -4.0]]),
    ("sum", ["NllLossBackwardBackward0", -9.0]),
    ("mean", ["NllLossBackwardBackward0", -9.0 / 3.5]),
]


@pytest.mark.parametrize("reduction,expected", NLL_SEED, ids=[c[0] for c in NLL_SEED])
def test_nll_loss_first_gradient_node(reduction, expected):
    name, grad = _nll_seed_gradient(symgrad, reduction)
    assert name == expected[0]
    np.testing.assert_allclose(grad, expected[1])


# -- the same tables against PyTorch ------------------------------------------------------------
@pytest.mark.torch
@pytest.mark.parametrize("name,fn,expected", CASES, ids=[c[0] for c in CASES])
def test_pytorch_agrees(name, fn, expected):
    torch = pytest.importorskip("torch")
    _check(torch, fn, expected)


@pytest.mark.torch
@pytest.mark.parametrize("name,fn,x,expected", FIRST, ids=[c[0] for c in FIRST])
def test_pytorch_first_gradient_graphs_agree(name, fn, x, expected):
    torch = pytest.importorskip("torch")
    assert _first_gradient(torch, fn, x) == expected


@pytest.mark.torch
@pytest.mark.parametrize("reduction,expected", NLL_SEED, ids=[c[0] for c in NLL_SEED])
def test_pytorch_nll_loss_first_gradient_node_agrees(reduction, expected):
    torch = pytest.importorskip("torch")
    name, grad = _nll_seed_gradient(torch, reduction)
    assert name == expected[0]
    np.testing.assert_allclose(grad, expected[1])
