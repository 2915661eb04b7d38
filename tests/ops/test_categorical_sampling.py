"""multinomial, Tensor.exponential_ and Tensor.random_."""

import pytest

import symgrad


def test_multinomial_shapes_dtype_and_frequencies():
    symgrad.manual_seed(0)
    p = symgrad.tensor([0.1, 0.2, 0.7])
    s = symgrad.multinomial(p, 2000, replacement=True)
    assert s.shape == (2000,) and s.dtype is symgrad.int64
    freq = symgrad.bincount(s, minlength=3).float() / 2000
    assert bool(((freq - p).abs() < 0.05).all())
    rows = symgrad.multinomial(symgrad.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]), 1)
    assert rows.tolist() == [[1], [0]]
    assert sorted(symgrad.ones(4).multinomial(4).tolist()) == [0, 1, 2, 3]
    # without replacement, a zero weight is drawn only once every positive one is
    assert sorted(symgrad.multinomial(symgrad.tensor([1.0, 0.0, 3.0]), 2).tolist()) == [0, 2]


def test_multinomial_generator_reproducible():
    g = symgrad.Generator().manual_seed(7)
    p = symgrad.tensor([0.3, 0.3, 0.4])
    a = p.multinomial(10, replacement=True, generator=g)
    g.manual_seed(7)
    assert symgrad.equal(a, p.multinomial(10, replacement=True, generator=g))


@pytest.mark.parametrize(
    "weights, n",
    [([0.2, 0.8], 3), ([-1.0, 2.0], 1), ([0.0, 0.0], 1), ([1, 2], 1), ([[[1.0]]], 1), ([1.0], 0)],
)
def test_multinomial_errors(weights, n):
    with pytest.raises(RuntimeError):
        symgrad.multinomial(symgrad.tensor(weights), n)


def test_exponential_and_random_fills():
    symgrad.manual_seed(1)
    x = symgrad.empty(500).exponential_(2.0)
    assert bool((x >= 0).all()) and abs(x.mean().item() - 0.5) < 0.1
    x.random_(0, 5)
    assert set(x.unique().tolist()) <= {0.0, 1.0, 2.0, 3.0, 4.0}
    assert set(x.random_(3).unique().tolist()) <= {0.0, 1.0, 2.0}
    with pytest.raises(RuntimeError):
        symgrad.zeros(2, dtype=symgrad.int64).exponential_()
    with pytest.raises(RuntimeError):
        x.random_(3, 3)
    w = symgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        w.random_(0, 2)


def test_multinomial_errors_match_torch():
    torch = pytest.importorskip("torch")
    for weights, n in [([0.2, 0.8], 3), ([-1.0, 2.0], 1), ([0.0, 0.0], 1), ([1, 2], 1)]:
        with pytest.raises(RuntimeError):
            torch.multinomial(torch.tensor(weights), n)
    assert torch.multinomial(torch.tensor([[0.0, 1.0]]), 1).dtype == torch.int64
