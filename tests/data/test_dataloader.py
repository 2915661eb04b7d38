"""symgrad.utils.data against torch.utils.data: the same batches in the same order (without
shuffling), collated alike, with PyTorch's errors; shuffling is reproducible with a seeded
generator and visits every sample once per pass."""

from __future__ import annotations

import collections
import importlib.util

import numpy as np
import pytest

import symgrad
from symgrad.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    default_collate,
    random_split,
)

HAS_TORCH = importlib.util.find_spec("torch") is not None

X = np.arange(14.0, dtype=np.float32).reshape(7, 2)
Y = np.array([0, 1, 1, 0, 1, 0, 0])


def batches(T, **kw):
    data = T.utils.data.TensorDataset(T.tensor(X), T.tensor(Y))
    loader = T.utils.data.DataLoader(data, **kw)
    return len(loader), [(x.tolist(), y.tolist()) for x, y in loader]


@pytest.mark.parametrize(
    "kw, count, labels",
    [
        (dict(batch_size=3), 3, [[0, 1, 1], [0, 1, 0], [0]]),
        (dict(batch_size=3, drop_last=True), 2, [[0, 1, 1], [0, 1, 0]]),
        (dict(), 7, [[0], [1], [1], [0], [1], [0], [0]]),
        (dict(batch_size=10), 1, [[0, 1, 1, 0, 1, 0, 0]]),
        (dict(batch_size=4, num_workers=2), 2, [[0, 1, 1, 0], [1, 0, 0]]),
    ],
)
def test_batches_in_order(kw, count, labels):
    n, got = batches(symgrad, **kw)
    assert n == count and [y for _, y in got] == labels
    assert [row for x, _ in got for row in x] == X.tolist()[: sum(map(len, labels))]


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
@pytest.mark.parametrize("kw", [dict(batch_size=3), dict(batch_size=2, drop_last=True), dict()])
def test_batches_match_torch(kw):
    import torch

    assert batches(symgrad, **kw) == batches(torch, **kw)


def test_shuffle_visits_every_sample_once_per_pass_and_is_reproducible():
    data = TensorDataset(symgrad.tensor(X), symgrad.tensor(Y))

    def epoch(loader):
        return [row for x, _ in loader for row in x.tolist()]

    loader = DataLoader(data, batch_size=3, shuffle=True)
    first, second = epoch(loader), epoch(loader)
    assert sorted(first) == sorted(second) == X.tolist()
    seeded = [
        epoch(DataLoader(data, 2, shuffle=True, generator=symgrad.Generator().manual_seed(7)))
        for _ in range(2)
    ]
    assert seeded[0] == seeded[1] and sorted(seeded[0]) == X.tolist()
    symgrad.manual_seed(3)
    a = epoch(DataLoader(data, 2, shuffle=True))
    symgrad.manual_seed(3)
    assert epoch(DataLoader(data, 2, shuffle=True)) == a


def test_default_collate_as_pytorch():
    Point = collections.namedtuple("Point", "x y")
    assert str(default_collate([1, 2])) == "tensor([1, 2])"
    assert default_collate([1.5, 2.0]).dtype is symgrad.float64
    assert default_collate([True, False]).dtype is symgrad.bool
    assert default_collate(["a", "b"]) == ["a", "b"]
    pair = default_collate([(symgrad.ones(2), 0), (symgrad.zeros(2), 1)])
    assert isinstance(pair, list) and pair[0].tolist() == [[1.0, 1.0], [0.0, 0.0]]
    d = default_collate([{"a": np.ones(2), "b": 1}, {"a": np.zeros(2), "b": 2}])
    assert d["a"].dtype is symgrad.float64 and d["a"].shape == (2, 2) and d["b"].tolist() == [1, 2]
    p = default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(p, Point) and p.x.tolist() == [1, 3] and p.y.dtype is symgrad.float64
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal"):
        default_collate([[1, 2], [3]])


def _strings_and_tuples(T):
    """Strings inside samples come back as a tuple; a loader without batching turns a tuple
    sample into a list (PyTorch's default_convert)."""
    data = T.utils.data
    labelled = data.default_collate([("x", 1.5), ("y", 2.5)])
    unbatched = next(iter(data.DataLoader(data.TensorDataset(T.arange(3.0)), batch_size=None)))
    converted = data.default_convert((1, (2, np.float32(3.0))))
    return (
        type(labelled).__name__,
        labelled[0],
        type(unbatched).__name__,
        type(converted).__name__,
        type(converted[1]).__name__,
        type(converted[1][1]).__name__,
    )


def test_strings_and_tuples_as_pytorch():
    assert _strings_and_tuples(symgrad) == ("list", ("x", "y"), "list", "list", "list", "Tensor")


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_strings_and_tuples_are_pytorchs():
    import torch

    assert _strings_and_tuples(torch) == ("list", ("x", "y"), "list", "list", "list", "Tensor")


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed")
def test_default_collate_matches_torch_types():
    import torch
    from torch.utils.data import default_collate as theirs

    for batch in ([1, 2], [1.5, 2.0], [True, False], [(1, 2.0), (3, 4.0)]):
        ours = default_collate(batch)
        ref = theirs(batch)
        if isinstance(ref, torch.Tensor):
            ours, ref = [ours], [ref]
        assert [str(t.dtype).split(".")[1] for t in ours] == [
            str(t.dtype).split(".")[1] for t in ref
        ]
        assert [t.tolist() for t in ours] == [t.tolist() for t in ref]


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return i * i


