"""The margin losses and channel layers (symgrad.nn.margin_losses, channel_ops, cross_map_lrn,
the modules of nn.modules.margin_loss and channel_layers) and the top-level rsub,
binary_cross_entropy_with_logits, pairwise_distance and rms_norm.

Each case calls the same code with ``T`` either symgrad or torch and is reduced to plain data
(values, dtype, grad_fn name, gradients, or the exception's type): the table holds the
expected data, checked for symgrad always and for PyTorch when it is installed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _torch_table import table_tests

import symgrad

F32, F64 = "float32", "float64"
X = [[0.1, 0.2, 0.4, 0.8], [0.5, -0.3, 0.2, 0.9]]


def _backward(T, make, data=X, dtype="float32"):
    """``make(T, x)`` and ``x``'s gradient after backward of its sum."""
    x = T.tensor(data, dtype=getattr(T, dtype), requires_grad=True)
    out = make(T, x)
    out.sum().backward()
    return out, x.grad


def _F(T):
    return T.nn.functional


CASES = {
    # -- multi_margin_loss: one fused node; mean over samples, 1/C inside
    "multi_margin": (
        lambda T: _backward(T, lambda T, x: _F(T).multi_margin_loss(x, T.tensor([3, 1]))),
        (
            (0.85, F32, "MultiMarginLossBackward0"),
            ([[0.125, 0.125, 0.125, -0.375], [0.125, -0.375, 0.125, 0.125]], F32, None),
        ),
    ),
    "multi_margin_p2_weight_none": (
        lambda T: _backward(
            T,
            lambda T, x: _F(T).multi_margin_loss(
                x,
                T.tensor([3, 1]),
                p=2,
                margin=0.5,
                weight=T.tensor([1.0, 2.0, 1.0, 3.0]),
                reduction="none",
            ),
        ),  # fmt: skip
        (
            ([0.0075, 2.79], F32, "MultiMarginLossBackward0"),
            ([[0.0, 0.0, 0.15, -0.15], [1.3, -4.0, 1.0, 1.7]], F32, None),
        ),
    ),
    "multi_margin_sum": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0, 0]), reduction="sum"),
        (1.6, F32, None),
    ),
    "multi_margin_legacy": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0, 0]), size_average=False),
        (1.6, F32, None),
    ),
    "multi_margin_vector": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X[0]), T.tensor(3), reduction="none"),
        (0.325, F32, None),
    ),
    "multi_margin_empty": (
        lambda T: _F(T).multi_margin_loss(
            T.zeros(0, 3), T.zeros(0, dtype=T.int64), reduction="none"
        ),
        ([], F32, None),
    ),
    "multi_margin_out_of_range": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0, 4])),
        ("raises", "RuntimeError"),
    ),
    "multi_margin_target_size": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0])),
        ("raises", "RuntimeError"),
    ),
    "multi_margin_float_target": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0.0, 1.0])),
        ("raises", "RuntimeError"),
    ),
    "multi_margin_3d": (
        lambda T: _F(T).multi_margin_loss(T.zeros(1, 2, 3), T.tensor([0])),
        ("raises", "RuntimeError"),
    ),
    "multi_margin_p3": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0, 1]), p=3),
        ("raises", "ValueError"),
    ),
    "multi_margin_weight_2d": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0, 1]), weight=T.ones(1, 4)),
        ("raises", "ValueError"),
    ),
    "multi_margin_weight_size": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0, 1]), weight=T.ones(3)),
        ("raises", "RuntimeError"),
    ),
    "multi_margin_weight_grad": (
        lambda T: _F(T).multi_margin_loss(
            T.tensor(X), T.tensor([0, 1]), weight=T.ones(4, requires_grad=True)
        ),
        ("raises", "RuntimeError"),
    ),
    "multi_margin_int": (
        lambda T: _F(T).multi_margin_loss(T.tensor([[1, 2]]), T.tensor([0])),
        ("raises", "NotImplementedError"),
    ),
    "multi_margin_bad_reduction": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), T.tensor([0, 1]), reduction="x"),
        ("raises", "ValueError"),
    ),
    "multi_margin_list_target": (
        lambda T: _F(T).multi_margin_loss(T.tensor(X), [0, 1]),
        ("raises", "TypeError"),
    ),
    # -- multilabel_margin_loss: targets up to the first -1; a class listed twice counts twice
    "multilabel_margin": (
        lambda T: _backward(
            T,
            lambda T, x: _F(T).multilabel_margin_loss(
                x, T.tensor([[3, 0, -1, 1], [1, 1, -1, 0]]), reduction="none"
            ),
        ),
        (
            ([0.85, 2.75], F32, "MultilabelMarginLossBackward0"),
            ([[-0.5, 0.5, 0.5, -0.5], [0.5, -1.5, 0.5, 0.5]], F32, None),
        ),
    ),
    "multilabel_margin_mean": (
        lambda T: _F(T).multilabel_margin_loss(T.tensor(X), T.tensor([[3, 0, -1, 1]] * 2)),
        (0.575, F32, None),
    ),
    "multilabel_margin_vector": (
        lambda T: _F(T).multilabel_margin_loss(T.tensor(X[0]), T.tensor([3, 0, -1, 1])),
        (0.85, F32, None),
    ),
    "multilabel_margin_out_of_range_after_end": (
        lambda T: _F(T).multilabel_margin_loss(T.tensor(X), T.tensor([[-1, 4, 0, 0]] * 2)),
        ("raises", "RuntimeError"),
    ),
    "multilabel_margin_size": (
        lambda T: _F(T).multilabel_margin_loss(T.tensor(X), T.tensor([[3, 0, -1]] * 2)),
        ("raises", "RuntimeError"),
    ),
    "multilabel_margin_int_target": (
        lambda T: _F(T).multilabel_margin_loss(
            T.tensor(X), T.tensor([[3, 0, -1, 1]] * 2, dtype=T.int32)
        ),
        ("raises", "RuntimeError"),
    ),
    # -- soft_margin_loss: one fused node; the target broadcasts to the input's shape only
    "soft_margin": (
        lambda T: _backward(
            T,
            lambda T, x: _F(T).soft_margin_loss(x, T.tensor([1.0, -1.0, 1.0, -1.0])),
        ),
        (
            (0.7493, F32, "SoftMarginLossBackward0"),
            ([[-0.0594, 0.0687, -0.0502, 0.0862], [-0.0472, 0.0532, -0.0563, 0.0889]], F32, None),
        ),
    ),
    "soft_margin_overflow": (
        lambda T: _F(T).soft_margin_loss(T.tensor([-100.0]), T.tensor([1.0]), reduction="sum"),
        (math.inf, F32, None),
    ),
    "soft_margin_float64_target": (
        lambda T: _F(T).soft_margin_loss(T.zeros(2), T.ones(2, dtype=T.float64)),
        (0.6931, F32, None),
    ),
    "soft_margin_input_broadcast": (
        lambda T: _F(T).soft_margin_loss(T.zeros(2), T.ones(3, 2)),
        ("raises", "RuntimeError"),
    ),
    "soft_margin_target_grad": (
        lambda T: _F(T).soft_margin_loss(T.zeros(2), T.ones(2, requires_grad=True)),
        ("raises", "RuntimeError"),
    ),
    "soft_margin_long_input": (
        lambda T: _F(T).soft_margin_loss(T.tensor([1, 2]), T.tensor([1, 1])),
        ("raises", "RuntimeError"),
    ),
    "soft_margin_empty": (
        lambda T: _F(T).soft_margin_loss(T.zeros(0), T.zeros(0)),
        ("nan", F32, None),
    ),
    # -- composed losses: PyTorch's nodes
    "multilabel_soft_margin": (
        lambda T: _backward(
            T,
            lambda T, x: _F(T).multilabel_soft_margin_loss(
                x, T.tensor([1.0, 0.0, 1.0, 0.0]), weight=T.tensor([1.0, 2.0, 1.0, 2.0])
            ),
        ),
        (
            (1.2199, F32, "MeanBackward0"),
            ([[-0.0594, 0.1375, -0.0502, 0.1725], [-0.0472, 0.1064, -0.0563, 0.1777]], F32, None),
        ),
    ),
    "multilabel_soft_margin_bad_reduction": (
        lambda T: _F(T).multilabel_soft_margin_loss(T.zeros(2), T.ones(2), reduction="x"),
        ("raises", "ValueError"),
    ),
    "cosine_embedding": (
        lambda T: _F(T).cosine_embedding_loss(
            T.tensor([[1.0, 0.0], [1.0, 1.0]], requires_grad=True),
            T.tensor([[0.0, 1.0], [1.0, 1.0]]),
            T.tensor([1, -1]),
            margin=0.5,
            reduction="sum",
        ),
        (1.5, F32, "SumBackward0"),
    ),
    # ATen's epsilon is the float 1e-12 (9.99999996e-13 in double): at a zero input it is all
    # of the magnitude
    "cosine_embedding_zero_input": (
        lambda T: _backward(
            T,
            lambda T, x: _F(T).cosine_embedding_loss(
                x, T.tensor([[1.0, 2.0]], dtype=T.float64), T.tensor([1.0])
            ),
            data=[[0.0, 0.0]],
            dtype="float64",
        ),
        (
            (1.0, F64, "MeanBackward0"),
            ([[-447213.5964, -894427.1928]], F64, None),
        ),
    ),
    "cosine_embedding_2d_target": (
        lambda T: _F(T).cosine_embedding_loss(T.ones(2, 2), T.ones(2, 2), T.ones(2, 1)),
        ("raises", "RuntimeError"),
    ),
    "triplet_with_distance": (
        lambda T: _backward(
            T,
            lambda T, x: _F(T).triplet_margin_with_distance_loss(
                x,
                x * 0.5,
                x.flip(0),
                swap=True,
                margin=2.0,
                distance_function=lambda a, b: (a - b).abs().sum(-1),
            ),
        ),  # fmt: skip
        (
            (1.675, F32, "MeanBackward0"),
            ([[1.25, -0.75, -0.75, 0.25], [-0.5, 0.5, 1.0, 0.0]], F32, None),
        ),
    ),
    "triplet_with_distance_default": (
        lambda T: _F(T).triplet_margin_with_distance_loss(
            T.tensor(X), T.tensor(X), T.zeros(2, 4), reduction="none"
        ),
        ([0.078, 0.0], F32, None),
    ),
    "triplet_with_distance_margin": (
        lambda T: _F(T).triplet_margin_with_distance_loss(
            T.ones(2), T.ones(2), T.ones(2), margin=0
        ),
        ("raises", "ValueError"),
    ),
    "triplet_with_distance_dims": (
        lambda T: _F(T).triplet_margin_with_distance_loss(T.ones(2), T.ones(2), T.ones(1, 2)),
        ("raises", "RuntimeError"),
    ),
    # -- channels
    "local_response_norm_3d": (
        lambda T: _backward(
            T,
            lambda T, x: _F(T).local_response_norm(x.reshape(1, 4, 2), 3, alpha=1.0, beta=0.5),
        ),
        (
            (
                [[[0.0973, 0.1806], [0.3746, 0.7136], [0.4663, -0.2439], [0.191, 0.7894]]],
                F32,
                "DivBackward0",
            ),
            ([[0.9588, 0.8552, 0.8264, 0.7443], [0.7811, 0.9143, 0.9163, 0.7432]], F32, None),
        ),
    ),
    "local_response_norm_4d": (
        lambda T: _F(T).local_response_norm(T.tensor(X).reshape(1, 4, 2, 1), 2, alpha=1.0),
        (
            [
                [
                    [[0.0996], [0.1971]],
                    [[0.3763], [0.6423]],
                    [[0.4347], [-0.2376]],
                    [[0.1807], [0.6811]],
                ]
            ],
            F32,
            None,
        ),
    ),
    "local_response_norm_2d": (
        lambda T: _F(T).local_response_norm(T.ones(2, 2), 2),
        ("raises", "ValueError"),
    ),
    "feature_alpha_dropout_eval": (
        lambda T: _backward(T, lambda T, x: _F(T).feature_alpha_dropout(x * 1, 0.5)),
        ((X, F32, "MulBackward0"), ([[1.0] * 4] * 2, F32, None)),
    ),
    "feature_alpha_dropout_all": (
        lambda T: _F(T).feature_alpha_dropout(T.ones(1, 2), 1.0, True),
        ([[0.0, 0.0]], F32, None),
    ),
    "feature_alpha_dropout_p": (
        lambda T: _F(T).feature_alpha_dropout(T.ones(1, 2), 1.5),
        ("raises", "ValueError"),
    ),
    "feature_alpha_dropout_1d": (
        lambda T: _F(T).feature_alpha_dropout(T.ones(2), 0.5, True),
        ("raises", "RuntimeError"),
    ),
    "channel_shuffle": (
        lambda T: _backward(
            T,
            lambda T, x: (
                _F(T).channel_shuffle(x.reshape(1, 4, 2), 2) * T.arange(8.0).reshape(1, 4, 2)
            ),
        ),
        (
            ([[[0.0, 0.2], [1.0, -0.9], [1.6, 4.0], [1.2, 6.3]]], F32, "MulBackward0"),
            ([[0.0, 1.0, 4.0, 5.0], [2.0, 3.0, 6.0, 7.0]], F32, None),
        ),
    ),
    "channel_shuffle_groups": (
        lambda T: _F(T).channel_shuffle(T.ones(1, 3, 1), 2),
        ("raises", "RuntimeError"),
    ),
    "gumbel_softmax_hard_gradient": (
        # the straight-through gradient is the soft sample's: a sum of the output has none
        lambda T: _backward(T, lambda T, x: _F(T).gumbel_softmax(x, hard=True).sum(1))[1],
        ([[0.0] * 4] * 2, F32, None),
    ),
    # -- modules
    "multi_margin_module": (
        lambda T: T.nn.MultiMarginLoss(weight=T.tensor([1.0, 1.0, 1.0, 2.0]))(
            T.tensor(X), T.tensor([3, 3])
        ),
        (0.55, F32, None),
    ),
    "multi_margin_module_weight_2d": (
        lambda T: T.nn.MultiMarginLoss(weight=T.ones(1, 4)),
        ("raises", "ValueError"),
    ),
    "multilabel_margin_module": (
        lambda T: T.nn.MultiLabelMarginLoss(reduction="sum")(
            T.tensor(X), T.tensor([[0, -1, 0, 0]] * 2)
        ),
        (1.6, F32, None),
    ),
    "multilabel_soft_margin_module": (
        lambda T: T.nn.MultiLabelSoftMarginLoss(reduction="none")(T.zeros(2, 2), T.ones(2, 2)),
        ([0.6931, 0.6931], F32, None),
    ),
    "soft_margin_module_checks_reduction_when_called": (
        lambda T: T.nn.SoftMarginLoss(reduction="x")(T.zeros(2), T.ones(2)),
        ("raises", "ValueError"),
    ),
    "cosine_embedding_module": (
        lambda T: T.nn.CosineEmbeddingLoss(margin=0.5)(
            T.tensor([[1.0, 1.0]]), T.tensor([[1.0, 1.0]]), T.tensor([-1])
        ),
        (0.5, F32, None),
    ),
    "triplet_with_distance_module": (
        lambda T: T.nn.TripletMarginWithDistanceLoss(margin=0.5)(
            T.zeros(1, 2), T.zeros(1, 2), T.tensor([[0.3, 0.4]])
        ),
        (0.0, F32, None),
    ),
    "triplet_with_distance_module_margin": (
        lambda T: T.nn.TripletMarginWithDistanceLoss(margin=-1.0),
        ("raises", "ValueError"),
    ),
    "nll_loss_2d": (
        lambda T: T.nn.NLLLoss2d()(T.tensor(X).reshape(1, 2, 2, 2), T.tensor([[[0, 1], [1, 0]]])),
        (-0.2, F32, None),
    ),
    "local_response_norm_module": (
        lambda T: T.nn.LocalResponseNorm(2, alpha=1.0, beta=1.0)(T.tensor([[[1.0], [3.0]]])),
        ([[[0.6667], [0.5]]], F32, None),
    ),
    "cross_map_lrn": (
        lambda T: _backward(
            T, lambda T, x: T.nn.CrossMapLRN2d(3, alpha=1.0, beta=0.5, k=1.0)(x.reshape(1, 4, 2, 1))
        ),
        (
            (
                [
                    [
                        [[0.0973], [0.1806]],
                        [[0.3746], [0.7136]],
                        [[0.4656], [-0.2428]],
                        [[0.1907], [0.7853]],
                    ]
                ],
                F32,
                "CrossMapLRN2dBackward",
            ),
            ([[0.9697, 0.8931, 0.8805, 0.7014], [0.7938, 0.8649, 0.8931, 0.5705]], F32, None),
        ),
    ),
    "cross_map_lrn_size1_backward": (
        lambda T: _backward(T, lambda T, x: T.nn.CrossMapLRN2d(1)(x.reshape(1, 4, 2, 1))),
        ("raises", "RuntimeError"),
    ),
    "cross_map_lrn_3d": (
        lambda T: T.nn.CrossMapLRN2d(2)(T.ones(2, 2, 2)),
        ("raises", "ValueError"),
    ),
    "feature_alpha_dropout_module": (
        lambda T: T.nn.FeatureAlphaDropout(0.5).eval()(T.ones(1, 2)),
        ([[1.0, 1.0]], F32, None),
    ),
    "channel_shuffle_module": (
        lambda T: T.nn.ChannelShuffle(2)(T.arange(4.0).reshape(1, 4, 1)).flatten(),
        ([0.0, 2.0, 1.0, 3.0], F32, None),
    ),
    "softmax2d": (
        lambda T: _backward(
            T, lambda T, x: T.nn.Softmax2d()(x.reshape(2, 2, 2)) * T.tensor([[[1.0]], [[2.0]]])
        ),
        (
            (
                [[[0.4013, 0.6225], [0.5498, 0.475]], [[1.1974, 0.7551], [0.9003, 1.05]]],
                F32,
                "MulBackward0",
            ),
            ([[-0.2403, -0.235, -0.2475, -0.2494], [0.2403, 0.235, 0.2475, 0.2494]], F32, None),
        ),
    ),
    "softmax2d_2d": (lambda T: T.nn.Softmax2d()(T.ones(2, 2)), ("raises", "ValueError")),
    # -- top level
    "rsub_number": (
        lambda T: _backward(T, lambda T, x: T.rsub(x, 5.0, alpha=2), data=[1.0, 2.0]),
        (([3.0, 1.0], F32, "RsubBackward1"), ([-2.0, -2.0], F32, None)),
    ),
    "rsub_tensor": (
        lambda T: _backward(
            T, lambda T, x: T.rsub(x, T.tensor([[1.0], [2.0]]), alpha=3), [1.0, 2.0]
        ),
        (([[-2.0, -5.0], [-1.0, -4.0]], F32, "RsubBackward0"), ([-6.0, -6.0], F32, None)),
    ),
    "rsub_saved_alpha": (
        lambda T: T.rsub(T.ones(1, requires_grad=True), 1, alpha=3).grad_fn._saved_alpha,
        3,
    ),
    "rsub_int_float_alpha": (
        lambda T: T.rsub(T.tensor([1, 2]), 5, alpha=2.5),
        ("raises", "RuntimeError"),
    ),
    "rsub_int_float": (lambda T: T.rsub(T.tensor([1, 2]), 2.5), ([1.5, 0.5], F32, None)),
    "rsub_bool": (lambda T: T.rsub(T.tensor([True]), 1), ("raises", "RuntimeError")),
    "rsub_number_input": (lambda T: T.rsub(5, T.ones(1)), ("raises", "TypeError")),
    "rsub_tensor_alpha": (
        lambda T: T.rsub(T.ones(2), 1, alpha=T.ones(2)),
        ("raises", "TypeError"),
    ),
    "bce_with_logits_unreduced_by_default": (
        lambda T: T.binary_cross_entropy_with_logits(T.zeros(2), T.tensor([1.0, 0.0])),
        ([0.6931, 0.6931], F32, None),
    ),
    "bce_with_logits_weights_sum": (
        lambda T: _backward(
            T,
            lambda T, x: T.binary_cross_entropy_with_logits(
                x, T.ones(2, 4) * 0.5, T.tensor([1.0, 2.0, 1.0, 2.0]), T.tensor([2.0] * 4), 2
            ),
        ),
        (
            (12.0387, F32, "BinaryCrossEntropyWithLogitsBackward0"),
            ([[-0.2125, -0.3505, -0.102, 0.0699], [-0.0663, -0.7233, -0.1752, 0.1328]], F32, None),
        ),
    ),
    "bce_with_logits_target_shape": (
        lambda T: T.binary_cross_entropy_with_logits(T.zeros(2, 3), T.ones(3)),
        ("raises", "RuntimeError"),
    ),
    "bce_with_logits_input_broadcasts": (
        lambda T: T.binary_cross_entropy_with_logits(T.zeros(2), T.ones(2, 2), reduction=2),
        (2.7726, F32, None),
    ),
    "pairwise_distance": (
        lambda T: T.pairwise_distance(T.tensor([[3.0, 4.0]]), T.zeros(1, 2), eps=0.0),
        ([5.0], F32, None),
    ),
    "rms_norm": (
        lambda T: T.rms_norm(T.tensor([[3.0, 4.0]]), [2], eps=0.0),
        ([[0.8485, 1.1314]], F32, None),
    ),
    "rms_norm_list": (lambda T: T.rms_norm([1.0], [1]), ("raises", "TypeError")),
}


