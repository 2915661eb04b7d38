"""The graphs of composite ops as PyTorch records them, node for node: the views around a
loss over 3 or more than 4 dimensions, label smoothing's masked sum, the Scalar overloads
(``MulBackward1``, ``AddBackward1``, ``SubBackward1``) and wrapped numbers of ATen's C++
composites, attention's additive mask. Teaching code walks ``next_functions`` and expects
PyTorch's nodes there."""

from __future__ import annotations

import numpy as np
import pytest
from _graph_names import graph
from _torch_table import outcome

import symgrad


def leaf(T, *shape, seed=0):
    rng = np.random.default_rng(seed)
    return T.tensor(rng.standard_normal(shape), requires_grad=True)


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
}


@pytest.mark.parametrize("name", list(CASES))
def test_symgrad(name):
    fn, expected = CASES[name]
    assert outcome(symgrad, lambda T: graph(fn(T))) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_table_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert outcome(torch, lambda T: graph(fn(T))) == expected


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
