"""``dropout`` and ``alpha_dropout`` (statistics, reproducibility, the gradient mask),
``one_hot``, ``embedding`` (padding, frequency scaling, max_norm) and ``bilinear``."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
import symgrad.nn.functional as SF


def test_dropout_zeroes_about_p_and_scales_the_rest():
    symgrad.manual_seed(0)
    y = SF.dropout(symgrad.ones(100_000, dtype=symgrad.float64), p=0.3)
    values = y.numpy()
    kept = values != 0
    assert abs(kept.mean() - 0.7) < 0.005  # 0.7 +- 3.4 standard deviations
    np.testing.assert_allclose(values[kept], 1 / 0.7, rtol=1e-15)
    assert abs(values.mean() - 1.0) < 0.01  # the scaling keeps the expectation


def test_dropout_is_reproducible_with_manual_seed():
    x = symgrad.ones(50)
    symgrad.manual_seed(7)
    a = SF.dropout(x)
    symgrad.manual_seed(7)
    b = SF.dropout(x)
    c = SF.dropout(x)
    assert a.tolist() == b.tolist() and a.tolist() != c.tolist()


def test_dropout_gradient_is_the_mask_times_the_scale():
    symgrad.manual_seed(1)
    x = symgrad.tensor(np.linspace(-1, 1, 40), requires_grad=True)
    y = SF.dropout(x, p=0.25)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    kept = y.detach().numpy() != 0
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 1 / 0.75, 0.0), rtol=1e-7)


def test_dropout_outside_training_or_without_p_is_the_input():
    x = symgrad.ones(3, requires_grad=True)
    assert SF.dropout(x, training=False) is x
    assert SF.dropout(x, p=0.0) is x
    assert SF.dropout(x, p=1.0).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("inplace", [False, True])
def test_dropout_of_everything_draws_nothing(inplace):
    # PyTorch multiplies by a zero (MulBackward0) without drawing a mask: the generator's next
    # numbers stay those after the seed
    symgrad.manual_seed(0)
    x = symgrad.tensor([1.0, float("inf"), 2.0], requires_grad=True)
    y = SF.dropout(x * 1 if inplace else x, p=1.0, inplace=inplace)
    assert y.grad_fn.name() == "MulBackward0"
    assert str(y.tolist()) == "[0.0, nan, 0.0]"
    assert symgrad.rand(1).tolist() == [0.49625658988952637]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.torch
def test_dropout_of_everything_draws_as_pytorch():
    torch = pytest.importorskip("torch")
    draws = []
    for lib in (torch, symgrad):
        lib.manual_seed(5)
        lib.nn.functional.dropout(lib.ones(4), 1.0)
        lib.nn.Dropout(1.0)(lib.ones(4))
        draws.append(lib.rand(3).tolist())
    assert draws[0] == draws[1]


def test_dropout_in_place_and_errors():
    symgrad.manual_seed(2)
    x = symgrad.ones(1000)
    assert SF.dropout(x, 0.5, inplace=True) is x
    assert set(np.unique(x.numpy())) == {0.0, 2.0}
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        SF.dropout(x, 1.5)


def test_alpha_dropout_keeps_mean_and_variance():
    symgrad.manual_seed(3)
    x = symgrad.randn(200_000, dtype=symgrad.float64)
    y = SF.alpha_dropout(x, 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.var() - 1.0) < 0.02
    assert SF.alpha_dropout(x, 0.2) is x  # training defaults to False


def test_one_hot():
    assert SF.one_hot(symgrad.tensor([0, 2])).tolist() == [[1, 0, 0], [0, 0, 1]]
    assert SF.one_hot(symgrad.tensor(2), 4).tolist() == [0, 0, 1, 0]
    empty = SF.one_hot(symgrad.tensor([], dtype=symgrad.int64), 3)
    assert empty.shape == (0, 3) and empty.dtype is symgrad.int64
    for bad, match in [
        ((symgrad.tensor([0, 3]), 3), "smaller than num_classes"),
        ((symgrad.tensor([-1, 0]),), "non-negative"),
        ((symgrad.tensor([], dtype=symgrad.int64),), "empty tensor"),
        ((symgrad.tensor([1.0]),), "LongTensor"),
    ]:
        with pytest.raises(RuntimeError, match=match):
            SF.one_hot(*bad)


WEIGHT = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]
INDICES = [[0, 2], [2, 1]]
UPSTREAM = [[[1.0, 0.5], [2.0, 1.0]], [[-1.0, 3.0], [0.25, 0.75]]]


def _embed(T, **options):
    w = T.tensor(WEIGHT, dtype=T.float64, requires_grad=True)
    y = T.nn.functional.embedding(T.tensor(INDICES), w, **options)
    (y * T.tensor(UPSTREAM, dtype=T.float64)).sum().backward()
    return y, w


@pytest.mark.parametrize(
    "options, grad",
    [
        ({}, [[1.0, 0.5], [0.25, 0.75], [1.0, 4.0], [0.0, 0.0]]),
        ({"padding_idx": 2}, [[1.0, 0.5], [0.25, 0.75], [0.0, 0.0], [0.0, 0.0]]),
        ({"scale_grad_by_freq": True}, [[1.0, 0.5], [0.25, 0.75], [0.5, 2.0], [0.0, 0.0]]),
        ({"padding_idx": -4}, [[0.0, 0.0], [0.25, 0.75], [1.0, 4.0], [0.0, 0.0]]),
    ],
)
def test_embedding_gradients(options, grad):
    y, w = _embed(symgrad, **options)
    assert y.grad_fn.name() == "EmbeddingBackward0"
    assert y.detach().tolist() == [[[1.0, 2.0], [5.0, 6.0]], [[5.0, 6.0], [3.0, 4.0]]]
    assert w.grad.tolist() == grad


@pytest.mark.parametrize("options", [{}, {"padding_idx": 2}, {"scale_grad_by_freq": True}])
def test_embedding_matches_pytorch(options):
    torch = pytest.importorskip("torch")
    (y, w), (ty, tw) = _embed(symgrad, **options), _embed(torch, **options)
    assert y.detach().tolist() == ty.detach().tolist() and w.grad.tolist() == tw.grad.tolist()


def test_embedding_max_norm_renormalizes_the_rows_used_in_place():
    w = symgrad.tensor(WEIGHT, dtype=symgrad.float64)
    SF.embedding(symgrad.tensor([1, 1]), w, max_norm=2.5)
    scale = 2.5 / (5.0 + 1e-7)
    np.testing.assert_allclose(w.numpy()[1], [3.0 * scale, 4.0 * scale], rtol=1e-15)
    assert w.numpy()[0].tolist() == [1.0, 2.0]


def test_embedding_errors():
    w = symgrad.ones(3, 2)
    with pytest.raises(IndexError, match="index out of range in self"):
        SF.embedding(symgrad.tensor([0, 3]), w)
    with pytest.raises(RuntimeError, match="Long, Int"):
        SF.embedding(symgrad.tensor([0.0]), w)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        SF.embedding(symgrad.tensor([0]), w, padding_idx=3)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        SF.embedding(symgrad.tensor([0]), symgrad.ones(3))


def test_bilinear_values_and_errors():
    x1 = symgrad.tensor([[1.0, 2.0]])
    x2 = symgrad.tensor([[3.0, 0.0, 1.0]])
    w = symgrad.arange(12.0).reshape(2, 2, 3)
    b = symgrad.tensor([0.5, -0.5])
    # out[o] = x1 @ w[o] @ x2 + b[o]
    assert SF.bilinear(x1, x2, w, b).tolist() == [[30.5, 101.5]]
    assert SF.bilinear(x1[0], x2[0], w).tolist() == [30.0, 102.0]
    with pytest.raises(RuntimeError, match="input1 size does not match weight size"):
        SF.bilinear(x2, x2, w)
    with pytest.raises(RuntimeError, match="batch dimensions do not match"):
        SF.bilinear(symgrad.ones(2, 2), symgrad.ones(3, 3), w)
    with pytest.raises(RuntimeError, match="bias size does not match"):
        SF.bilinear(x1, x2, w, symgrad.ones(3))


def _names(fn: object, depth: int) -> list:
    """The node names below ``fn``, depth first, down to ``depth`` levels."""
    if fn is None or depth == 0:
        return []
    found = [type(fn).__name__]
    for child, _ in fn.next_functions:
        found += _names(child, depth - 1)
    return found


def test_bilinear_records_pytorchs_trilinear_graph_and_gradients():
    x1 = symgrad.tensor([[1.0, 2.0]], requires_grad=True)
    x2 = symgrad.tensor([[3.0, 0.0, 1.0]], requires_grad=True)
    w = symgrad.arange(12.0).reshape(2, 2, 3).requires_grad_()
    b = symgrad.tensor([0.5, -0.5], requires_grad=True)
    out = SF.bilinear(x1, x2, w, b)
    assert _names(out.grad_fn, 5) == [
        "AddBackward0",
        "ViewBackward0",
        "TrilinearBackward0",
        "ViewBackward0",
        "AccumulateGrad",
        "AccumulateGrad",
        "ViewBackward0",
        "AccumulateGrad",
        "AccumulateGrad",
    ]
    out.sum().backward()
    assert x1.grad.tolist() == [[28.0, 52.0]]
    assert x2.grad.tolist() == [[30.0, 36.0, 42.0]]
    assert w.grad.tolist() == [[[3.0, 0.0, 1.0], [6.0, 0.0, 2.0]]] * 2
    assert b.grad.tolist() == [1.0, 1.0]
    assert type(SF.bilinear(x1[0], x2[0], w).grad_fn).__name__ == "ViewBackward0"


def test_bilinear_needs_one_dtype():
    w = symgrad.ones(2, 2, 3, dtype=symgrad.float64)
    with pytest.raises(RuntimeError, match="same dtype, got input1: float, input2: float"):
        SF.bilinear(symgrad.ones(1, 2), symgrad.ones(1, 3), w)
    module = symgrad.nn.Bilinear(2, 3, 4)
    with pytest.raises(RuntimeError, match="weight: float, bias: float"):
        module(symgrad.ones(1, 2, dtype=symgrad.float64), symgrad.ones(1, 3, dtype=symgrad.float64))


def test_bilinear_matches_pytorch_graph_and_double_backward():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(s) for s in [(2, 4, 3), (2, 4, 5), (2, 3, 5), (2,)]]
    results = []
    for T in (symgrad, torch):
        leaves = [T.tensor(a, requires_grad=True) for a in arrays]
        out = T.nn.functional.bilinear(*leaves)
        names = _names(out.grad_fn, 3)
        g = T.autograd.grad((out**2).sum(), leaves, create_graph=True)
        gg = T.autograd.grad(sum((x * x).sum() for x in g), leaves)
        results.append((names, [x.detach().numpy() for x in g + gg]))
    assert results[0][0] == results[1][0]
    for ours, theirs in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
