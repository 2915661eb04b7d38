"""PyTorch's top-level extras: values, node names, errors; cross-checked against PyTorch
where it is installed (gradients come from the op table)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad


def _name(t) -> str:
    return type(t.grad_fn).__name__


def test_cdist_values_gradient_at_zero_and_node():
    a = symgrad.tensor([[0.0, 0.0], [3.0, 4.0]], dtype=symgrad.float64, requires_grad=True)
    b = symgrad.tensor([[0.0, 0.0]], dtype=symgrad.float64)
    out = symgrad.cdist(a, b)
    assert out.tolist() == [[0.0], [5.0]]
    assert _name(out) == "CdistBackward0"
    out.sum().backward()
    # 0 where the distance is 0
    np.testing.assert_allclose(a.grad.numpy(), [[0.0, 0.0], [0.6, 0.8]], rtol=1e-15)
    assert symgrad.cdist(a, b, p=1).tolist() == [[0.0], [7.0]]
    assert symgrad.cdist(a, b, p=float("inf")).tolist() == [[0.0], [4.0]]
    assert symgrad.cdist(a, b, p=0).tolist() == [[0.0], [2.0]]


def test_cdist_errors():
    with pytest.raises(RuntimeError, match="at least 2D tensors, X1 got: 1D"):
        symgrad.cdist(symgrad.ones(3), symgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match="same number of columns. X1: 3 X2: 4"):
        symgrad.cdist(symgrad.ones(2, 3), symgrad.ones(2, 4))
    with pytest.raises(RuntimeError, match="floating-point dtypes, X1 got: Long"):
        symgrad.cdist(symgrad.ones(2, 3, dtype=symgrad.int64), symgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match="non-negative p values"):
        symgrad.cdist(symgrad.ones(2, 3), symgrad.ones(2, 3), p=-1)


def test_differences_and_integrals():
    y = symgrad.tensor([1.0, 4.0, 9.0, 16.0])
    assert symgrad.diff(y).tolist() == [3.0, 5.0, 7.0]
    assert symgrad.diff(y, prepend=symgrad.tensor([0.0])).tolist() == [1.0, 3.0, 5.0, 7.0]
    assert symgrad.diff(symgrad.tensor([True, True, False])).tolist() == [False, True]
    assert symgrad.gradient(y, spacing=2.0)[0].tolist() == [1.5, 2.0, 3.0, 3.5]
    assert symgrad.trapezoid(y).item() == 21.5
    assert symgrad.trapezoid(y, symgrad.tensor([0.0, 1.0, 2.0, 4.0])).item() == 34.0
    assert symgrad.cumulative_trapezoid(y, dx=2.0).tolist() == [5.0, 18.0, 43.0]
    assert _name(symgrad.diff(y.requires_grad_())) == "SubBackward0"
    assert _name(symgrad.trapezoid(y)) == "MulBackward1"
    assert _name(symgrad.trapezoid(y, symgrad.arange(4.0))) == "DivBackward1"
    assert _name(symgrad.gradient(y)[0]) == "CatBackward0"
    with pytest.raises(RuntimeError, match="at least edge_order"):
        symgrad.gradient(symgrad.ones(2), edge_order=2)


def test_assembled_tensors():
    out = symgrad.block_diag(symgrad.tensor([[1.0, 2.0]]), symgrad.tensor(3.0))
    assert out.tolist() == [[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]]
    assert symgrad.block_diag().shape == (1, 0)
    with pytest.raises(RuntimeError, match="2 or fewer dimensions. Input 0 has 3"):
        symgrad.block_diag(symgrad.ones(1, 1, 1))
    assert symgrad.cartesian_prod(symgrad.tensor([1, 2]), symgrad.tensor([5])).tolist() == [
        [1, 5],
        [2, 5],
    ]
    assert symgrad.combinations(symgrad.tensor([1, 2, 3]), 2, True).tolist() == [
        [1, 1],
        [1, 2],
        [1, 3],
        [2, 2],
        [2, 3],
        [3, 3],
    ]
    assert symgrad.combinations(symgrad.tensor([1.0, 2.0]), 3).shape == (0, 3)
    with pytest.raises(RuntimeError, match="Expect a 1D vector"):
        symgrad.combinations(symgrad.ones(2, 2))
    assert symgrad.vander(symgrad.tensor([2, 3]), N=3).tolist() == [[4, 2, 1], [9, 3, 1]]
    assert symgrad.tril_indices(3, 2).tolist() == [[0, 1, 1, 2, 2], [0, 0, 1, 0, 1]]
    assert symgrad.triu_indices(3, 3, 1).tolist() == [[0, 0, 1], [1, 2, 2]]
    with pytest.raises(RuntimeError, match="Input must be >= 2-d"):
        symgrad.fliplr(symgrad.ones(2))
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        assert symgrad.chain_matmul(symgrad.eye(2), symgrad.ones(2, 1)).tolist() == [[1.0]] * 2


def test_renorm_values_gradient_and_errors():
    x = symgrad.tensor([[3.0, 4.0], [0.1, 0.2]], dtype=symgrad.float64, requires_grad=True)
    out = symgrad.renorm(x, 2, 0, 1.0)
    np.testing.assert_allclose(out.detach().numpy(), [[0.6, 0.8], [0.1, 0.2]], rtol=1e-6)
    assert _name(out) == "RenormBackward0"
    out.backward(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=symgrad.float64))
    # the scaled row: (g - (x . g) x / |x|^2) / |x|; the other row passes g on
    np.testing.assert_allclose(x.grad.numpy(), [[-0.064, 0.048], [3.0, 4.0]], rtol=1e-6)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        symgrad.renorm(symgrad.ones(3), 2, 0, 1.0)
    with pytest.raises(RuntimeError, match="non-positive-norm"):
        symgrad.renorm(symgrad.ones(2, 2), -1, 0, 1.0)


def test_vander_gradient_is_that_of_powers():
    x = symgrad.tensor([0.5, -2.0, 3.0], dtype=symgrad.float64, requires_grad=True)
    symgrad.vander(x).sum().backward()
    assert x.grad.tolist() == [2 * 0.5 + 1, 2 * -2.0 + 1, 2 * 3.0 + 1]


def test_statistics():
    x = symgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.5]], dtype=symgrad.float64)
    np.testing.assert_allclose(symgrad.cov(x).numpy(), [[1.0, -0.75], [-0.75, 7 / 12]])
    assert symgrad.cov(symgrad.tensor([1.0, 3.0])).item() == 2.0
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        symgrad.cov(symgrad.tensor([1.0]))
    assert symgrad.bincount(symgrad.tensor([0, 2, 2]), minlength=4).tolist() == [1, 0, 2, 0]
    weighted = symgrad.bincount(symgrad.tensor([1, 1]), weights=symgrad.tensor([0.5, 2.0]))
    assert (weighted.tolist(), weighted.dtype) == ([0.0, 2.5], symgrad.float32)
    with pytest.raises(RuntimeError, match="non-negative integral"):
        symgrad.bincount(symgrad.tensor([-1]))
    assert symgrad.histc(symgrad.tensor([1.0, 2.0, 1.0, 5.0]), bins=4).tolist() == [2, 1, 0, 1]
    b = symgrad.tensor([1, 3, 5, 7, 9])
    assert symgrad.bucketize(symgrad.tensor([3, 6, 9]), b).tolist() == [1, 3, 4]
    assert symgrad.bucketize(symgrad.tensor([3, 6, 9]), b, right=True).tolist() == [2, 3, 5]
    found = symgrad.searchsorted(b, symgrad.tensor([3]), side="right", out_int32=True)
    assert (found.tolist(), found.dtype) == ([2], symgrad.int32)


def _graph(fn, depth: int = 6) -> list:
    found = []

    def walk(f, d):
        if f is None or d == depth:
            return
        found.append((d, type(f).__name__))
        for child, _ in f.next_functions:
            walk(child, d + 1)

    walk(fn, 0)
    return found


GRAPHS = {
    "cdist": lambda T, a, b: T.cdist(a, b, p=3),
    "block_diag": lambda T, a, b: T.block_diag(a, b[0]),
    "cartesian_prod": lambda T, a, b: T.cartesian_prod(a[0], b[0]),
    "combinations": lambda T, a, b: T.combinations(a[0]),
    "diff": lambda T, a, b: T.diff(a, n=2, dim=0),
    "gradient": lambda T, a, b: T.gradient(a, spacing=3.0)[1],
    "trapezoid": lambda T, a, b: T.trapezoid(a),
    "trapezoid_x": lambda T, a, b: T.trapezoid(a, b[0]),
    "cumulative_trapezoid": lambda T, a, b: T.cumulative_trapezoid(a, dx=0.3),
    "cov": lambda T, a, b: T.cov(a),
    "corrcoef": lambda T, a, b: T.corrcoef(a),
    "fliplr": lambda T, a, b: T.fliplr(a),
    "renorm": lambda T, a, b: T.renorm(a, 2, 1, 0.5),
    "kron": lambda T, a, b: T.kron(a, b[0]),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_graphs_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    arrays = [rng.standard_normal((3, 4)), rng.standard_normal((2, 4))]
    graphs = []
    for T in (symgrad, torch):
        leaves = [T.tensor(x, requires_grad=True) for x in arrays]
        graphs.append(_graph(GRAPHS[name](T, *leaves).grad_fn))
    assert graphs[0] == graphs[1]


def test_counts_match_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    data = rng.uniform(-1, 3, 50)
    ints = rng.integers(0, 6, 20)
    seq = np.sort(rng.integers(0, 10, (3, 6)), axis=1)
    vals = rng.integers(-1, 11, (3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in (
            lambda T: T.histc(T.tensor(data), bins=7),
            lambda T: T.histc(T.tensor(data), bins=5, min=0, max=2),
            lambda T: T.bincount(T.tensor(ints), minlength=8),
            lambda T: T.bincount(T.tensor(ints), weights=T.tensor(data[:20])),
            lambda T: T.searchsorted(T.tensor(seq), T.tensor(vals)),
            lambda T: T.searchsorted(T.tensor(seq), T.tensor(vals), right=True),
            lambda T: T.bucketize(T.tensor(vals), T.tensor(seq[0])),
            lambda T: T.tril_indices(4, 3, -1),
            lambda T: T.triu_indices(3, 5, 2),
        ):
            ours, theirs = call(symgrad), call(torch)
            assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
