"""The top-level names of functional ops with ATen's signatures (``symgrad.embedding(weight,
indices)``, ``symgrad.kl_div(input, target, 1)``): plain values, then values, gradients and
node names against PyTorch for the same call."""

import numpy as np
import pytest

import symgrad

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 4, 3))
Y = RNG.standard_normal((2, 4, 3))
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((3, 4))
C = RNG.standard_normal((3, 4))
IMG = RNG.standard_normal((1, 2, 3, 3))
TABLE = RNG.standard_normal((5, 3))
SIGN = np.array([1.0, -1.0, 1.0])


def _cases(lib):
    """name -> (a function of the inputs, the inputs requiring grad)."""
    t = lib.tensor
    rng = np.random.default_rng(2)  # the same draws for each library
    idx, offsets = t([0, 2, 4, 1, 3]), t([0, 2, 2])
    log_probs = t(rng.standard_normal((5, 2, 4))).log_softmax(2)
    grid = t(np.random.default_rng(1).uniform(-1, 1, (1, 2, 2, 2)))
    return {
        "threshold": (lambda x: lib.threshold(x, 0.1, 2.0), [X]),
        "rrelu": (lambda x: lib.rrelu(x, 0.1, 0.3), [X]),
        "prelu": (lambda x, w: lib.prelu(x, w), [X, np.array([0.2, 0.3, 0.4, 0.5])]),
        "celu": (lambda x: lib.celu(x, 2.0), [X]),
        "selu": (lambda x: lib.selu(x), [X]),
        "dropout_eval": (lambda x: lib.dropout(x * 1, 0.5, False), [X]),
        "dropout_all": (lambda x: lib.dropout(x, 1.0, True), [X]),
        "feature_dropout_all": (lambda x: lib.feature_dropout(x, 1.0, True), [X]),
        "alpha_dropout_all": (lambda x: lib.alpha_dropout(x, 1.0, True), [X]),
        "feature_alpha_dropout_all": (lambda x: lib.feature_alpha_dropout(x, 1.0, True), [X]),
        "dropout_": (lambda x: lib.dropout_(x * 1, 1.0, True), [X]),
        "feature_alpha_dropout_": (lambda x: lib.feature_alpha_dropout_(x * 1, 1.0, True), [X]),
        "batch_norm": (
            lambda x, w, b: lib.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, True),
            [X, np.ones(4) * 1.5, np.zeros(4) + 0.25],
        ),
        "batch_norm_eval": (
            lambda x: lib.batch_norm(
                x, None, None, t(np.zeros(4)), t(np.ones(4) * 2), False, 0.1, 1e-5, True
            ),
            [X],
        ),  # fmt: skip
        "layer_norm": (lambda x, w: lib.layer_norm(x, [3], w), [X, np.arange(3.0)]),
        "group_norm": (lambda x: lib.group_norm(x, 2, None, None, 1e-5, False), [X]),
        "instance_norm": (
            lambda x: lib.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
            [X],
        ),
        "embedding": (lambda w: lib.embedding(w, idx, 2, False, False), [TABLE]),
        "embedding_neg": (lambda w: lib.embedding(w, idx, -2), [TABLE]),
        "embedding_bag_mean": (lambda w: lib.embedding_bag(w, idx, offsets, mode=1)[0], [TABLE]),
        "conv1d": (lambda x, w: lib.conv1d(x, w, None, 1, 1), [X, rng.standard_normal((2, 4, 2))]),
        "conv_transpose1d": (
            lambda x, w: lib.conv_transpose1d(x, w, None, 2),
            [X, rng.standard_normal((4, 2, 2))],
        ),
        "pixel_shuffle": (lambda x: lib.pixel_shuffle(x.reshape(1, 4, 2, 3), 2), [X]),
        "pixel_unshuffle": (lambda x: lib.pixel_unshuffle(x, 3), [IMG]),
        "channel_shuffle": (lambda x: lib.channel_shuffle(x, 2), [X]),
        "bilinear": (lambda a, b: lib.bilinear(a, b, t(np.ones((2, 4, 4)))), [A, B]),
        "cosine_embedding_loss": (
            lambda a, b: lib.cosine_embedding_loss(a, b, t(SIGN), 0.2, 1),
            [A, B],
        ),
        "cosine_embedding_loss_none": (
            lambda a, b: lib.cosine_embedding_loss(a, b, t(SIGN)),
            [A, B],
        ),
        "ctc_loss": (lambda: lib.ctc_loss(log_probs, t([[1, 2], [3, 1]]), [5, 4], [2, 1]), []),
        "ctc_loss_mean": (
            lambda: lib.ctc_loss(log_probs, t([[1, 2], [3, 1]]), [5, 4], [2, 1], 0, 1),
            [],
        ),
        "hinge_embedding_loss": (lambda a: lib.hinge_embedding_loss(a, t(np.sign(B)), 0.5, 2), [A]),
        "margin_ranking_loss": (
            lambda a, b: lib.margin_ranking_loss(a[0], b[0], t(np.sign(C[0])), 0.1, 1),
            [A, B],
        ),
        "kl_div_mean": (lambda a: lib.kl_div(a, t(np.abs(B)), 1), [A]),
        "kl_div_log_target": (lambda a, b: lib.kl_div(a, b, 2, log_target=True), [A, B]),
        "kl_div_none": (lambda a: lib.kl_div(a, t(np.abs(B))), [A]),
        "poisson_nll_loss": (
            lambda a: lib.poisson_nll_loss(a, t(np.abs(B)), True, True, 1e-8, 1),
            [A],
        ),
        "triplet_margin_loss": (
            lambda a, b, c: lib.triplet_margin_loss(a, b, c, 0.5, 2.0, 1e-6, True, 2),
            [A, B, C],
        ),
        "affine_grid_generator": (
            lambda th: lib.affine_grid_generator(th, [1, 1, 2, 3], False),
            [rng.standard_normal((1, 2, 3))],
        ),
        "grid_sampler": (lambda x: lib.grid_sampler(x, grid, 0, 1, False), [IMG]),
        "grid_sampler_nearest": (lambda x: lib.grid_sampler(x, grid, 1, 2, True), [IMG]),
        "pdist": (lambda a: lib.pdist(a), [A]),
        "pdist_repeated_rows": (lambda a: lib.pdist(a, 0.5), [np.array([[1.0, 2.0]] * 3)]),
        "pdist_inf": (lambda a: lib.pdist(a, float("inf")), [B]),
    }


