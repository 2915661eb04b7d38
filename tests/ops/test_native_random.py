"""The random and randomized names of this group: native_dropout, binomial (shapes, dtypes,
mean and variance), svd_lowrank and pca_lowrank (singular values and subspaces, not the random
draws); and central finite differences for the new single-node rules (segment_reduce,
conv_tbc, native_group_norm's statistics)."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.autograd import gradcheck, gradgradcheck


def test_native_dropout_mask_and_gradient():
    x = symgrad.ones(4000, dtype=symgrad.float64, requires_grad=True)
    out, mask = symgrad.native_dropout(x, 0.25, True)
    assert mask.dtype is symgrad.bool and type(out.grad_fn).__name__ == "NativeDropoutBackward0"
    kept = mask.numpy()
    assert abs(kept.mean() - 0.75) < 0.03
    np.testing.assert_allclose(out.detach().numpy(), kept / 0.75)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), kept / 0.75)


def test_native_dropout_is_seeded():
    draws = []
    for _ in range(2):
        symgrad.manual_seed(3)
        draws.append(symgrad.native_dropout(symgrad.ones(50), 0.5, True)[1].tolist())
    assert draws[0] == draws[1]


@pytest.mark.parametrize("dtype", [symgrad.float32, symgrad.float64])
def test_binomial_mean_and_variance(dtype):
    n, p = 20.0, 0.3
    draws = symgrad.binomial(
        symgrad.full((2, 50000), n, dtype=dtype), symgrad.full((50000,), p, dtype=dtype)
    )
    assert draws.shape == (2, 50000) and draws.dtype is dtype
    values = draws.numpy()
    assert np.all(values == np.round(values)) and values.min() >= 0 and values.max() <= n
    assert abs(values.mean() - n * p) < 0.05
    assert abs(values.var() - n * p * (1 - p)) < 0.1


def test_binomial_generator_reproduces():
    count, prob = symgrad.full((100,), 10.0), symgrad.full((100,), 0.5)
    a = symgrad.binomial(count, prob, generator=symgrad.Generator().manual_seed(7))
    b = symgrad.binomial(count, prob, generator=symgrad.Generator().manual_seed(7))
    assert a.tolist() == b.tolist()


def _rank_two(m, n):
    rng = np.random.default_rng(0)
    return rng.standard_normal((m, 2)) @ rng.standard_normal((2, n))


@pytest.mark.parametrize("shape", [(7, 5), (5, 7)])
def test_svd_lowrank_recovers_a_low_rank_matrix(shape):
    a = _rank_two(*shape)
    u, s, v = symgrad.svd_lowrank(symgrad.tensor(a), q=3)
    assert u.shape == (shape[0], 3) and s.shape == (3,) and v.shape == (shape[1], 3)
    np.testing.assert_allclose(s.numpy()[:2], np.linalg.svd(a, compute_uv=False)[:2])
    np.testing.assert_allclose((u @ symgrad.diag(s) @ v.T).numpy(), a, atol=1e-10)
    np.testing.assert_allclose((u.T @ u).numpy(), np.eye(3), atol=1e-10)


def test_svd_lowrank_nodes_and_gradient():
    a = symgrad.tensor(_rank_two(6, 4), requires_grad=True)
    u, s, v = symgrad.svd_lowrank(a, q=2)
    names = [type(t.grad_fn).__name__ for t in (u, s, v)]
    assert names == ["MmBackward0", "LinalgSvdBackward0", "TransposeBackward0"]
    s.sum().backward()  # d(sum of singular values) = U V^T for the rank-two matrix
    uu, _, vh = np.linalg.svd(a.detach().numpy(), full_matrices=False)
    np.testing.assert_allclose(a.grad.numpy(), uu[:, :2] @ vh[:2], atol=1e-8)


def test_pca_lowrank_centres():
    rng = np.random.default_rng(1)
    a = _rank_two(8, 4) + rng.standard_normal(4) * 5  # a shift of every row
    u, s, v = symgrad.pca_lowrank(symgrad.tensor(a), q=2)
    centred = a - a.mean(0)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centred, compute_uv=False)[:2])
    _, _, vh = np.linalg.svd(centred)
    projector = vh[:2].T @ vh[:2]
    np.testing.assert_allclose(v.numpy() @ v.numpy().T, projector, atol=1e-10)
    with pytest.raises(ValueError, match="not greater than"):
        symgrad.pca_lowrank(symgrad.tensor(a), q=5)


@pytest.mark.parametrize("reduce", ["sum", "mean", "max", "min", "prod"])
def test_segment_reduce_finite_differences(reduce):
    x = symgrad.tensor(np.random.default_rng(2).standard_normal((7, 2)), requires_grad=True)
    lengths = symgrad.tensor([3, 0, 4])
    f = lambda x: symgrad.segment_reduce(x, reduce, lengths=lengths, initial=-0.3)  # noqa: E731
    assert gradcheck(f, (x,))
    if reduce in ("sum", "mean", "prod"):
        assert gradgradcheck(f, (x,))


def test_conv_tbc_finite_differences():
    rng = np.random.default_rng(4)
    args = [
        symgrad.tensor(rng.standard_normal(s), requires_grad=True)
        for s in ((5, 2, 3), (2, 3, 2), (2,))
    ]
    for pad in (0, 1, -1):
        f = lambda x, w, b, pad=pad: symgrad.conv_tbc(x, w, b, pad)  # noqa: E731
        assert gradcheck(f, args) and gradgradcheck(f, args)


def test_native_group_norm_statistics_finite_differences():
    x = symgrad.tensor(np.random.default_rng(5).standard_normal((2, 4, 3)), requires_grad=True)
    w = symgrad.tensor([1.0, -0.5, 2.0, 0.3], dtype=symgrad.float64, requires_grad=True)

    def f(x, w):
        out, mean, rstd = symgrad.native_group_norm(x, w, None, 2, 4, 3, 2, 1e-5)
        return (
            out.sum() * 0.1
            + (mean * symgrad.tensor([1.0, -2.0], dtype=symgrad.float64)).sum()
            + (rstd**2).sum()
        )

    assert gradcheck(f, (x, w)) and gradgradcheck(f, (x, w))
