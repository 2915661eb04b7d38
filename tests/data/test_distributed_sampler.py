"""DistributedSampler: each replica's share of the indices (PyTorch's lists exactly without
shuffling), padding and ``drop_last``, the epoch-seeded shuffle and PyTorch's errors."""

from __future__ import annotations

import pytest

import symgrad
from symgrad.utils.data import DataLoader, DistributedSampler, TensorDataset


def shares(n, replicas, **kw):
    return [
        list(DistributedSampler(range(n), num_replicas=replicas, rank=r, **kw))
        for r in range(replicas)
    ]


@pytest.mark.parametrize(
    "n, replicas, drop_last, expected",
    [
        (10, 3, False, [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]),
        (10, 3, True, [[0, 3, 6], [1, 4, 7], [2, 5, 8]]),
        (7, 3, False, [[0, 3, 6], [1, 4, 0], [2, 5, 1]]),
        (7, 3, True, [[0, 3], [1, 4], [2, 5]]),
        (2, 5, False, [[0], [1], [0], [1], [0]]),
        (2, 5, True, [[], [], [], [], []]),
        (3, 7, False, [[0], [1], [2], [0], [1], [2], [0]]),
        (10, 4, True, [[0, 4], [1, 5], [2, 6], [3, 7]]),
        (0, 2, False, [[], []]),
        (1, 1, False, [[0]]),
    ],
)
def test_shares_without_shuffling(n, replicas, drop_last, expected):
    assert shares(n, replicas, shuffle=False, drop_last=drop_last) == expected
    s = DistributedSampler(range(n), num_replicas=replicas, rank=0, drop_last=drop_last)
    assert len(s) == s.num_samples == len(expected[0])
    assert s.total_size == s.num_samples * replicas


def test_attributes():
    s = DistributedSampler(list(range(10)), num_replicas=2, rank=1)
    assert (s.num_replicas, s.rank, s.epoch, s.shuffle, s.seed, s.drop_last) == (
        2,
        1,
        0,
        True,
        0,
        False,
    )
    assert (s.num_samples, s.total_size) == (5, 10)
    s.set_epoch(3)
    assert s.epoch == 3


def test_shuffled_shares_cover_the_dataset_and_repeat_per_epoch():
    epoch0 = shares(10, 2, seed=4)
    assert sorted(epoch0[0] + epoch0[1]) == list(range(10))
    assert epoch0 == shares(10, 2, seed=4)
    assert epoch0 != shares(10, 2, seed=5)
    s = DistributedSampler(range(10), num_replicas=2, rank=0, seed=4)
    assert list(s) == list(s) == epoch0[0]
    s.set_epoch(1)
    again = DistributedSampler(range(10), num_replicas=2, rank=0, seed=5)
    assert list(s) == list(again)
    padded = shares(7, 3, seed=1)
    assert all(len(p) == 3 for p in padded) and set(sum(padded, [])) == set(range(7))
    dropped = shares(7, 3, seed=1, drop_last=True)
    flat = sum(dropped, [])
    assert all(len(p) == 2 for p in dropped) and len(set(flat)) == 6


@pytest.mark.parametrize("kw", [{}, {"num_replicas": 2}, {"rank": 0}])
def test_replicas_and_rank_are_needed_without_a_process_group(kw):
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4), **kw)


@pytest.mark.parametrize(
    "replicas, rank, interval", [(2, 2, "[0, 1]"), (2, -1, "[0, 1]"), (0, 0, "[0, -1]")]
)
def test_invalid_rank(replicas, rank, interval):
    message = f"Invalid rank {rank}, rank should be in the interval {interval}"
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        DistributedSampler(range(4), num_replicas=replicas, rank=rank)


def test_in_a_dataloader():
    data = TensorDataset(symgrad.arange(10.0))
    sampler = DistributedSampler(data, num_replicas=2, rank=1, shuffle=False)
    loader = DataLoader(data, batch_size=2, sampler=sampler)
    assert [x.tolist() for (x,) in loader] == [[1.0, 3.0], [5.0, 7.0], [9.0]]


@pytest.mark.torch
@pytest.mark.parametrize("n, replicas", [(10, 3), (7, 4), (2, 5), (12, 4)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_shares_match_torch(n, replicas, drop_last):
    torch = pytest.importorskip("torch")
    theirs = [
        list(
            torch.utils.data.DistributedSampler(
                range(n), num_replicas=replicas, rank=r, shuffle=False, drop_last=drop_last
            )
        )
        for r in range(replicas)
    ]
    assert shares(n, replicas, shuffle=False, drop_last=drop_last) == theirs