class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(5))


def test_custom_datasets_subsets_concatenation_and_streams():
    assert [t.tolist() for t in DataLoader(Squares(), batch_size=2)] == [[0, 1], [4, 9], [16]]
    assert [t.tolist() for t in DataLoader(Stream(), batch_size=2)] == [[0, 1], [2, 3], [4]]
    assert [t for t in DataLoader(Squares(), batch_size=None)] == [0, 1, 4, 9, 16]
    sub = Subset(Squares(), [4, 0])
    assert len(sub) == 2 and [sub[0], sub[1]] == [16, 0]
    both = Squares() + Squares()
    assert isinstance(both, ConcatDataset) and len(both) == 10 and both[6] == 1 and both[-1] == 16


def test_random_split_counts_and_fractions():
    data = TensorDataset(symgrad.arange(10.0))
    parts = random_split(data, [3, 7], generator=symgrad.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    seen = sorted(int(p[i][0].item()) for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    assert [len(p) for p in random_split(data, [0.25, 0.25, 0.5])] == [3, 2, 5]  # PyTorch too
    eleven = TensorDataset(symgrad.arange(11.0))
    assert [len(p) for p in random_split(eleven, [0.3, 0.3, 0.4])] == [4, 3, 4]
    with pytest.raises(ValueError, match="Sum of input lengths \\(9\\) does not equal"):
        random_split(data, [4, 5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        random_split(TensorDataset(symgrad.arange(1.0)), [0.5, 0.5])


def test_samplers():
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    g = symgrad.Generator().manual_seed(1)
    assert sorted(RandomSampler(range(5), generator=g)) == [0, 1, 2, 3, 4]
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=8, generator=g))
    assert len(drawn) == 8 and set(drawn) <= {0, 1, 2}
    assert sorted(SubsetRandomSampler([5, 7, 9], generator=g)) == [5, 7, 9]
    assert list(BatchSampler(range(5), 2, drop_last=False)) == [[0, 1], [2, 3], [4]]
    assert len(BatchSampler(range(5), 2, drop_last=True)) == 2
    loader = DataLoader(Squares(), batch_sampler=BatchSampler(range(5), 4, False))
    assert [t.tolist() for t in loader] == [[0, 1, 4, 9], [16]]


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: TensorDataset(symgrad.ones(3), symgrad.ones(2)), AssertionError, "Size mism"),
        (lambda: DataLoader(Squares(), num_workers=-1), ValueError, "num_workers option should"),
        (
            lambda: DataLoader(Squares(), shuffle=True, sampler=[0]),
            ValueError,
            "sampler option is mutually exclusive with shuffle",
        ),
        (
            lambda: DataLoader(Squares(), batch_size=2, batch_sampler=[[0]]),
            ValueError,
            "batch_sampler option is mutually exclusive",
        ),
        (
            lambda: DataLoader(Stream(), shuffle=True),
            ValueError,
            "expected unspecified shuffle option, but got shuffle=True",
        ),
        (
            lambda: DataLoader(Squares(), batch_size=None, drop_last=True),
            ValueError,
            "disables auto-batching",
        ),
        (lambda: BatchSampler(range(3), 0, False), ValueError, "batch_size should be a positive"),
        (lambda: RandomSampler(range(0)), ValueError, "num_samples should be a positive"),
        (lambda: RandomSampler(range(3), replacement=1), TypeError, "replacement should be"),
        (lambda: default_collate([object()]), TypeError, "found <class 'object'>"),
    ],
)
def test_errors_are_pytorchs(make, error, message):
    with pytest.raises(error, match=message):
        make()


def _pinned_warnings(T):
    """The warnings of two passes over a loader with ``pin_memory=True`` (and a
    ``pin_memory_device``) on a machine without an accelerator: one of each per pass."""
    import warnings

    data = T.utils.data.TensorDataset(T.tensor(X), T.tensor(Y))
    found = []
    for kw in (dict(pin_memory=True), dict(pin_memory=True, pin_memory_device="cpu"), {}):
        loader = T.utils.data.DataLoader(data, batch_size=4, **kw)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                list(loader)
        found.append([(w.category.__name__, str(w.message)[:40]) for w in caught])
    return found


PIN = ("UserWarning", "'pin_memory' argument is set as true but")
PIN_DEVICE = ("UserWarning", "pin_memory_device is deprecated, the cur")


def test_pin_memory_without_an_accelerator_warns_at_each_pass():
    assert _pinned_warnings(symgrad) == [[PIN, PIN], [PIN_DEVICE, PIN, PIN_DEVICE, PIN], []]


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="needs torch")
def test_pin_memory_warnings_are_pytorchs():
    import torch

    assert _pinned_warnings(torch) == [[PIN, PIN], [PIN_DEVICE, PIN, PIN_DEVICE, PIN], []]
