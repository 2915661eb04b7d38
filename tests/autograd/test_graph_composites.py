"""The graphs of composite ops as PyTorch records them, node for node: the views around a
loss over 3 or more than 4 dimensions, label smoothing's masked sum, the Scalar overloads
(``MulBackward1``, ``AddBackward1``, ``SubBackward1``) and wrapped numbers of ATen's C++
composites, attention's additive mask. Teaching code walks ``next_functions`` and expects
PyTorch's nodes there."""

from __future__ import annotations

import numpy as np
import pytest
from _graph_names import graph_table_tests, leaf

import symgrad


def labels(T, high, *shape, seed=3):
    return T.tensor(np.random.default_rng(seed).integers(0, high, shape))


def F(T):
    return T.nn.functional


CASES = {
    "cross_entropy_3d": (
        lambda T: F(T).cross_entropy(leaf(T, 2, 3, 4), labels(T, 3, 2, 4)),
        (
            ("NllLoss2DBackward0", ((1, 0),)),
            ("ViewBackward0", ((2, 0),)),
            ("LogSoftmaxBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "cross_entropy_3d_none": (
        lambda T: F(T).cross_entropy(leaf(T, 2, 3, 4), labels(T, 3, 2, 4), reduction="none"),
        (
            ("ViewBackward0", ((1, 0),)),
            ("NllLoss2DBackward0", ((2, 0),)),
            ("ViewBackward0", ((3, 0),)),
            ("LogSoftmaxBackward0", ((4, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "cross_entropy_5d": (
        lambda T: F(T).cross_entropy(leaf(T, 2, 3, 2, 1, 2), labels(T, 3, 2, 2, 1, 2)),
        (
            ("NllLoss2DBackward0", ((1, 0),)),
            ("ViewBackward0", ((2, 0),)),
            ("LogSoftmaxBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "cross_entropy_transposed": (
        lambda T: F(T).cross_entropy(leaf(T, 2, 4, 3).transpose(1, 2), labels(T, 3, 2, 4)),
        (
            ("NllLoss2DBackward0", ((1, 0),)),
            ("ViewBackward0", ((2, 0),)),
            ("LogSoftmaxBackward0", ((3, 0),)),
            ("TransposeBackward0", ((4, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "nll_loss_3d_none": (
        lambda T: F(T).nll_loss(leaf(T, 2, 3, 4), labels(T, 3, 2, 4), reduction="none"),
        (
            ("ViewBackward0", ((1, 0),)),
            ("NllLoss2DBackward0", ((2, 0),)),
            ("ViewBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "label_smoothing_mean": (
        lambda T: F(T).cross_entropy(leaf(T, 4, 3), labels(T, 3, 4), label_smoothing=0.1),
        (
            ("AddBackward0", ((1, 0), (2, 0))),
            ("MulBackward1", ((3, 0),)),
            ("MulBackward1", ((4, 0),)),
            ("NllLossBackward0", ((5, 0),)),
            ("DivBackward0", ((6, 0), None)),
            ("LogSoftmaxBackward0", ((7, 0),)),
            ("SumBackward0", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("MaskedFillBackward0", ((9, 0),)),
            ("NegBackward0", ((10, 0),)),
            ("SumBackward1", ((5, 0),)),
        ),
    ),
    "label_smoothing_sum": (
        lambda T: F(T).cross_entropy(
            leaf(T, 4, 3), labels(T, 3, 4), label_smoothing=0.1, reduction="sum"
        ),
        (
            ("AddBackward0", ((1, 0), (2, 0))),
            ("MulBackward1", ((3, 0),)),
            ("MulBackward1", ((4, 0),)),
            ("NllLossBackward0", ((5, 0),)),
            ("SumBackward0", ((6, 0),)),
            ("LogSoftmaxBackward0", ((7, 0),)),
            ("MaskedFillBackward0", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("NegBackward0", ((9, 0),)),
            ("SumBackward1", ((5, 0),)),
        ),
    ),
    "label_smoothing_none": (
        lambda T: F(T).cross_entropy(
            leaf(T, 4, 3), labels(T, 3, 4), label_smoothing=0.1, reduction="none"
        ),
        (
            ("AddBackward0", ((1, 0), (2, 0))),
            ("MulBackward1", ((3, 0),)),
            ("MulBackward1", ((4, 0),)),
            ("NllLossBackward0", ((5, 0),)),
            ("MaskedFillBackward0", ((6, 0),)),
            ("LogSoftmaxBackward0", ((7, 0),)),
            ("NegBackward0", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("SumBackward1", ((5, 0),)),
        ),
    ),
    "label_smoothing_weight": (
        lambda T: F(T).cross_entropy(
            leaf(T, 4, 3),
            labels(T, 3, 4),
            weight=T.tensor([1.0, 2.0, 0.5], dtype=T.float64),
            label_smoothing=0.2,
        ),
        (
            ("AddBackward0", ((1, 0), (2, 0))),
            ("MulBackward1", ((3, 0),)),
            ("MulBackward1", ((4, 0),)),
            ("NllLossBackward0", ((5, 0),)),
            ("DivBackward0", ((6, 0), None)),
            ("LogSoftmaxBackward0", ((7, 0),)),
            ("SumBackward0", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("MaskedFillBackward0", ((9, 0),)),
            ("NegBackward0", ((10, 0),)),
            ("SumBackward1", ((11, 0),)),
            ("MulBackward0", ((5, 0), None)),
        ),
    ),
    "label_smoothing_ignore": (
        lambda T: F(T).cross_entropy(leaf(T, 4, 3), T.tensor([0, -100, 2, 1]), label_smoothing=0.2),
        (
            ("AddBackward0", ((1, 0), (2, 0))),
            ("MulBackward1", ((3, 0),)),
            ("MulBackward1", ((4, 0),)),
            ("NllLossBackward0", ((5, 0),)),
            ("DivBackward0", ((6, 0), None)),
            ("LogSoftmaxBackward0", ((7, 0),)),
            ("SumBackward0", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("MaskedFillBackward0", ((9, 0),)),
            ("NegBackward0", ((10, 0),)),
            ("SumBackward1", ((5, 0),)),
        ),
    ),
    "probabilities": (
        lambda T: F(T).cross_entropy(leaf(T, 4, 3), leaf(T, 4, 3, seed=1).softmax(1)),
        (
            ("DivBackward1", ((1, 0),)),
            ("NegBackward0", ((2, 0),)),
            ("SumBackward0", ((3, 0),)),
            ("MulBackward0", ((4, 0), (5, 0))),
            ("LogSoftmaxBackward0", ((6, 0),)),
            ("SoftmaxBackward0", ((7, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "probabilities_smoothing_weight": (
        lambda T: F(T).cross_entropy(
            leaf(T, 4, 3),
            leaf(T, 4, 3, seed=1).softmax(1),
            weight=T.tensor([1.0, 2.0, 0.5], dtype=T.float64),
            label_smoothing=0.1,
        ),
        (
            ("DivBackward1", ((1, 0),)),
            ("NegBackward0", ((2, 0),)),
            ("SumBackward0", ((3, 0),)),
            ("MulBackward0", ((4, 0), None)),
            ("MulBackward0", ((5, 0), (6, 0))),
            ("LogSoftmaxBackward0", ((7, 0),)),
            ("AddBackward1", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("MulBackward1", ((9, 0),)),
            ("SoftmaxBackward0", ((10, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "sdpa": (
        lambda T: F(T).scaled_dot_product_attention(
            leaf(T, 1, 3, 2), leaf(T, 1, 4, 2, seed=1), leaf(T, 1, 4, 2, seed=2)
        ),
        (
            ("UnsafeViewBackward0", ((1, 0),)),
            ("BmmBackward0", ((2, 0), (3, 0))),
            ("ViewBackward0", ((4, 0),)),
            ("ViewBackward0", ((5, 0),)),
            ("ExpandBackward0", ((6, 0),)),
            ("ExpandBackward0", ((7, 0),)),
            ("SafeSoftmaxBackward0", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("UnsafeViewBackward0", ((9, 0),)),
            ("BmmBackward0", ((10, 0), (11, 0))),
            ("ViewBackward0", ((12, 0),)),
            ("ReshapeAliasBackward0", ((13, 0),)),
            ("ExpandBackward0", ((14, 0),)),
            ("ExpandBackward0", ((15, 0),)),
            ("MulBackward1", ((16, 0),)),
            ("MulBackward1", ((17, 0),)),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((18, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "sdpa_causal": (
        lambda T: F(T).scaled_dot_product_attention(
            leaf(T, 3, 2), leaf(T, 3, 2, seed=1), leaf(T, 3, 2, seed=2), is_causal=True
        ),
        (
            ("MmBackward0", ((1, 0), (2, 0))),
            ("SafeSoftmaxBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
            ("AddBackward0", ((4, 0), None)),
            ("MmBackward0", ((5, 0), (6, 0))),
            ("MulBackward1", ((7, 0),)),
            ("MulBackward1", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((9, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "sdpa_bool_mask": (
        lambda T: F(T).scaled_dot_product_attention(
            leaf(T, 3, 2),
            leaf(T, 3, 2, seed=1),
            leaf(T, 3, 2, seed=2),
            attn_mask=T.tensor([[True, False, True], [True, True, False], [False, True, True]]),
        ),
        (
            ("MmBackward0", ((1, 0), (2, 0))),
            ("SafeSoftmaxBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
            ("AddBackward0", ((4, 0), None)),
            ("MmBackward0", ((5, 0), (6, 0))),
            ("MulBackward1", ((7, 0),)),
            ("MulBackward1", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((9, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "margin_ranking_loss": (
        lambda T: F(T).margin_ranking_loss(
            leaf(T, 3), leaf(T, 3, seed=1), T.tensor([1.0, -1.0, 1.0], dtype=T.float64), margin=0.5
        ),
        (
            ("MeanBackward0", ((1, 0),)),
            ("ClampMinBackward0", ((2, 0),)),
            ("AddBackward1", ((3, 0),)),
            ("MulBackward0", (None, (4, 0))),
            ("SubBackward0", ((5, 0), (6, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "hinge_embedding_loss": (
        lambda T: F(T).hinge_embedding_loss(
            leaf(T, 3), T.tensor([1.0, -1.0, 1.0], dtype=T.float64)
        ),
        (
            ("MeanBackward0", ((1, 0),)),
            ("AddBackward0", ((2, 0), (3, 0))),
            ("WhereBackward0", ((4, 0), None)),
            ("WhereBackward0", ((5, 0), None)),
            ("ClampMinBackward0", ((6, 0),)),
            ("AccumulateGrad", ()),
            ("SubBackward0", (None, (5, 0))),
        ),
    ),
    "triplet_margin_loss": (
        lambda T: F(T).triplet_margin_loss(
            leaf(T, 2, 3), leaf(T, 2, 3, seed=1), leaf(T, 2, 3, seed=2)
        ),
        (
            ("MeanBackward0", ((1, 0),)),
            ("ClampMinBackward0", ((2, 0),)),
            ("SubBackward0", ((3, 0), (4, 0))),
            ("AddBackward1", ((5, 0),)),
            ("NormBackward1", ((6, 0),)),
            ("NormBackward1", ((7, 0),)),
            ("AddBackward1", ((8, 0),)),
            ("AddBackward1", ((9, 0),)),
            ("SubBackward0", ((10, 0), (11, 0))),
            ("SubBackward0", ((10, 0), (12, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "cosine_embedding_loss": (
        lambda T: F(T).cosine_embedding_loss(
            leaf(T, 2, 3), leaf(T, 2, 3, seed=1), T.tensor([1.0, -1.0], dtype=T.float64), 0.1
        ),
        (
            ("MeanBackward0", ((1, 0),)),
            ("AddBackward0", ((2, 0), (3, 0))),
            ("WhereBackward0", ((4, 0), None)),
            ("WhereBackward0", ((5, 0), None)),
            ("SubBackward0", (None, (6, 0))),
            ("ClampMinBackward0", ((7, 0),)),
            ("DivBackward0", ((8, 0), (9, 0))),
            ("SubBackward1", ((6, 0),)),
            ("SumBackward1", ((10, 0),)),
            ("SqrtBackward0", ((11, 0),)),
            ("MulBackward0", ((12, 0), (13, 0))),
            ("MulBackward0", ((14, 0), (15, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AddBackward1", ((16, 0),)),
            ("AddBackward1", ((17, 0),)),
            ("SumBackward1", ((18, 0),)),
            ("SumBackward1", ((19, 0),)),
            ("MulBackward0", ((12, 0), (12, 0))),
            ("MulBackward0", ((13, 0), (13, 0))),
        ),
    ),
    "poisson_nll_loss_not_log": (
        lambda T: F(T).poisson_nll_loss(
            leaf(T, 3).exp(), T.tensor([1.0, 0.0, 2.0], dtype=T.float64), log_input=False
        ),
        (
            ("MeanBackward0", ((1, 0),)),
            ("SubBackward0", ((2, 0), (3, 0))),
            ("ExpBackward0", ((4, 0),)),
            ("MulBackward0", (None, (5, 0))),
            ("AccumulateGrad", ()),
            ("LogBackward0", ((6, 0),)),
            ("AddBackward1", ((2, 0),)),
        ),
    ),
    "cosine_similarity_broadcast": (
        lambda T: F(T).cosine_similarity(leaf(T, 2, 3, 4), leaf(T, 4, seed=1), dim=-1),
        (
            ("SumBackward1", ((1, 0),)),
            ("MulBackward0", ((2, 0), (3, 0))),
            ("DivBackward0", ((4, 0), (5, 0))),
            ("DivBackward0", ((6, 0), (7, 0))),
            ("ExpandBackward0", ((8, 0),)),
            ("CloneBackward0", ((9, 0),)),
            ("ExpandBackward0", ((10, 0),)),
            ("CloneBackward0", ((11, 0),)),
            ("AccumulateGrad", ()),
            ("LinalgVectorNormBackward0", ((4, 0),)),
            ("AccumulateGrad", ()),
            ("LinalgVectorNormBackward0", ((6, 0),)),
        ),
    ),
    "take_along_dim": (
        lambda T: T.take_along_dim(leaf(T, 2, 3), T.tensor([[0], [2]]), 1),
        (("GatherBackward0", ((1, 0),)), ("ExpandBackward0", ((2, 0),)), ("AccumulateGrad", ())),
    ),
    "median_all": (
        lambda T: leaf(T, 2, 3).median(),
        (("MedianBackward0", ((1, 0),)), ("AccumulateGrad", ())),
    ),
    "nanmedian_all": (
        lambda T: leaf(T, 2, 3).nanmedian(),
        (("NanmedianBackward0", ((1, 0),)), ("AccumulateGrad", ())),
    ),
    "conv1d_same_even_kernel": (
        lambda T: F(T).conv1d(leaf(T, 2, 4), leaf(T, 2, 2, 2, seed=1), padding="same"),
        (
            ("SqueezeBackward1", ((1, 0),)),
            ("ConvolutionBackward0", ((2, 0), (3, 0), None)),
            ("ConstantPadNdBackward0", ((4, 0),)),
            ("AccumulateGrad", ()),
            ("UnsqueezeBackward0", ((5, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "conv2d_same_even_kernel": (
        lambda T: F(T).conv2d(leaf(T, 1, 1, 3, 6), leaf(T, 1, 1, 2, 4, seed=1), padding="same"),
        (
            ("ConvolutionBackward0", ((1, 0), (2, 0), None)),
            ("ConstantPadNdBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "mha_self_attention": (
        lambda T: (lambda x: T.nn.MultiheadAttention(4, 2).double()(x, x, x)[0])(leaf(T, 3, 2, 4)),
        (
            ("ViewBackward0", ((1, 0),)),
            ("AddmmBackward0", ((2, 0), (3, 0), (4, 0))),
            ("AccumulateGrad", ()),
            ("UnsafeViewBackward0", ((5, 0),)),
            ("TBackward0", ((6, 0),)),
            ("CloneBackward0", ((7, 0),)),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((8, 0),)),
            ("BmmBackward0", ((9, 0), (10, 0))),
            ("SoftmaxBackward0", ((11, 0),)),
            ("TransposeBackward0", ((12, 0),)),
            ("BmmBackward0", ((13, 0), (14, 0))),
            ("ViewBackward0", ((15, 0),)),
            ("MulBackward0", ((16, 0), None)),
            ("TransposeBackward0", ((17, 0),)),
            ("SelectBackward0", ((18, 0),)),
            ("TransposeBackward0", ((19, 0),)),
            ("TransposeBackward0", ((20, 0),)),
            ("CloneBackward0", ((21, 0),)),
            ("ViewBackward0", ((22, 0),)),
            ("ViewBackward0", ((23, 0),)),
            ("SqueezeBackward1", ((24, 0),)),
            ("SelectBackward0", ((18, 0),)),
            ("SelectBackward0", ((18, 0),)),
            ("TransposeBackward0", ((25, 0),)),
            ("UnsqueezeBackward0", ((26, 0),)),
            ("ViewBackward0", ((27, 0),)),
            ("ViewBackward0", ((28, 0),)),
            ("AddmmBackward0", ((29, 0), (30, 0), (31, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((32, 0),)),
            ("TBackward0", ((33, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "mha_self_attention_no_weights": (
        lambda T: (
            lambda x: T.nn.MultiheadAttention(4, 2).double()(x, x, x, need_weights=False)[0]
        )(leaf(T, 3, 2, 4)),
        (
            ("ViewBackward0", ((1, 0),)),
            ("AddmmBackward0", ((2, 0), (3, 0), (4, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((5, 0),)),
            ("TBackward0", ((6, 0),)),
            ("PermuteBackward0", ((7, 0),)),
            ("AccumulateGrad", ()),
            ("ScaledDotProductFlashAttentionForCpuBackward0", ((8, 0), (9, 0), (10, 0))),
            ("ViewBackward0", ((11, 0),)),
            ("ViewBackward0", ((12, 0),)),
            ("ViewBackward0", ((13, 0),)),
            ("TransposeBackward0", ((14, 0),)),
            ("TransposeBackward0", ((15, 0),)),
            ("TransposeBackward0", ((16, 0),)),
            ("ViewBackward0", ((17, 0),)),
            ("ViewBackward0", ((18, 0),)),
            ("ViewBackward0", ((19, 0),)),
            ("SelectBackward0", ((20, 0),)),
            ("SelectBackward0", ((20, 0),)),
            ("SelectBackward0", ((20, 0),)),
            ("CloneBackward0", ((21, 0),)),
            ("SqueezeBackward1", ((22, 0),)),
            ("TransposeBackward0", ((23, 0),)),
            ("UnsqueezeBackward0", ((24, 0),)),
            ("ViewBackward0", ((25, 0),)),
            ("ViewBackward0", ((26, 0),)),
            ("AddmmBackward0", ((27, 0), (28, 0), (29, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((30, 0),)),
            ("TBackward0", ((31, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "mha_batch_first_cross": (
        lambda T: (
            lambda q, kv: T.nn.MultiheadAttention(4, 2, batch_first=True).double()(q, kv, kv)[0]
        )(leaf(T, 2, 3, 4), leaf(T, 2, 5, 4, seed=1)),
        (
            ("TransposeBackward0", ((1, 0),)),
            ("ViewBackward0", ((2, 0),)),
            ("AddmmBackward0", ((3, 0), (4, 0), (5, 0))),
            ("AccumulateGrad", ()),
            ("UnsafeViewBackward0", ((6, 0),)),
            ("TBackward0", ((7, 0),)),
            ("CloneBackward0", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((9, 0),)),
            ("BmmBackward0", ((10, 0), (11, 0))),
            ("SoftmaxBackward0", ((12, 0),)),
            ("TransposeBackward0", ((13, 0),)),
            ("BmmBackward0", ((14, 0), (15, 0))),
            ("ViewBackward0", ((16, 0),)),
            ("MulBackward0", ((17, 0), None)),
            ("TransposeBackward0", ((18, 0),)),
            ("SelectBackward0", ((19, 0),)),
            ("TransposeBackward0", ((20, 0),)),
            ("TransposeBackward0", ((21, 0),)),
            ("CloneBackward0", ((22, 0),)),
            ("ViewBackward0", ((23, 0),)),
            ("ViewBackward0", ((24, 0),)),
            ("SqueezeBackward1", ((25, 0),)),
            ("AddBackward0", ((26, 0), (27, 0))),
            ("SelectBackward0", ((19, 0),)),
            ("TransposeBackward0", ((28, 0),)),
            ("UnsafeViewBackward0", ((29, 0),)),
            ("SplitWithSizesBackward0", ((30, 0),)),
            ("UnsqueezeBackward0", ((31, 0),)),
            ("MmBackward0", ((32, 0), (33, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((34, 0),)),
            ("UnsafeViewBackward0", ((35, 0),)),
            ("TBackward0", ((36, 0),)),
            ("AddBackward0", ((37, 0), (27, 1))),
            ("CloneBackward0", ((38, 0),)),
            ("SplitWithSizesBackward0", ((39, 0),)),
            ("UnsafeViewBackward0", ((40, 0),)),
            ("TransposeBackward0", ((41, 0),)),
            ("AccumulateGrad", ()),
            ("MmBackward0", ((42, 0), (43, 0))),
            ("AccumulateGrad", ()),
            ("UnsafeViewBackward0", ((44, 0),)),
            ("TBackward0", ((36, 1),)),
            ("CloneBackward0", ((45, 0),)),
            ("TransposeBackward0", ((46, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "transformer_encoder_layer": (
        lambda T: T.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0).double()(leaf(T, 3, 2, 4)),
        (
            ("NativeLayerNormBackward0", ((1, 0), (2, 0), (3, 0))),
            ("AddBackward0", ((4, 0), (5, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("NativeLayerNormBackward0", ((6, 0), (7, 0), (8, 0))),
            ("ViewBackward0", ((9, 0),)),
            ("AddBackward0", ((10, 0), (11, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((12, 0), (13, 0), (14, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((15, 0),)),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((16, 0),)),
            ("TBackward0", ((17, 0),)),
            ("AddmmBackward0", ((18, 0), (19, 0), (20, 0))),
            ("ReluBackward0", ((21, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((22, 0),)),
            ("TBackward0", ((23, 0),)),
            ("ViewBackward0", ((24, 0),)),
            ("PermuteBackward0", ((25, 0),)),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((26, 0), (27, 0), (28, 0))),
            ("ScaledDotProductFlashAttentionForCpuBackward0", ((29, 0), (30, 0), (31, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((4, 0),)),
            ("TBackward0", ((32, 0),)),
            ("ViewBackward0", ((33, 0),)),
            ("ViewBackward0", ((34, 0),)),
            ("ViewBackward0", ((35, 0),)),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((36, 0),)),
            ("TransposeBackward0", ((37, 0),)),
            ("TransposeBackward0", ((38, 0),)),
            ("ViewBackward0", ((39, 0),)),
            ("ViewBackward0", ((40, 0),)),
            ("ViewBackward0", ((41, 0),)),
            ("SelectBackward0", ((42, 0),)),
            ("SelectBackward0", ((42, 0),)),
            ("SelectBackward0", ((42, 0),)),
            ("CloneBackward0", ((43, 0),)),
            ("SqueezeBackward1", ((44, 0),)),
            ("TransposeBackward0", ((45, 0),)),
            ("UnsqueezeBackward0", ((46, 0),)),
            ("ViewBackward0", ((47, 0),)),
            ("ViewBackward0", ((48, 0),)),
            ("AddmmBackward0", ((49, 0), (50, 0), (51, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((10, 0),)),
            ("TBackward0", ((52, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "lstm_cell": (
        lambda T: T.nn.LSTMCell(3, 2).double()(leaf(T, 2, 3))[0],
        (
            ("MulBackward0", ((1, 0), (2, 0))),
            ("SigmoidBackward0", ((3, 3),)),
            ("TanhBackward0", ((4, 0),)),
            ("UnsafeSplitBackward0", ((5, 0),)),
            ("AddBackward0", ((6, 0), (7, 0))),
            ("AddBackward0", ((8, 0), (9, 0))),
            ("MulBackward0", ((10, 0), None)),
            ("MulBackward0", ((11, 0), (12, 0))),
            ("AddmmBackward0", ((13, 0), None, (14, 0))),
            ("AddmmBackward0", ((15, 0), (16, 0), (17, 0))),
            ("SigmoidBackward0", ((3, 1),)),
            ("SigmoidBackward0", ((3, 0),)),
            ("TanhBackward0", ((3, 2),)),
            ("AccumulateGrad", ()),
            ("TBackward0", ((18, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("TBackward0", ((19, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "gru_cell": (
        lambda T: T.nn.GRUCell(3, 2).double()(leaf(T, 2, 3)),
        (
            ("AddBackward0", ((1, 0), (2, 0))),
            ("MulBackward0", ((3, 0), (4, 0))),
            ("TanhBackward0", ((5, 0),)),
            ("SubBackward0", (None, (2, 0))),
            ("SigmoidBackward0", ((6, 0),)),
            ("AddBackward0", ((7, 2), (8, 0))),
            ("AddBackward0", ((9, 1), (7, 1))),
            ("UnsafeSplitBackward0", ((10, 0),)),
            ("MulBackward0", ((9, 2), (11, 0))),
            ("UnsafeSplitBackward0", ((12, 0),)),
            ("AddmmBackward0", ((13, 0), (14, 0), (15, 0))),
            ("SigmoidBackward0", ((16, 0),)),
            ("AddmmBackward0", ((17, 0), None, (18, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("TBackward0", ((19, 0),)),
            ("AddBackward0", ((9, 0), (7, 0))),
            ("AccumulateGrad", ()),
            ("TBackward0", ((20, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "prelu_2d": (
        lambda T: F(T).prelu(leaf(T, 2, 3), leaf(T, 1, seed=1)),
        (
            ("PreluKernelBackward0", ((1, 0), (2, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "prelu_1d_one_weight": (
        lambda T: F(T).prelu(leaf(T, 3), leaf(T, 1, seed=1)),
        (
            ("PreluKernelBackward0", ((1, 0), (2, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "rms_norm": (
        lambda T: F(T).rms_norm(leaf(T, 2, 3), (3,), leaf(T, 3, seed=1), eps=1e-6),
        (
            ("MulBackward0", ((1, 0), (2, 0))),
            ("MulBackward0", ((3, 0), (4, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("RsqrtBackward0", ((5, 0),)),
            ("AddBackward1", ((6, 0),)),
            ("MeanBackward1", ((7, 0),)),
            ("PowBackward0", ((3, 0),)),
        ),
    ),
    "sdpa_4d": (
        lambda T: F(T).scaled_dot_product_attention(
            leaf(T, 1, 2, 3, 4), leaf(T, 1, 2, 5, 4, seed=1), leaf(T, 1, 2, 5, 4, seed=2)
        ),
        (
            ("ScaledDotProductFlashAttentionForCpuBackward0", ((1, 0), (2, 0), (3, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "sdpa_4d_gqa_causal": (
        lambda T: F(T).scaled_dot_product_attention(
            leaf(T, 1, 4, 3, 2),
            leaf(T, 1, 2, 3, 2, seed=1),
            leaf(T, 1, 2, 3, 2, seed=2),
            is_causal=True,
            enable_gqa=True,
        ),
        (
            ("ScaledDotProductFlashAttentionForCpuBackward0", ((1, 0), (2, 0), (3, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "sdpa_4d_value_head_differs": (
        lambda T: F(T).scaled_dot_product_attention(
            leaf(T, 1, 1, 3, 4), leaf(T, 1, 1, 3, 4, seed=1), leaf(T, 1, 1, 3, 2, seed=2)
        ),
        (
            ("UnsafeViewBackward0", ((1, 0),)),
            ("BmmBackward0", ((2, 0), (3, 0))),
            ("ViewBackward0", ((4, 0),)),
            ("ViewBackward0", ((5, 0),)),
            ("ExpandBackward0", ((6, 0),)),
            ("ExpandBackward0", ((7, 0),)),
            ("SafeSoftmaxBackward0", ((8, 0),)),
            ("AccumulateGrad", ()),
            ("UnsafeViewBackward0", ((9, 0),)),
            ("BmmBackward0", ((10, 0), (11, 0))),
            ("ViewBackward0", ((12, 0),)),
            ("ReshapeAliasBackward0", ((13, 0),)),
            ("ExpandBackward0", ((14, 0),)),
            ("ExpandBackward0", ((15, 0),)),
            ("MulBackward1", ((16, 0),)),
            ("MulBackward1", ((17, 0),)),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((18, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "rnn_layer": (
        lambda T: T.nn.RNN(3, 2).double()(leaf(T, 2, 1, 3))[0],
        (
            ("StackBackward0", ((1, 0), (2, 0))),
            ("TanhBackward0", ((3, 0),)),
            ("TanhBackward0", ((4, 0),)),
            ("AddBackward0", ((5, 0), (6, 0))),
            ("AddBackward0", ((7, 0), (6, 1))),
            ("AddmmBackward0", ((8, 0), None, (9, 0))),
            ("UnbindBackward0", ((10, 0),)),
            ("AddmmBackward0", ((8, 0), (1, 0), (11, 0))),
            ("AccumulateGrad", ()),
            ("TBackward0", ((12, 0),)),
            ("ViewBackward0", ((13, 0),)),
            ("TBackward0", ((12, 0),)),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((14, 0), (15, 0), (16, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((17, 0),)),
            ("TBackward0", ((18, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "gru_two_layers": (
        lambda T: T.nn.GRU(3, 2, num_layers=2).double()(leaf(T, 2, 1, 3))[0],
        (
            ("StackBackward0", ((1, 0), (2, 0))),
            ("AddBackward0", ((3, 0), (4, 0))),
            ("AddBackward0", ((5, 0), (6, 0))),
            ("MulBackward0", ((7, 0), (8, 0))),
            ("TanhBackward0", ((9, 0),)),
            ("MulBackward0", ((10, 0), (11, 0))),
            ("TanhBackward0", ((12, 0),)),
            ("SubBackward0", (None, (4, 0))),
            ("SigmoidBackward0", ((13, 0),)),
            ("AddBackward0", ((14, 2), (15, 0))),
            ("SubBackward0", ((1, 0), (6, 0))),
            ("SigmoidBackward0", ((16, 0),)),
            ("AddBackward0", ((17, 2), (18, 0))),
            ("AddBackward0", ((19, 1), (14, 1))),
            ("UnsafeSplitBackward0", ((20, 0),)),
            ("MulBackward0", ((19, 2), (21, 0))),
            ("AddBackward0", ((22, 1), (17, 1))),
            ("UnsafeSplitBackward0", ((20, 1),)),
            ("MulBackward0", ((22, 2), (23, 0))),
            ("UnsafeSplitBackward0", ((24, 0),)),
            ("UnbindBackward0", ((25, 0),)),
            ("SigmoidBackward0", ((26, 0),)),
            ("UnsafeSplitBackward0", ((27, 0),)),
            ("SigmoidBackward0", ((28, 0),)),
            ("AddmmBackward0", ((29, 0), None, (30, 0))),
            ("ViewBackward0", ((31, 0),)),
            ("AddBackward0", ((19, 0), (14, 0))),
            ("AddmmBackward0", ((29, 0), (1, 0), (32, 0))),
            ("AddBackward0", ((22, 0), (17, 0))),
            ("AccumulateGrad", ()),
            ("TBackward0", ((33, 0),)),
            ("AddmmBackward0", ((34, 0), (35, 0), (36, 0))),
            ("TBackward0", ((33, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((37, 0),)),
            ("TBackward0", ((38, 0),)),
            ("StackBackward0", ((39, 0), (40, 0))),
            ("AccumulateGrad", ()),
            ("AddBackward0", ((41, 0), (42, 0))),
            ("AddBackward0", ((43, 0), (44, 0))),
            ("MulBackward0", ((45, 0), (46, 0))),
            ("TanhBackward0", ((47, 0),)),
            ("MulBackward0", ((48, 0), (49, 0))),
            ("TanhBackward0", ((50, 0),)),
            ("SubBackward0", (None, (42, 0))),
            ("SigmoidBackward0", ((51, 0),)),
            ("AddBackward0", ((52, 2), (53, 0))),
            ("SubBackward0", ((39, 0), (44, 0))),
            ("SigmoidBackward0", ((54, 0),)),
            ("AddBackward0", ((55, 2), (56, 0))),
            ("AddBackward0", ((57, 1), (52, 1))),
            ("UnsafeSplitBackward0", ((58, 0),)),
            ("MulBackward0", ((57, 2), (59, 0))),
            ("AddBackward0", ((60, 1), (55, 1))),
            ("UnsafeSplitBackward0", ((58, 1),)),
            ("MulBackward0", ((60, 2), (61, 0))),
            ("UnsafeSplitBackward0", ((62, 0),)),
            ("UnbindBackward0", ((63, 0),)),
            ("SigmoidBackward0", ((64, 0),)),
            ("UnsafeSplitBackward0", ((65, 0),)),
            ("SigmoidBackward0", ((66, 0),)),
            ("AddmmBackward0", ((67, 0), None, (68, 0))),
            ("ViewBackward0", ((69, 0),)),
            ("AddBackward0", ((57, 0), (52, 0))),
            ("AddmmBackward0", ((67, 0), (39, 0), (70, 0))),
            ("AddBackward0", ((60, 0), (55, 0))),
            ("AccumulateGrad", ()),
            ("TBackward0", ((71, 0),)),
            ("AddmmBackward0", ((72, 0), (73, 0), (74, 0))),
            ("TBackward0", ((71, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((75, 0),)),
            ("TBackward0", ((76, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "lstm_float64": (
        lambda T: T.nn.LSTM(3, 2).double()(leaf(T, 2, 1, 3))[0],
        (
            ("StackBackward0", ((1, 0), (2, 0))),
            ("MulBackward0", ((3, 0), (4, 0))),
            ("MulBackward0", ((5, 0), (6, 0))),
            ("SigmoidBackward0", ((7, 3),)),
            ("TanhBackward0", ((8, 0),)),
            ("SigmoidBackward0", ((9, 3),)),
            ("TanhBackward0", ((10, 0),)),
            ("UnsafeSplitBackward0", ((11, 0),)),
            ("AddBackward0", ((12, 0), (13, 0))),
            ("UnsafeSplitBackward0", ((14, 0),)),
            ("AddBackward0", ((15, 0), (16, 0))),
            ("AddBackward0", ((17, 0), (18, 0))),
            ("MulBackward0", ((19, 0), None)),
            ("MulBackward0", ((20, 0), (21, 0))),
            ("AddBackward0", ((22, 0), (18, 1))),
            ("MulBackward0", ((23, 0), (8, 0))),
            ("MulBackward0", ((24, 0), (25, 0))),
            ("AddmmBackward0", ((26, 0), None, (27, 0))),
            ("UnbindBackward0", ((28, 0),)),
            ("SigmoidBackward0", ((7, 1),)),
            ("SigmoidBackward0", ((7, 0),)),
            ("TanhBackward0", ((7, 2),)),
            ("AddmmBackward0", ((26, 0), (1, 0), (29, 0))),
            ("SigmoidBackward0", ((9, 1),)),
            ("SigmoidBackward0", ((9, 0),)),
            ("TanhBackward0", ((9, 2),)),
            ("AccumulateGrad", ()),
            ("TBackward0", ((30, 0),)),
            ("ViewBackward0", ((31, 0),)),
            ("TBackward0", ((30, 0),)),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((32, 0), (33, 0), (34, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((35, 0),)),
            ("TBackward0", ((36, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "rnn_bidirectional_batch_first": (
        lambda T: T.nn.RNN(3, 2, bidirectional=True, batch_first=True).double()(leaf(T, 1, 2, 3))[
            0
        ],
        (
            ("TransposeBackward1", ((1, 0),)),
            ("CatBackward0", ((2, 0), (3, 0))),
            ("StackBackward0", ((4, 0), (5, 0))),
            ("StackBackward0", ((6, 0), (7, 0))),
            ("TanhBackward0", ((8, 0),)),
            ("TanhBackward0", ((9, 0),)),
            ("TanhBackward0", ((10, 0),)),
            ("TanhBackward0", ((11, 0),)),
            ("AddBackward0", ((12, 0), (13, 0))),
            ("AddBackward0", ((14, 0), (13, 1))),
            ("AddBackward0", ((15, 0), (16, 0))),
            ("AddBackward0", ((17, 0), (16, 1))),
            ("AddmmBackward0", ((18, 0), None, (19, 0))),
            ("UnbindBackward0", ((20, 0),)),
            ("AddmmBackward0", ((18, 0), (4, 0), (21, 0))),
            ("AddmmBackward0", ((22, 0), (7, 0), (23, 0))),
            ("UnbindBackward0", ((24, 0),)),
            ("AddmmBackward0", ((22, 0), None, (25, 0))),
            ("AccumulateGrad", ()),
            ("TBackward0", ((26, 0),)),
            ("ViewBackward0", ((27, 0),)),
            ("TBackward0", ((26, 0),)),
            ("AccumulateGrad", ()),
            ("TBackward0", ((28, 0),)),
            ("ViewBackward0", ((29, 0),)),
            ("TBackward0", ((28, 0),)),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((30, 0), (31, 0), (32, 0))),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((33, 0), (34, 0), (35, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((36, 0),)),
            ("TBackward0", ((37, 0),)),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((36, 0),)),
            ("TBackward0", ((38, 0),)),
            ("TransposeBackward0", ((39, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "inplace_on_view_scalar": (
        lambda T: (lambda y: (y[0].mul_(2), y)[1])(leaf(T, 2, 3) * 1),
        (("CopySlices", ((1, 0), None)), ("MulBackward0", ((2, 0), None)), ("AccumulateGrad", ())),
    ),
    "inplace_on_view_tensor": (
        lambda T: (lambda y, w: (y[:, 0].add_(w), y)[1])(leaf(T, 2, 3) * 1, leaf(T, 2, seed=1)),
        (
            ("CopySlices", ((1, 0), (2, 0))),
            ("MulBackward0", ((3, 0), None)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "inplace_on_view_unary": (
        lambda T: (lambda y: (y[0].sigmoid_(), y)[1])(leaf(T, 2, 3) * 1),
        (("CopySlices", ((1, 0),)), ("MulBackward0", ((2, 0), None)), ("AccumulateGrad", ())),
    ),
    "inplace_on_view_of_view": (
        lambda T: (lambda y: (y.view(-1)[2].mul_(3), y)[1])(leaf(T, 2, 3) * 1),
        (("CopySlices", ((1, 0), None)), ("MulBackward0", ((2, 0), None)), ("AccumulateGrad", ())),
    ),
    "inplace_on_view_addcmul": (
        lambda T: (lambda y, w: (y[0].addcmul_(w[0], w[1]), y)[1])(
            leaf(T, 2, 3) * 1, leaf(T, 2, 3, seed=1)
        ),
        (
            ("CopySlices", ((1, 0), (2, 0), (3, 0))),
            ("MulBackward0", ((4, 0), None)),
            ("SelectBackward0", ((5, 0),)),
            ("SelectBackward0", ((5, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "lstm_float32_fused_node": (
        lambda T: T.nn.LSTM(3, 2)(leaf(T, 2, 1, 3).float())[0],
        (
            ("MkldnnRnnLayerBackward0", ((1, 0), (2, 0), (3, 0), (4, 0), (5, 0), None, None)),
            ("ToCopyBackward0", ((6, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "lstm_float32_two_layers_given_state": (
        lambda T: (
            lambda h: T.nn.LSTM(3, 2, num_layers=2)(leaf(T, 2, 1, 3).float(), (h, h.detach()))[0]
        )(leaf(T, 2, 1, 2, seed=1).float()),
        (
            ("MkldnnRnnLayerBackward0", ((1, 0), (2, 0), (3, 0), (4, 0), (5, 0), (6, 0), None)),
            ("MkldnnRnnLayerBackward0", ((7, 0), (8, 0), (9, 0), (10, 0), (11, 0), (12, 0), None)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("SelectBackward0", ((13, 0),)),
            ("ToCopyBackward0", ((14, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("SelectBackward0", ((13, 0),)),
            ("ToCopyBackward0", ((15, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "mse_loss_broadcast_target": (
        lambda T: F(T).mse_loss(leaf(T, 2, 3), leaf(T, 3, seed=1)),
        (
            ("MseLossBackward0", ((1, 0), (2, 0))),
            ("AccumulateGrad", ()),
            ("ExpandBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "l1_loss_broadcast_target": (
        lambda T: F(T).l1_loss(leaf(T, 2, 3), leaf(T, 3, seed=1)),
        (
            ("MeanBackward0", ((1, 0),)),
            ("AbsBackward0", ((2, 0),)),
            ("SubBackward0", ((3, 0), (4, 0))),
            ("AccumulateGrad", ()),
            ("ExpandBackward0", ((5, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "huber_loss_broadcast_input": (
        lambda T: F(T).huber_loss(leaf(T, 3), leaf(T, 2, 3, seed=1)),
        (
            ("HuberLossBackward0", ((1, 0), (2, 0))),
            ("ExpandBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "embedding_bag_2d_weighted": (
        lambda T: F(T).embedding_bag(
            T.tensor([[0, 2], [1, 3]]),
            leaf(T, 4, 3),
            mode="sum",
            per_sample_weights=leaf(T, 2, 2, seed=1),
        ),
        (
            ("EmbeddingBagBackward0", ((1, 0), (2, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "setitem_broadcast_rows": (
        lambda T: (lambda y: (y.__setitem__(slice(0, 2), leaf(T, 3, seed=1)), y)[1])(
            leaf(T, 3, 3) * 1
        ),
        (
            ("CopySlices", ((1, 0), (2, 0))),
            ("MulBackward0", ((3, 0), None)),
            ("ExpandBackward0", ((4, 0),)),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((5, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "setitem_leading_one": (
        lambda T: (lambda y: (y.__setitem__(slice(0, 2), leaf(T, 1, 3, seed=1)), y)[1])(
            leaf(T, 3, 3) * 1
        ),
        (
            ("CopySlices", ((1, 0), (2, 0))),
            ("MulBackward0", ((3, 0), None)),
            ("ExpandBackward0", ((4, 0),)),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((5, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "setitem_broadcast_column": (
        lambda T: (
            lambda y: (y.__setitem__((slice(None), slice(0, 2)), leaf(T, 3, 1, seed=1)), y)[1]
        )(leaf(T, 3, 3) * 1),
        (
            ("CopySlices", ((1, 0), (2, 0))),
            ("MulBackward0", ((3, 0), None)),
            ("ExpandBackward0", ((4, 0),)),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((5, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "inplace_on_view_of_plain_base": (
        lambda T: (lambda z, w: (z[0].add_(w), z)[1])(T.zeros(2, 3, dtype=T.float64), leaf(T, 3)),
        (("CopySlices", (None, (1, 0))), ("AccumulateGrad", ())),
    ),
    "inplace_clamp_on_view_of_plain_base": (
        lambda T: (lambda z, w: (z[0].clamp_(min=w), z)[1])(
            T.zeros(2, 3, dtype=T.float64), leaf(T, 3)
        ),
        (("CopySlices", (None, (1, 0), None)), ("AccumulateGrad", ())),
    ),
    "transformer_decoder_layer": (
        lambda T: T.nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0).double()(
            leaf(T, 3, 2, 4), leaf(T, 5, 2, 4, seed=1)
        ),
        (
            ("NativeLayerNormBackward0", ((1, 0), (2, 0), (3, 0))),
            ("AddBackward0", ((4, 0), (5, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("NativeLayerNormBackward0", ((6, 0), (7, 0), (8, 0))),
            ("ViewBackward0", ((9, 0),)),
            ("AddBackward0", ((10, 0), (11, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((12, 0), (13, 0), (14, 0))),
            ("NativeLayerNormBackward0", ((15, 0), (16, 0), (17, 0))),
            ("ViewBackward0", ((18, 0),)),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((19, 0),)),
            ("TBackward0", ((20, 0),)),
            ("AddBackward0", ((21, 0), (22, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((23, 0), (24, 0), (25, 0))),
            ("ReluBackward0", ((26, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((27, 0),)),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((28, 0),)),
            ("TBackward0", ((29, 0),)),
            ("ViewBackward0", ((30, 0),)),
            ("AddmmBackward0", ((31, 0), (32, 0), (33, 0))),
            ("PermuteBackward0", ((34, 0),)),
            ("AccumulateGrad", ()),
            ("AddmmBackward0", ((35, 0), (36, 0), (37, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((38, 0),)),
            ("TBackward0", ((39, 0),)),
            ("ScaledDotProductFlashAttentionForCpuBackward0", ((40, 0), (41, 0), (42, 0))),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((4, 0),)),
            ("TBackward0", ((43, 0),)),
            ("PermuteBackward0", ((44, 0),)),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((45, 0),)),
            ("ViewBackward0", ((46, 0),)),
            ("ViewBackward0", ((47, 0),)),
            ("AccumulateGrad", ()),
            ("ScaledDotProductFlashAttentionForCpuBackward0", ((48, 0), (49, 0), (50, 0))),
            ("TransposeBackward0", ((51, 0),)),
            ("TransposeBackward0", ((52, 0),)),
            ("TransposeBackward0", ((53, 0),)),
            ("ViewBackward0", ((54, 0),)),
            ("ViewBackward0", ((55, 0),)),
            ("ViewBackward0", ((56, 0),)),
            ("ViewBackward0", ((57, 0),)),
            ("ViewBackward0", ((58, 0),)),
            ("ViewBackward0", ((59, 0),)),
            ("TransposeBackward0", ((60, 0),)),
            ("TransposeBackward0", ((61, 0),)),
            ("TransposeBackward0", ((62, 0),)),
            ("ViewBackward0", ((63, 0),)),
            ("SelectBackward0", ((64, 0),)),
            ("SelectBackward0", ((64, 0),)),
            ("ViewBackward0", ((65, 0),)),
            ("ViewBackward0", ((66, 0),)),
            ("ViewBackward0", ((67, 0),)),
            ("AddmmBackward0", ((68, 0), (69, 0), (70, 0))),
            ("CloneBackward0", ((71, 0),)),
            ("SelectBackward0", ((72, 0),)),
            ("SelectBackward0", ((72, 0),)),
            ("SelectBackward0", ((72, 0),)),
            ("SplitWithSizesBackward0", ((73, 0),)),
            ("ViewBackward0", ((10, 0),)),
            ("TBackward0", ((74, 0),)),
            ("SqueezeBackward1", ((75, 0),)),
            ("CloneBackward0", ((76, 0),)),
            ("AccumulateGrad", ()),
            ("SplitWithSizesBackward0", ((77, 0),)),
            ("TransposeBackward0", ((78, 0),)),
            ("SqueezeBackward1", ((79, 0),)),
            ("AccumulateGrad", ()),
            ("UnsqueezeBackward0", ((80, 0),)),
            ("TransposeBackward0", ((81, 0),)),
            ("ViewBackward0", ((82, 0),)),
            ("UnsqueezeBackward0", ((83, 0),)),
            ("ViewBackward0", ((84, 0),)),
            ("ViewBackward0", ((85, 0),)),
            ("AddmmBackward0", ((68, 1), (86, 0), (87, 0))),
            ("ViewBackward0", ((88, 0),)),
            ("ViewBackward0", ((89, 0),)),
            ("TBackward0", ((74, 1),)),
            ("AddmmBackward0", ((90, 0), (91, 0), (92, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("ViewBackward0", ((21, 0),)),
            ("TBackward0", ((93, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "lstm_float32_batch_first_after_embedding": (
        lambda T: T.nn.LSTM(4, 3, batch_first=True)(
            T.nn.Embedding(10, 4)(T.tensor([[1, 2, 3], [4, 5, 6]]))
        )[0],
        (
            ("TransposeBackward0", ((1, 0),)),
            ("MkldnnRnnLayerBackward0", ((2, 0), (3, 0), (4, 0), (5, 0), (6, 0), None, None)),
            ("CloneBackward0", ((7, 0),)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("TransposeBackward0", ((8, 0),)),
            ("EmbeddingBackward0", ((9, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "narrow_whole_dimension": (
        lambda T: leaf(T, 2, 3).narrow(1, 0, 3),
        (("SliceBackward0", ((1, 0),)), ("AccumulateGrad", ())),
    ),
}


test_symgrad, test_table_is_pytorchs = graph_table_tests(CASES)


# the values and gradients of the rewritten composites, against PyTorch's (rounded to 9 places)
VALUES = {
    "label_smoothing_all_ignored": lambda T: F(T).cross_entropy(
        leaf(T, 2, 3), T.tensor([-100, -100]), label_smoothing=0.2
    ),
    "label_smoothing_weight_ignore": lambda T: F(T).cross_entropy(
        leaf(T, 4, 3),
        T.tensor([0, -100, 2, 1]),
        weight=T.tensor([1.0, 2.0, 0.5], dtype=T.float64),
        label_smoothing=0.2,
    ),
    "probabilities_smoothing": lambda T: F(T).cross_entropy(
        leaf(T, 4, 3), leaf(T, 4, 3, seed=1).softmax(1), label_smoothing=0.3
    ),
    "cross_entropy_3d_sum": lambda T: F(T).cross_entropy(
        leaf(T, 2, 3, 4), labels(T, 3, 2, 4), reduction="sum"
    ),
    "sdpa_bool_mask": CASES["sdpa_bool_mask"][0],
    "sdpa_4d": CASES["sdpa_4d"][0],
    "sdpa_4d_gqa_causal": CASES["sdpa_4d_gqa_causal"][0],
    "sdpa_4d_float_mask": lambda T: F(T).scaled_dot_product_attention(
        leaf(T, 2, 1, 3, 2),
        leaf(T, 2, 1, 3, 2, seed=1),
        leaf(T, 2, 1, 3, 2, seed=2),
        attn_mask=T.tensor([[0.0, -1.0, 0.5], [0.0, 0.0, 0.0], [2.0, 0.0, -3.0]], dtype=T.float64),
    ),
    "prelu_2d": CASES["prelu_2d"][0],
    "rms_norm": CASES["rms_norm"][0],
    "cosine_embedding_loss": CASES["cosine_embedding_loss"][0],
}


def _value_and_gradients(T, fn):
    out = fn(T)
    leaves = []
    stack, seen = [out.grad_fn], set()
    while stack:
        n = stack.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        if hasattr(n, "variable"):
            leaves.append(n.variable)
        stack.extend(f for f, _ in n.next_functions)
    leaves.sort(key=lambda t: tuple(t.shape))
    grads = T.autograd.grad(out.sum(), leaves)
    return [_plain(out.detach().numpy())] + [_plain(g.numpy()) for g in grads]


def _plain(a):
    """Nested lists rounded to 9 places, nan as the string 'nan' (equal to itself)."""
    a = np.atleast_1d(np.round(np.asarray(a, dtype=float), 9))
    plain = a.astype(object)
    plain[np.isnan(a)] = "nan"
    return plain.tolist()


@pytest.mark.torch
@pytest.mark.parametrize("name", list(VALUES))
def test_values_and_gradients_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    expected = _value_and_gradients(torch, VALUES[name])
    assert _value_and_gradients(symgrad, VALUES[name]) == expected


def test_every_ignored_target_gives_nan_and_zero_gradients():
    x = leaf(symgrad, 2, 3)
    loss = F(symgrad).cross_entropy(x, symgrad.tensor([-100, -100]), label_smoothing=0.2)
    loss.backward()
    assert np.isnan(loss.item()) and x.grad.tolist() == [[0.0] * 3] * 2


def _layouts(T):
    """Softmax's results are laid out row by row whatever the input's layout, as PyTorch's."""
    x = T.tensor(np.arange(24.0).reshape(2, 4, 3)).transpose(1, 2)
    return [
        tuple(T.softmax(x, 1).stride()),
        tuple(T.log_softmax(x, 1).stride()),
        tuple(F(T).softmax(x.half(), 1).stride()),
        tuple(F(T).log_softmax(x.half(), 1).stride()),
        F(T).softmax(x, 1).view(-1).shape[0],
    ]


LAYOUTS = [(12, 4, 1), (12, 4, 1), (12, 4, 1), (12, 4, 1), 24]


def test_softmax_results_are_contiguous():
    assert _layouts(symgrad) == LAYOUTS


@pytest.mark.torch
def test_softmax_layouts_are_pytorchs():
    torch = pytest.importorskip("torch")
    assert _layouts(torch) == LAYOUTS


def _empty_sums(T):
    return [
        F(T).cross_entropy(T.zeros(0, 3), T.zeros(0, dtype=T.long), reduction="sum").item(),
        F(T).nll_loss(T.zeros(2, 3, 0), T.zeros(2, 0, dtype=T.long), reduction="sum").item(),
    ]


def test_a_sum_over_no_targets_is_positive_zero():
    assert [str(v) for v in _empty_sums(symgrad)] == ["0.0", "0.0"]


@pytest.mark.torch
def test_empty_sums_are_pytorchs():
    torch = pytest.importorskip("torch")
    assert [str(v) for v in _empty_sums(torch)] == ["0.0", "0.0"]


def _fused_attention_twice(T):
    """The fused attention's gradient has no derivative of its own, as in PyTorch."""
    q, k, v = (leaf(T, 1, 2, 3, 4, seed=i) for i in range(3))
    out = F(T).scaled_dot_product_attention(q, k, v)
    grads = T.autograd.grad(out.sum(), (q, k, v), create_graph=True)
    names = [type(g.grad_fn).__name__ for g in grads]
    try:
        T.autograd.grad(grads[0].sum(), q)
    except RuntimeError as error:
        return names, str(error)
    return names, None


TWICE = (
    ["NotImplemented"] * 3,
    "derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented",
)


def test_fused_attention_has_no_second_derivative():
    assert _fused_attention_twice(symgrad) == TWICE


@pytest.mark.torch
def test_fused_attention_twice_as_pytorch():
    torch = pytest.importorskip("torch")
    assert _fused_attention_twice(torch) == TWICE
