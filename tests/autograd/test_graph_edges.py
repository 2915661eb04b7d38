"""The edges of recorded nodes (``grad_fn.next_functions``) as PyTorch has them: one per
tensor argument PyTorch differentiates, in its order, with ``(None, 0)`` for an optional tensor
left out (a convolution's bias, a norm's weight and bias) and no edge for an argument it does
not differentiate (``where``'s condition, a number, a loss's target or weights). Node hooks
(``grad_fn.register_hook``) see and return one gradient per edge."""

from __future__ import annotations

import pytest
from _graph_names import graph_table_tests, leaf

import symgrad

CASES = {
    "where": (
        lambda T: (lambda a, b: T.where(a > 0, a, b))(leaf(T, 3), leaf(T, 3, seed=1)),
        (("WhereBackward0", ((1, 0), (2, 0))), ("AccumulateGrad", ()), ("AccumulateGrad", ())),
    ),
    "where_scalar_other": (
        lambda T: (lambda a: T.where(a > 0, a, 0.0))(leaf(T, 3)),
        (("WhereBackward0", ((1, 0), None)), ("AccumulateGrad", ())),
    ),
    "where_scalar_self": (
        lambda T: (lambda a: T.where(a > 0, 1.0, a))(leaf(T, 3)),
        (("WhereBackward0", (None, (1, 0))), ("AccumulateGrad", ())),
    ),
    "where_method": (
        lambda T: (lambda a, b: a.where(a > 0, b))(leaf(T, 3), leaf(T, 3, seed=1)),
        (("WhereBackward0", ((1, 0), (2, 0))), ("AccumulateGrad", ()), ("AccumulateGrad", ())),
    ),
    "logdet": (
        lambda T: T.logdet(leaf(T, 2, 2) + T.eye(2, dtype=T.float64) * 3),
        (
            ("WhereBackward0", (None, (1, 1))),
            ("LinalgSlogdetBackward0", ((2, 0),)),
            ("AddBackward0", ((3, 0), None)),
            ("AccumulateGrad", ()),
        ),
    ),
    "rsub_number": (
        lambda T: 3 - leaf(T, 3),
        (("RsubBackward1", ((1, 0),)), ("AccumulateGrad", ())),
    ),
    "rsub_alpha": (
        lambda T: T.rsub(leaf(T, 3), 1.5, alpha=-0.5),
        (("RsubBackward1", ((1, 0),)), ("AccumulateGrad", ())),
    ),
    "subtract_number": (
        lambda T: T.subtract(leaf(T, 3), 1.5, -0.5),
        (("SubBackward1", ((1, 0),)), ("AccumulateGrad", ())),
    ),
    "clamp_tensor_min": (
        lambda T: leaf(T, 3).clamp(min=leaf(T, 3, seed=1)),
        (
            ("ClampBackward0", ((1, 0), (2, 0), None)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "clamp_tensor_max": (
        lambda T: leaf(T, 3).clamp(max=leaf(T, 3, seed=1)),
        (
            ("ClampBackward0", ((1, 0), None, (2, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "clamp_tensor_both": (
        lambda T: leaf(T, 3).clamp(leaf(T, 3, seed=1), leaf(T, 3, seed=2) + 2),
        (
            ("ClampBackward0", ((1, 0), (2, 0), (3, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AddBackward0", ((4, 0), None)),
            ("AccumulateGrad", ()),
        ),
    ),
    "bce_logits_weights": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            leaf(T, 3),
            T.tensor([0.0, 1.0, 0.5], dtype=T.float64),
            weight=T.tensor([1.0, 2.0, 3.0], dtype=T.float64),
            pos_weight=T.tensor([2.0, 1.0, 1.0], dtype=T.float64),
        ),
        (("BinaryCrossEntropyWithLogitsBackward0", ((1, 0), None)), ("AccumulateGrad", ())),
    ),
    "bce_logits_pos_weight": (
        lambda T: T.nn.functional.binary_cross_entropy_with_logits(
            leaf(T, 3),
            T.tensor([0.0, 1.0, 0.5], dtype=T.float64),
            pos_weight=T.tensor([2.0, 1.0, 1.0], dtype=T.float64),
        ),
        (("BinaryCrossEntropyWithLogitsBackward0", ((1, 0), None)), ("AccumulateGrad", ())),
    ),
    "soft_margin_loss": (
        lambda T: T.nn.functional.soft_margin_loss(
            leaf(T, 3), T.tensor([1.0, -1.0, 1.0], dtype=T.float64)
        ),
        (("SoftMarginLossBackward0", ((1, 0),)), ("AccumulateGrad", ())),
    ),
    "rrelu_train": (
        lambda T: T.nn.functional.rrelu(leaf(T, 3), training=True),
        (("RreluWithNoiseBackward0", ((1, 0),)), ("AccumulateGrad", ())),
    ),
    "layer_norm": (
        lambda T: T.nn.functional.layer_norm(leaf(T, 2, 3), (3,)),
        (("NativeLayerNormBackward0", ((1, 0), None, None)), ("AccumulateGrad", ())),
    ),
    "layer_norm_weight": (
        lambda T: T.nn.functional.layer_norm(leaf(T, 2, 3), (3,), leaf(T, 3, seed=1)),
        (
            ("NativeLayerNormBackward0", ((1, 0), (2, 0), None)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "layer_norm_bias": (
        lambda T: T.nn.functional.layer_norm(leaf(T, 2, 3), (3,), None, leaf(T, 3, seed=1)),
        (
            ("NativeLayerNormBackward0", ((1, 0), None, (2, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "layer_norm_both": (
        lambda T: T.nn.functional.layer_norm(
            leaf(T, 2, 3), (3,), leaf(T, 3, seed=1), leaf(T, 3, seed=2)
        ),
        (
            ("NativeLayerNormBackward0", ((1, 0), (2, 0), (3, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "group_norm": (
        lambda T: T.nn.functional.group_norm(leaf(T, 2, 4, 1), 2),
        (("NativeGroupNormBackward0", ((1, 0), None, None)), ("AccumulateGrad", ())),
    ),
    "batch_norm": (
        lambda T: T.nn.functional.batch_norm(leaf(T, 4, 3), None, None, training=True),
        (("NativeBatchNormBackward0", ((1, 0), None, None)), ("AccumulateGrad", ())),
    ),
    "batch_norm_bias": (
        lambda T: T.nn.functional.batch_norm(
            leaf(T, 4, 3), None, None, bias=leaf(T, 3, seed=1), training=True
        ),
        (
            ("NativeBatchNormBackward0", ((1, 0), None, (2, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "instance_norm": (
        lambda T: T.nn.functional.instance_norm(leaf(T, 2, 3, 4)),
        (
            ("ViewBackward0", ((1, 0),)),
            ("NativeBatchNormBackward0", ((2, 0), None, None)),
            ("ViewBackward0", ((3, 0),)),
            ("AccumulateGrad", ()),
        ),
    ),
    "conv1d": (
        lambda T: T.nn.functional.conv1d(leaf(T, 1, 2, 5), leaf(T, 3, 2, 2, seed=1)),
        (
            ("ConvolutionBackward0", ((1, 0), (2, 0), None)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "conv1d_bias": (
        lambda T: T.nn.functional.conv1d(
            leaf(T, 1, 2, 5), leaf(T, 3, 2, 2, seed=1), leaf(T, 3, seed=2)
        ),
        (
            ("ConvolutionBackward0", ((1, 0), (2, 0), (3, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "conv2d": (
        lambda T: T.nn.functional.conv2d(leaf(T, 1, 1, 3, 3), leaf(T, 2, 1, 2, 2, seed=1)),
        (
            ("ConvolutionBackward0", ((1, 0), (2, 0), None)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "conv_transpose1d": (
        lambda T: T.nn.functional.conv_transpose1d(leaf(T, 1, 2, 3), leaf(T, 2, 3, 2, seed=1)),
        (
            ("ConvolutionBackward0", ((1, 0), (2, 0), None)),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
    "embedding_bag": (
        lambda T: T.nn.functional.embedding_bag(
            T.tensor([0, 2, 1, 3]), leaf(T, 4, 3), T.tensor([0, 2])
        ),
        (("EmbeddingBagBackward0", ((1, 0), None)), ("AccumulateGrad", ())),
    ),
    "embedding_bag_weighted": (
        lambda T: T.nn.functional.embedding_bag(
            T.tensor([0, 2, 1, 3]),
            leaf(T, 4, 3),
            T.tensor([0, 2]),
            mode="sum",
            per_sample_weights=leaf(T, 4, seed=1),
        ),
        (
            ("EmbeddingBagBackward0", ((1, 0), (2, 0))),
            ("AccumulateGrad", ()),
            ("AccumulateGrad", ()),
        ),
    ),
}


test_symgrad, test_table_is_pytorchs = graph_table_tests(CASES)


def _hooked(T):
    """What node hooks see and return on ``where`` and ``layer_norm``."""
    seen = []
    a, b = T.tensor([1.0, -2.0], requires_grad=True), T.tensor([3.0, 4.0], requires_grad=True)
    r = T.where(a > 0, a, b)
    r.grad_fn.register_hook(
        lambda gi, go: seen.append([None if g is None else g.tolist() for g in gi])
    )
    # the replacement is for the edges in their order: self, then other
    r.grad_fn.register_hook(lambda gi, go: (gi[0] * 0 + 7, gi[1]))
    r.sum().backward()
    x = T.tensor([[1.0, 2.0, 4.0]], requires_grad=True)
    y = T.nn.functional.layer_norm(x, (3,))
    y.grad_fn.register_hook(lambda gi, go: seen.append([g is None for g in gi]))
    y.sum().backward()
    return seen, a.grad.tolist(), b.grad.tolist()


HOOKED = ([[[1.0, 0.0], [0.0, 1.0]], [False, True, True]], [7.0, 7.0], [0.0, 1.0])


def test_node_hooks_see_one_gradient_per_edge():
    assert _hooked(symgrad) == HOOKED


@pytest.mark.torch
def test_node_hooks_as_pytorchs():
    torch = pytest.importorskip("torch")
    assert _hooked(torch) == HOOKED
