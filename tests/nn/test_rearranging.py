"""``pixel_shuffle``/``pixel_unshuffle`` and ``unfold``/``fold`` (im2col/col2im) with their
layers: values by hand, the round trips, argument checks, and cross-checks against PyTorch
(values, gradients, double backward, node names, exception types, reprs)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as F
from symgrad import nn


def test_pixel_shuffle_by_hand_and_round_trip():
    x = symgrad.arange(8.0).reshape(1, 4, 1, 2).requires_grad_()
    y = F.pixel_shuffle(x, 2)
    assert y.tolist() == [[[[0.0, 2.0, 1.0, 3.0], [4.0, 6.0, 5.0, 7.0]]]]
    assert y.grad_fn.name() == "PixelShuffleBackward0"
    (y * symgrad.arange(8.0).reshape(1, 1, 2, 4)).sum().backward()
    # each input's gradient is the weight at the position it moved to
    assert x.grad.flatten().tolist() == [0.0, 2.0, 1.0, 3.0, 4.0, 6.0, 5.0, 7.0]
    back = F.pixel_unshuffle(y, 2)
    assert back.grad_fn.name() == "PixelUnshuffleBackward0"
    assert back.tolist() == x.tolist()
    batched = symgrad.arange(72.0).reshape(2, 1, 9, 2, 2)
    assert F.pixel_shuffle(batched, 3).shape == (2, 1, 1, 6, 6)
    same = F.pixel_shuffle(x, 1)
    assert same._base is None and same.grad_fn.name() == "PixelShuffleBackward0"


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: F.pixel_shuffle(symgrad.zeros(1, 5, 2, 2), 2), RuntimeError, "divisible by 4"),
        (lambda: F.pixel_shuffle(symgrad.zeros(4, 2), 2), RuntimeError, "at least 3 dimensions"),
        (lambda: F.pixel_shuffle(symgrad.zeros(1, 4, 2, 2), 0), RuntimeError, "positive"),
        (lambda: F.pixel_shuffle(symgrad.zeros(1, 4, 2, 2), 2.0), TypeError, "must be int"),
        (lambda: F.pixel_unshuffle(symgrad.zeros(1, 1, 3, 4), 2), RuntimeError, "height"),
        (lambda: F.pixel_unshuffle(symgrad.zeros(1, 1, 4, 3), 2), RuntimeError, "width"),
    ],
)
def test_pixel_shuffle_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_unfold_fold_by_hand():
    x = symgrad.arange(6.0).reshape(1, 1, 2, 3).requires_grad_()
    cols = F.unfold(x, (2, 2))
    assert cols.tolist() == [[[0.0, 1.0], [1.0, 2.0], [3.0, 4.0], [4.0, 5.0]]]
    assert cols.grad_fn.name() == "Im2ColBackward0"
    cols.sum().backward()
    # how many windows hold each position
    assert x.grad.tolist() == [[[[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]]]]
    image = F.fold(cols, (2, 3), (2, 2))
    assert image.grad_fn.name() == "Col2ImBackward0"
    assert image.tolist() == [[[[0.0, 2.0, 2.0], [3.0, 8.0, 5.0]]]]
    padded = F.unfold(symgrad.ones(2, 4, 4), 3, padding=1, stride=2)
    assert padded.shape == (18, 4) and padded.grad_fn is None
    assert padded[:, 0].tolist() == [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0] * 2


def test_fold_inverts_unfold_for_disjoint_windows():
    x = symgrad.randn(2, 3, 4, 6)
    cols = F.unfold(x, 2, stride=2)
    assert cols.shape == (2, 12, 6)
    assert symgrad.equal(F.fold(cols, (4, 6), 2, stride=2), x)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: F.unfold(symgrad.zeros(1, 2, 4, 4), 5), RuntimeError, "at least one"),
        (lambda: F.unfold(symgrad.zeros(1, 2, 4, 4), 0), RuntimeError, "kernel size should"),
        (lambda: F.unfold(symgrad.zeros(1, 2, 4, 4), 2, padding=-1), RuntimeError, "non-neg"),
        (lambda: F.unfold(symgrad.zeros(1, 2, 4, 4), (2, 3, 4)), RuntimeError, "equals to 2"),
        (lambda: F.unfold(symgrad.zeros(1, 2, 4, 4), 2.5), TypeError, "tuple of ints"),
        (lambda: F.unfold(symgrad.zeros(1, 2, 3, 4, 4), 2), RuntimeError, "3D or 4D"),
        (lambda: F.unfold(symgrad.zeros(4, 4), 2), IndexError, "out of range"),
        (lambda: F.fold(symgrad.zeros(1, 8, 9), (4, 4), 3), RuntimeError, "divisible"),
        (lambda: F.fold(symgrad.zeros(1, 8, 9), (5, 4), 2), RuntimeError, "sliding blocks"),
        (lambda: F.fold(symgrad.zeros(9), (4, 4), 2), RuntimeError, "2D or 3D"),
    ],
)
def test_unfold_fold_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_layers():
    assert repr(nn.PixelShuffle(3)) == "PixelShuffle(upscale_factor=3)"
    assert repr(nn.PixelUnshuffle(2)) == "PixelUnshuffle(downscale_factor=2)"
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    fold = nn.Fold((4, 4), (2, 3), stride=2)
    assert repr(fold) == (
        "Fold(output_size=(4, 4), kernel_size=(2, 3), dilation=1, padding=0, stride=2)"
    )
    x = symgrad.randn(1, 8, 2, 2)
    assert symgrad.equal(nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(x)), x)


CASES = [
    ("pixel_shuffle", (1, 8, 2, 3), {"upscale_factor": 2}),
    ("pixel_shuffle", (2, 1, 9, 2, 1), {"upscale_factor": 3}),
    ("pixel_unshuffle", (1, 2, 4, 6), {"downscale_factor": 2}),
    ("pixel_unshuffle", (3, 3, 3), {"downscale_factor": 3}),
    ("unfold", (2, 3, 4, 5), {"kernel_size": (2, 3)}),
    ("unfold", (2, 5, 4), {"kernel_size": 2, "dilation": (2, 1), "padding": 1, "stride": 2}),
    ("fold", (2, 12, 6), {"output_size": (4, 5), "kernel_size": (2, 3), "stride": (2, 1)}),
    ("fold", (8, 9), {"output_size": 4, "kernel_size": 2, "padding": 1, "stride": 2}),
    ("fold", (1, 4, 4), {"output_size": (5, 5), "kernel_size": 2, "dilation": 3}),
]


@pytest.mark.parametrize("name, shape, kwargs", CASES)
def test_against_torch(name, shape, kwargs):
    torch = pytest.importorskip("torch")
    from .torch_pairs import compare

    a = np.random.default_rng(len(shape)).standard_normal(shape)
    compare(lambda T, x: getattr(T.nn.functional, name)(x, **kwargs), [a])
    a32 = a.astype(np.float32)
    np.testing.assert_allclose(
        getattr(F, name)(symgrad.tensor(a32), **kwargs).numpy(),
        getattr(torch.nn.functional, name)(torch.tensor(a32), **kwargs).numpy(),
        rtol=1e-6,
    )


@pytest.mark.parametrize(
    "name, shape, kwargs",
    [
        ("pixel_shuffle", (1, 5, 2, 2), {"upscale_factor": 2}),
        ("pixel_shuffle", (4, 2), {"upscale_factor": 2}),
        ("pixel_unshuffle", (1, 1, 3, 4), {"downscale_factor": 2}),
        ("pixel_unshuffle", (1, 1, 4, 4), {"downscale_factor": 0}),
        ("unfold", (1, 2, 4, 4), {"kernel_size": 5}),
        ("unfold", (1, 2, 4, 4), {"kernel_size": 2.5}),
        ("unfold", (4, 4), {"kernel_size": 2}),
        ("unfold", (1, 2, 0, 4), {"kernel_size": 2}),
        ("fold", (1, 7, 9), {"output_size": 4, "kernel_size": 2}),
        ("fold", (1, 8, 9), {"output_size": (5, 4), "kernel_size": 2}),
        ("fold", (1, 8, 9, 1), {"output_size": 4, "kernel_size": 2}),
    ],
)
def test_error_types_match_torch(name, shape, kwargs):
    pytest.importorskip("torch")
    from .torch_pairs import errors_alike

    errors_alike(lambda T, x: getattr(T.nn.functional, name)(x, **kwargs), [np.zeros(shape)])


def test_layer_reprs_match_torch():
    torch = pytest.importorskip("torch")
    pairs = [
        (nn.PixelShuffle(3), torch.nn.PixelShuffle(3)),
        (nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2)),
        (nn.Unfold((2, 3), padding=1), torch.nn.Unfold((2, 3), padding=1)),
        (nn.Fold(4, 2, stride=2), torch.nn.Fold(4, 2, stride=2)),
    ]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)


def test_gradcheck_and_closed_form():
    x = symgrad.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 3)), requires_grad=True)
    assert symgrad.autograd.gradcheck(lambda x: F.unfold(x, 2, padding=1) ** 2, (x,))
    assert symgrad.autograd.gradgradcheck(
        lambda x: F.fold(x.reshape(1, 9, 2) ** 2, (3, 4), 3), (x,)
    )
    assert symgrad.autograd.gradgradcheck(
        lambda x: F.pixel_shuffle(x.reshape(9, 2, 1) ** 3, 3), (x,)
    )
    w = symgrad.tensor([[[1.0, 2.0], [3.0, 4.0]]], name="w")
    assert str(symgrad.symbolic.expression(F.fold(F.unfold(w, 2), 2, 2))) == str(
        symgrad.symbolic.expression(w * 1)
    )


@pytest.mark.parametrize("batched", [False, True])
def test_vmap_over_unfold_fold_and_pixel_shuffle(batched):
    import warnings

    shape = (3, 2, 2, 4, 4) if batched else (3, 2, 4, 4)
    xs = symgrad.randn(*shape)

    def f(x):
        cols = F.unfold(x, 2, padding=1)
        return F.pixel_shuffle(F.fold(cols * 2, (4, 4), 2, padding=1), 1)

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a rule for each: no element-by-element fallback
        out = symgrad.func.vmap(f)(xs)
    for i in range(3):
        np.testing.assert_allclose(out[i].numpy(), f(xs[i]).numpy(), rtol=1e-6)


def test_unfold_and_fold_refuse_integers_as_torch():
    with pytest.raises(NotImplementedError, match="Long"):
        F.unfold(symgrad.arange(4).reshape(1, 1, 2, 2), 1)
    with pytest.raises(NotImplementedError, match="Long"):
        F.fold(symgrad.ones(1, 4, 1, dtype=symgrad.long), (2, 2), 2)
    assert F.pixel_shuffle(symgrad.arange(4).reshape(1, 4, 1, 1), 2).dtype == symgrad.int64