CASES = sorted(_cases(symgrad))


def _run(lib, name):
    fn, arrays = _cases(lib)[name]
    inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*inputs)
    node = type(out.grad_fn).__name__ if out.grad_fn is not None else None
    grads = []
    if out.requires_grad:
        weights = lib.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(tuple(out.shape)))
        grads = lib.autograd.grad((out * weights).sum(), inputs, allow_unused=True)
    grads = [None if g is None else g.detach().numpy() for g in grads]
    return out.detach().numpy(), node, grads


@pytest.mark.parametrize("name", CASES)
def test_matches_torch(name):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    try:
        expected = _run(torch, name)
    finally:
        torch.set_default_dtype(torch.float32)
    symgrad.set_default_dtype(symgrad.float64)
    try:
        found = _run(symgrad, name)
    finally:
        symgrad.set_default_dtype(symgrad.float32)
    np.testing.assert_allclose(found[0], expected[0], rtol=1e-6, atol=1e-8)
    assert found[1] == expected[1]
    for g, h in zip(found[2], expected[2], strict=True):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-6, atol=1e-8)


def test_plain_values():
    t = symgrad.tensor
    assert symgrad.threshold(t([0.5, 2.0]), 1.0, -1.0).tolist() == [-1.0, 2.0]
    assert symgrad.selu(t([0.0])).tolist() == [0.0]
    w = t([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = symgrad.embedding(w, t([1, 1, 0]), padding_idx=0)
    out.sum().backward()
    assert out.tolist() == [[3.0, 4.0], [3.0, 4.0], [1.0, 2.0]]
    assert w.grad.tolist() == [[0.0, 0.0], [2.0, 2.0]]
    x = t([[1.0], [3.0]])
    assert symgrad.batch_norm(x, None, None, None, None, True, 0.1, 0.0, False).tolist() == [
        [-1.0],
        [1.0],
    ]
    assert symgrad.channel_shuffle(symgrad.arange(6.0).reshape(1, 6, 1), 3).flatten().tolist() == [
        0.0, 2.0, 4.0, 1.0, 3.0, 5.0,
    ]  # fmt: skip
    assert symgrad.kl_div(t([0.0, 0.0]), t([1.0, 1.0]), 2).item() == 0.0
    loss = symgrad.margin_ranking_loss(t([1.0, 3.0]), t([2.0, 1.0]), t([1.0, 1.0]), 0.0, 1)
    assert loss.item() == 0.5
    assert symgrad.tensor([-2.0, 3.0]).prelu(t([0.5])).tolist() == [-1.0, 3.0]


def test_embedding_bag_outputs():
    table = symgrad.tensor([[1.0, 0.0], [2.0, 4.0], [0.0, 6.0]])
    idx, offsets = symgrad.tensor([0, 1, 2]), symgrad.tensor([0, 2, 3])
    out, offset2bag, bag_size, max_indices = symgrad.embedding_bag(table, idx, offsets, mode=2)
    assert out.tolist() == [[2.0, 4.0], [0.0, 6.0], [0.0, 0.0]]
    assert offset2bag.tolist() == [0, 0, 1]
    assert bag_size.tolist() == [2, 1, 0]
    assert max_indices.tolist() == [[1, 1], [2, 2], [0, 0]]
    _, offset2bag, bag_size, _ = symgrad.embedding_bag(table, idx, offsets)
    assert offset2bag.tolist() == [] and bag_size.tolist() == [0, 0, 0]


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("last", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_embedding_bag_outputs_match_torch(mode, padding_idx, last, dtype):
    torch = pytest.importorskip("torch")
    found, expected = (
        lib.embedding_bag(
            lib.tensor(TABLE, dtype=getattr(lib, dtype)), lib.tensor([0, 2, 4, 1, 3]),
            lib.tensor([0, 2, 5] if last else [0, 2, 2]), False, mode, False, None, last,
            padding_idx,
        )
        for lib in (symgrad, torch)
    )  # fmt: skip
    np.testing.assert_allclose(found[0].detach().numpy(), expected[0].detach().numpy(), 1e-6)
    for f, e in zip(found[1:], expected[1:], strict=True):
        assert f.tolist() == e.tolist()


def test_errors():
    x = symgrad.ones(2, 3)
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        symgrad.dropout(x, 1.5, True)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        symgrad.feature_dropout(symgrad.ones(3), 0.5, True)
    with pytest.raises(RuntimeError, match="> 2 dims"):
        symgrad.channel_shuffle(x, 1)
    with pytest.raises(RuntimeError, match="divisible by groups"):
        symgrad.channel_shuffle(symgrad.ones(1, 4, 2), 3)


def test_random_dropouts_keep_whole_features():
    symgrad.manual_seed(0)
    y = symgrad.feature_dropout(symgrad.ones(8, 4, 3), 0.5, True)
    per_feature = y.numpy().reshape(32, 3)
    assert set(np.unique(per_feature)) <= {0.0, 2.0}
    assert (per_feature == per_feature[:, :1]).all()
    z = symgrad.feature_alpha_dropout(symgrad.ones(8, 4, 3), 0.5, True)
    assert (z.numpy() == z.numpy()[..., :1]).all() and len(np.unique(z.numpy())) == 2


def test_pdist_plain():
    x = symgrad.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0]], requires_grad=True)
    d = symgrad.pdist(x)
    assert d.tolist() == [5.0, 0.0, 5.0]
    assert type(d.grad_fn).__name__ == "PdistBackward0"
    d.sum().backward()
    # a zero distance passes no gradient
    assert np.allclose(x.grad.numpy(), [[-0.6, -0.8], [1.2, 1.6], [-0.6, -0.8]])
    assert symgrad.pdist(symgrad.ones(1, 3)).shape == (0,)
    with pytest.raises(RuntimeError, match="2D"):
        symgrad.pdist(symgrad.ones(3))
    with pytest.raises(RuntimeError, match="non-negative"):
        symgrad.pdist(symgrad.ones(2, 3), -1.0)


@pytest.mark.parametrize(
    ("shape", "weights", "message"),
    [
        ((3,), 3, "parameter numbers = 3 and channel size = 1"),
        ((0,), 0, "parameter numbers = 0 and channel size = 1"),
        ((), 2, "Not allow zero-dim input tensor"),
        ((2, 3), 0, "parameter numbers = 0 and channel size = 3"),
        ((2, 3), (1, 3), "scalar or 1D tensor, but got: ndim = 2"),
    ],
)
def test_prelu_channels_as_aten(shape, weights, message):
    # ATen counts one channel for a 1-d input
    with pytest.raises(RuntimeError, match=message):
        symgrad.prelu(symgrad.ones(shape), symgrad.ones(weights))


def test_prelu_empty_channels():
    assert symgrad.prelu(symgrad.ones(2, 0), symgrad.ones(0)).shape == (2, 0)
