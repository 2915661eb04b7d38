"""poisson, Tensor.geometric_/cauchy_/log_normal_ and random.fork_rng: shapes, dtypes,
supports, errors and reproducibility (the numbers are symgrad's, not PyTorch's)."""

import numpy as np
import pytest

import symgrad


def test_poisson_counts_shape_dtype_and_zero_gradient():
    rates = symgrad.tensor([[0.0, 3.0], [10.0, 0.5]], requires_grad=True)
    counts = symgrad.poisson(rates, generator=symgrad.Generator().manual_seed(1))
    assert counts.shape == (2, 2) and counts.dtype == symgrad.float32
    assert counts[0, 0].item() == 0.0
    assert bool((counts == counts.round()).all()) and bool((counts >= 0).all())
    assert counts.grad_fn.name() == "PoissonBackward0"
    counts.sum().backward()
    assert rates.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert symgrad.poisson(symgrad.tensor([np.inf])).tolist() == [-(2.0**63)]


def test_poisson_errors():
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        symgrad.poisson(symgrad.tensor([-1.0]))
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        symgrad.poisson(symgrad.tensor([float("nan")]))
    with pytest.raises(NotImplementedError, match="poisson_cpu.*Long"):
        symgrad.poisson(symgrad.tensor([1, 2]))


def test_in_place_fills():
    g = symgrad.Generator().manual_seed(0)
    x = symgrad.empty(1000)
    assert x.geometric_(0.25, generator=g) is x
    assert bool((x >= 1).all()) and bool((x == x.round()).all())
    assert 3.0 < x.mean().item() < 5.0  # mean 1 / p
    ints = symgrad.zeros(5, dtype=symgrad.int64).geometric_(0.5)
    assert ints.dtype == symgrad.int64 and bool((ints >= 1).all())
    y = symgrad.empty(1000, dtype=symgrad.float64).log_normal_(0.0, 0.5, generator=g)
    assert y.dtype == symgrad.float64 and bool((y > 0).all())
    assert abs(y.log().mean().item()) < 0.1
    z = symgrad.empty(1000).cauchy_(2.0, 0.5, generator=g)
    assert abs(z.median().item() - 2.0) < 0.2


def test_fill_errors():
    with pytest.raises(RuntimeError, match=r"geometric_ expects p to be in \(0, 1\), but got p=1"):
        symgrad.empty(2).geometric_(1)
    with pytest.raises(RuntimeError, match="cauchy_ expects sigma > 0.0, but found sigma=-1"):
        symgrad.empty(2).cauchy_(0, -1)
    with pytest.raises(RuntimeError, match="Cauchy distribution is a continuous"):
        symgrad.zeros(2, dtype=symgrad.int64).cauchy_()
    with pytest.raises(RuntimeError, match="log_normal_ expects std > 0.0, but found std=0"):
        symgrad.empty(2).log_normal_(1, 0)
    with pytest.raises(NotImplementedError, match="log_normal_cpu"):
        symgrad.zeros(2, dtype=symgrad.int64).log_normal_()


def test_fills_are_reproducible_and_fork_rng_restores_the_state():
    symgrad.manual_seed(7)
    a = symgrad.empty(3).log_normal_()
    symgrad.manual_seed(7)
    with symgrad.random.fork_rng():
        symgrad.rand(5)
    assert symgrad.equal(symgrad.empty(3).log_normal_(), a)
    assert symgrad.default_generator is symgrad.random.default_generator
    with symgrad.random.fork_rng(enabled=False):
        symgrad.rand(1)
    assert not symgrad.equal(symgrad.empty(3).log_normal_(), a)


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [
        (lambda t: t.empty(2).geometric_(0), RuntimeError),
        (lambda t: t.empty(2).cauchy_(0, -1), RuntimeError),
        (lambda t: t.empty(2).log_normal_(1, -1), RuntimeError),
        (lambda t: t.zeros(2, dtype=t.int64).log_normal_(), NotImplementedError),
        (lambda t: t.poisson(t.tensor([-1.0])), RuntimeError),
        (lambda t: t.poisson(t.tensor([1, 2])), NotImplementedError),
    ]
    for make, kind in cases:
        with pytest.raises(kind) as ours:
            make(symgrad)
        with pytest.raises(kind) as theirs:
            make(torch)
        assert str(theirs.value).split(",")[0][:20] in str(ours.value)
    for name in ("geometric_", "cauchy_", "log_normal_"):
        assert hasattr(torch.Tensor, name) and hasattr(symgrad.Tensor, name)
