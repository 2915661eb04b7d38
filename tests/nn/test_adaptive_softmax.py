"""``nn.AdaptiveLogSoftmaxWithLoss`` (symgrad.nn.modules.adaptive): outputs, loss,
gradients, grad_fn names, ``log_prob``, ``predict`` and PyTorch's errors.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(rounded values, grad_fn names, or the exception's type): the table holds the expected data,
checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_table import outcome

import symgrad

X = [
    [0.5, -1.0, 0.25, 2.0],
    [-0.5, 0.0, 1.0, -1.5],
    [1.5, 0.5, -0.25, 0.0],
    [0.0, 1.0, -1.0, 0.5],
]


def _model(T, **kwargs):
    """4 features, 6 classes: shortlist {0, 1}, clusters {2, 3} and {4, 5}; weights set to
    a fixed pattern in float64."""
    m = T.nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 4], div_value=2.0, **kwargs).double()
    with T.no_grad():
        for k, p in enumerate(m.parameters()):
            n = math.prod(p.shape)
            pattern = T.sin(T.arange(n, dtype=T.float64) * 1.3 + k).reshape(p.shape)
            p.copy_(pattern)
    return m


def _r(values):
    return np.round(values, 4).tolist()


def _forward(T, targets, **kwargs):
    m = _model(T, **kwargs)
    x = T.tensor(X[: len(targets)], dtype=T.float64, requires_grad=True)
    out = m(x, T.tensor(targets))
    out.loss.backward()
    return (
        type(out).__name__,
        out._fields,
        _r(out.output.tolist()),
        type(out.output.grad_fn).__name__,
        round(out.loss.item(), 4),
        type(out.loss.grad_fn).__name__,
        _r(x.grad.tolist()),
        [_r(p.grad.tolist()) if p.grad is not None else None for p in m.parameters()],
    )


def _unbatched(T):
    m = _model(T)
    out = m(T.tensor(X[1], dtype=T.float64), T.tensor(3))
    return tuple(out.output.shape), round(out.output.item(), 4), type(out.output.grad_fn).__name__


def _log_prob(T):
    m = _model(T)
    lp = m.log_prob(T.tensor(X, dtype=T.float64))
    return _r(lp.tolist()), type(lp.grad_fn).__name__, _r(lp.exp().sum(1).tolist())


def _predict(T):
    m = _model(T)
    x = T.tensor(X, dtype=T.float64)
    p = m.predict(x)
    return p.tolist(), str(p.dtype).rsplit(".", 1)[-1], m.log_prob(x).argmax(1).tolist()


def _predict_many(T):
    m = _model(T, head_bias=True)
    rng = np.random.default_rng(3)
    x = T.tensor(rng.standard_normal((40, 4)) * 3)
    return m.predict(x).tolist() == m.log_prob(x).argmax(1).tolist()


def _call(T, x, target):
    m = _model(T)
    return m(T.tensor(x, dtype=T.float64), T.tensor(target))


def _layout(T):
    m = T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    shapes = [(n, tuple(p.shape)) for n, p in m.named_parameters()]
    return shapes, m.cutoffs, m.shortlist_size, m.n_clusters, m.head_size


CASES = {
    "layout": (
        _layout,
        (
            [
                ("head.weight", (5, 8)),
                ("head.bias", (5,)),
                ("tail.0.0.weight", (4, 8)),
                ("tail.0.1.weight", (3, 4)),
                ("tail.1.0.weight", (2, 8)),
                ("tail.1.1.weight", (4, 2)),
            ],
            [3, 6, 10],
            3,
            2,
            5,
        ),
    ),
    "forward_all_clusters": (
        lambda T: _forward(T, [0, 3, 5, 2]),
        (
            "_ASMoutput",
            ("output", "loss"),
            [-5.2259, -4.4325, -1.8313, -2.0623],
            "AddBackward0",
            3.388,
            "MeanBackward0",
            [
                [-0.1183, -0.4298, -0.1116, 0.37],
                [0.446, 0.6617, -0.092, -0.7109],
                [-0.0496, 0.2689, 0.1935, -0.1654],
                [0.0618, 0.0975, -0.0097, -0.1026],
            ],
            [
                [
                    [0.001, 0.4035, -0.038, -0.6719],
                    [-0.0008, 0.0381, 0.0369, -0.0696],
                    [0.211, -0.3403, 0.0067, 0.5231],
                    [-0.2112, -0.1013, -0.0056, 0.2184],
                ],
                [[-0.1945, -0.0991, 0.488, -0.633], [-0.0221, -0.0113, 0.0554, -0.0719]],
                [[0.0885, 0.3176], [-0.0885, -0.3176]],
                [[0.0141, 0.0047, -0.0024, 0.0]],
                [[-0.011], [0.011]],
            ],
        ),
    ),
    "forward_shortlist_only": (
        lambda T: _forward(T, [0, 1, 1])[2:6],
        ([-5.2259, -1.1236, -2.457], "AddBackward0", 2.9355, "MeanBackward0"),
    ),
    "forward_head_bias": (
        lambda T: _forward(T, [4, 1], head_bias=True)[2:6],
        ([-4.0595, -1.1157], "AddBackward0", 2.5876, "MeanBackward0"),
    ),
    "unbatched": (_unbatched, ((), -4.4325, "SqueezeBackward1")),
    "log_prob": (
        _log_prob,
        (
            [
                [-5.2259, -2.7847, -5.6141, -0.5956, -1.5938, -1.7437],
                [-0.5381, -1.1236, -2.9328, -4.4325, -4.4064, -4.288],
                [-0.6369, -2.457, -2.7515, -6.1164, -1.838, -1.8313],
                [-1.0358, -1.7638, -2.0623, -3.3974, -1.8544, -1.8548],
            ],
            "CopySlices",
            [1.0, 1.0, 1.0, 1.0],
        ),
    ),
    "predict": (_predict, ([3, 0, 0, 0], "int64", [3, 0, 0, 0])),
    "predict_many": (_predict_many, True),
    "target_too_large": (lambda T: _call(T, X, [0, 1, 2, 6]), ("raises", "RuntimeError")),
    "target_negative": (lambda T: _call(T, X, [0, 1, 2, -1]), ("raises", "RuntimeError")),
    "batch_mismatch": (lambda T: _call(T, X, [0, 1]), ("raises", "RuntimeError")),
    "one_dim_input_one_dim_target": (
        lambda T: _call(T, X[0], [0, 1, 2, 3]),
        ("raises", "RuntimeError"),
    ),
    "two_dim_target": (lambda T: _call(T, X, [[0], [1], [2], [3]]), ("raises", "RuntimeError")),
    "zero_dim_target_batched_input": (
        lambda T: _call(T, [X[0]], 1),
        ("raises", "RuntimeError"),
    ),
    "three_dim_input": (lambda T: _call(T, [X], [0]), ("raises", "RuntimeError")),
    "no_cutoffs": (
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
        ("raises", "ValueError"),
    ),
    "cutoff_too_large": (
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]),
        ("raises", "ValueError"),
    ),
    "cutoffs_decreasing": (
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]),
        ("raises", "ValueError"),
    ),
    "cutoffs_repeated": (
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 3]),
        ("raises", "ValueError"),
    ),
    "cutoff_zero": (
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [0, 3]),
        ("raises", "ValueError"),
    ),
    "cutoff_fraction": (
        lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3.5]),
        ("raises", "ValueError"),
    ),
    "log_prob_one_dim": (
        lambda T: _model(T).log_prob(T.tensor(X[0], dtype=T.float64)),
        ("raises", "IndexError"),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_symgrad(name):
    fn, expected = CASES[name]
    assert outcome(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert outcome(torch, fn) == expected


def test_loss_is_the_mean_negative_log_prob_of_the_targets():
    m = _model(symgrad)
    x = symgrad.tensor(X, dtype=symgrad.float64)
    targets = [5, 0, 2, 4]
    out = m(x, symgrad.tensor(targets))
    picked = m.log_prob(x).detach().numpy()[np.arange(4), targets]
    assert np.allclose(out.output.detach().numpy(), picked)
    assert np.isclose(out.loss.item(), -picked.mean())


def test_gradient_matches_finite_differences():
    m = _model(symgrad)
    x = symgrad.tensor(X, dtype=symgrad.float64, requires_grad=True)
    targets = symgrad.tensor([0, 3, 5, 2])
    m(x, targets).loss.backward()

    def loss(values):
        with symgrad.no_grad():
            return m(symgrad.tensor(values), targets).loss.item()

    base = np.array(X)
    h = 1e-6
    numeric = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        e = np.zeros_like(base)
        e[i] = h
        numeric[i] = (loss(base + e) - loss(base - e)) / (2 * h)
    assert np.allclose(x.grad.numpy(), numeric, atol=1e-6)


def test_reset_parameters_draws_new_values():
    m = symgrad.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0)
    before = [p.detach().clone() for p in m.parameters()]
    m.reset_parameters()
    after = [p.detach().numpy() for p in m.parameters()]
    assert all(not np.array_equal(a.numpy(), b) for a, b in zip(before, after))