test_table, test_table_is_pytorchs = table_tests(CASES)


# -- gradients against central finite differences, in float64 ----------------------------------


def _numeric_gradient(f, x, h=1e-6):
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = h
        grad[i] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


_RNG = np.random.default_rng(7)
_SCORES = _RNG.normal(size=(3, 5))
_F64 = symgrad.float64
GRADIENT_CASES = {
    "multi_margin_p1": lambda x: symgrad.nn.functional.multi_margin_loss(
        x, symgrad.tensor([4, 0, 2]), margin=0.9
    ),
    "multi_margin_p2_weight_sum": lambda x: symgrad.nn.functional.multi_margin_loss(
        x,
        symgrad.tensor([4, 0, 2]),
        p=2,
        weight=symgrad.arange(1.0, 6.0, dtype=_F64),
        reduction="sum",
    ),  # fmt: skip
    "multilabel_margin": lambda x: symgrad.nn.functional.multilabel_margin_loss(
        x, symgrad.tensor([[4, 1, -1, 0, 0], [0, 1, 2, 3, 4], [2, 2, 3, -1, 1]])
    ),
    "soft_margin": lambda x: symgrad.nn.functional.soft_margin_loss(
        x, symgrad.tensor([1.0, -1.0, 1.0, -1.0, -1.0], dtype=_F64)
    ),
    "local_response_norm": lambda x: symgrad.nn.functional.local_response_norm(
        x.reshape(1, 5, 3), 3, alpha=0.5
    ).sum(),
    "rsub": lambda x: symgrad.rsub(x, 2.0, alpha=1.5).pow(2).sum(),
}


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_gradient_matches_finite_differences(name):
    f = GRADIENT_CASES[name]
    x = symgrad.tensor(_SCORES, dtype=_F64, requires_grad=True)
    f(x).backward()

    def value(a):
        return float(f(symgrad.tensor(a, dtype=_F64)))

    np.testing.assert_allclose(x.grad.numpy(), _numeric_gradient(value, _SCORES), atol=1e-6)


