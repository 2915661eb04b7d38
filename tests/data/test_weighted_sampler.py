"""WeightedRandomSampler: draws in proportion to the weights, with or without replacement,
seeded by a generator, PyTorch's attributes and argument errors."""

from __future__ import annotations

import pytest

import symgrad
from symgrad.utils.data import DataLoader, TensorDataset, WeightedRandomSampler


def test_draws_follow_the_weights():
    s = WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], num_samples=400)
    drawn = list(s)
    assert len(drawn) == len(s) == 400 and set(drawn) <= {1, 3}
    assert 0.65 < drawn.count(3) / 400 < 0.85
    once = list(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False))
    assert sorted(once) == [0, 1, 2]


def test_a_seeded_generator_repeats_the_draw():
    def draw():
        g = symgrad.Generator().manual_seed(7)
        return list(WeightedRandomSampler([1.0, 2.0, 3.0], 10, generator=g))

    assert draw() == draw()


def test_in_a_dataloader():
    ds = TensorDataset(symgrad.arange(6.0), symgrad.tensor([0, 0, 0, 0, 1, 1]))
    weights = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
    loader = DataLoader(ds, batch_size=4, sampler=WeightedRandomSampler(weights, 8))
    labels = [int(v) for _, yb in loader for v in yb]
    assert labels == [1] * 8


def _attributes(lib):
    s = lib.utils.data.WeightedRandomSampler([1, 2], 3)
    return s.weights.tolist(), str(s.weights.dtype).split(".")[1], s.num_samples, s.replacement


def test_attributes_and_errors():
    assert _attributes(symgrad) == ([1.0, 2.0], "float64", 3, True)
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="num_samples should be a positive integer value"):
            WeightedRandomSampler([1.0], bad)
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        WeightedRandomSampler([[1.0, 2.0]], 2)
    with pytest.raises(ValueError, match="replacement should be a boolean value"):
        WeightedRandomSampler([1.0], 1, replacement=1)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size"):
        list(WeightedRandomSampler([1.0, 0.0], 3, replacement=False))


def test_against_torch():
    torch = pytest.importorskip("torch")
    assert _attributes(symgrad) == _attributes(torch)