def test_second_derivatives_are_recorded():
    assert symgrad.autograd.gradgradcheck(
        GRADIENT_CASES["soft_margin"], (symgrad.tensor(_SCORES, dtype=_F64, requires_grad=True),)
    )


@pytest.mark.parametrize(
    "name, op",
    [
        ("multi_margin_p2_weight_sum", "multi_margin_loss_backward"),
        ("multilabel_margin", "multilabel_margin_loss_backward"),
    ],
)
def test_hinge_losses_have_no_second_derivative(name, op):
    # as PyTorch: the gradient is its backward op's NotImplemented node, an error when reached
    x = symgrad.tensor(_SCORES, dtype=_F64, requires_grad=True)
    (g,) = symgrad.autograd.grad(GRADIENT_CASES[name](x), x, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == "torch::autograd::NotImplemented"
    with pytest.raises(RuntimeError, match=f"derivative for aten::{op} is not implemented"):
        symgrad.autograd.grad(g.sum(), x)


def test_cross_map_lrn_keeps_channel_zero_in_every_window():
    # PyTorch's legacy running window never drops channel 0: a large channel 0 shrinks
    # channel 4 of 5 although it is outside a window of 3
    x = symgrad.zeros(1, 5, 1, 1)
    x[0, 0] = 100.0
    x[0, 4] = 1.0
    out = symgrad.nn.CrossMapLRN2d(3, alpha=3.0, beta=1.0, k=1.0)(x)
    assert out[0, 4, 0, 0].item() == pytest.approx(1.0 / (1.0 + 10001.0))


def test_gumbel_softmax_samples():
    symgrad.manual_seed(0)
    logits = symgrad.tensor([[0.0, math.log(3.0)]]).expand(4000, 2)
    soft = symgrad.nn.functional.gumbel_softmax(logits, tau=0.5)
    assert soft.shape == (4000, 2)
    np.testing.assert_allclose(soft.sum(1).numpy(), 1.0, rtol=1e-6)
    hard = symgrad.nn.functional.gumbel_softmax(logits, hard=True)
    assert sorted(set(hard.flatten().tolist())) == [0.0, 1.0]
    np.testing.assert_array_equal(hard.sum(1).numpy(), 1.0)
    # the argmax of a Gumbel-perturbed logit is a sample of softmax(logits): class 1 has 3/4
    assert hard[:, 1].mean().item() == pytest.approx(0.75, abs=0.03)


def test_gumbel_softmax_hard_gradient_is_the_soft_samples():
    logits = symgrad.tensor([[0.5, -1.0, 2.0]], requires_grad=True)
    weights = symgrad.tensor([[1.0, 2.0, 3.0]])
    symgrad.manual_seed(1)
    (symgrad.nn.functional.gumbel_softmax(logits, tau=2.0, hard=True) * weights).sum().backward()
    hard_grad = logits.grad.clone()
    logits.grad = None
    symgrad.manual_seed(1)
    (symgrad.nn.functional.gumbel_softmax(logits, tau=2.0) * weights).sum().backward()
    np.testing.assert_allclose(hard_grad.numpy(), logits.grad.numpy())
    assert np.abs(hard_grad.numpy()).max() > 0


def test_gumbel_softmax_eps_is_deprecated():
    with pytest.warns(UserWarning, match="deprecated"):
        symgrad.nn.functional.gumbel_softmax(symgrad.zeros(2), eps=1e-3)


def test_nll_loss_2d_is_deprecated():
    with pytest.warns(FutureWarning, match="NLLLoss2d"):
        symgrad.nn.NLLLoss2d()


def test_module_reprs_and_buffers():
    nn = symgrad.nn
    assert repr(nn.LocalResponseNorm(2)) == "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)"
    assert repr(nn.CrossMapLRN2d(3)) == "CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)"
    assert repr(nn.ChannelShuffle(2)) == "ChannelShuffle(groups=2)"
    assert repr(nn.FeatureAlphaDropout(0.2)) == "FeatureAlphaDropout(p=0.2, inplace=False)"
    assert repr(nn.TripletMarginWithDistanceLoss()) == (
        "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
    )
    assert list(dict(nn.MultiMarginLoss(weight=symgrad.ones(3)).named_buffers())) == ["weight"]


def test_functional_and_top_level_names():
    F = symgrad.nn.functional
    assert F.channel_shuffle is symgrad.channel_shuffle
    assert F.native_channel_shuffle is symgrad.native_channel_shuffle
    assert symgrad.pairwise_distance is F.pairwise_distance
    assert not hasattr(symgrad.Tensor, "rsub")
