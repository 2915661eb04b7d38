"""ChainDataset, StackDataset, ``__getitems__`` batches and ``get_worker_info``, as in
torch.utils.data: the same samples, the same batches and PyTorch's errors."""

from __future__ import annotations

import dataclasses

import pytest

import symgrad
from symgrad.utils.data import (
    ChainDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    get_worker_info,
)
from symgrad.utils.data.worker import WorkerInfo


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = items

    def __iter__(self):
        return iter(self.items)

    def __len__(self):
        return len(self.items)


class Endless(IterableDataset):
    def __iter__(self):
        return iter([7])


class Batched(Dataset):
    """Answers a whole batch of indices at once, as PyTorch's loader asks it to."""

    def __init__(self):
        self.asked = []

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return i

    def __getitems__(self, indices):
        self.asked.append(list(indices))
        return [100 + i for i in indices]


def test_chain_dataset_reads_streams_one_after_another():
    chain = ChainDataset([Stream([1, 2]), Stream([3])])
    assert isinstance(chain, IterableDataset)
    assert list(chain) == [1, 2, 3] and len(chain) == 3
    assert list(ChainDataset([Stream([1]), Endless()])) == [1, 7]
    assert len(ChainDataset([])) == 0
    added = Stream([1, 2]) + Stream([5])
    assert type(added) is ChainDataset and list(added) == [1, 2, 5]


def test_chain_dataset_errors():
    with pytest.raises(TypeError, match="has no len"):
        len(ChainDataset([Stream([1]), Endless()]))
    mixed = ChainDataset([Stream([1]), TensorDataset(symgrad.arange(2))])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(mixed)
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(mixed)


def test_chain_dataset_in_a_loader():
    loader = DataLoader(ChainDataset([Stream([1, 2, 3]), Stream([4, 5])]), batch_size=2)
    assert [b.tolist() for b in loader] == [[1, 2], [3, 4], [5]]


def test_stack_dataset_tuples():
    s = StackDataset(symgrad.arange(4.0), [10, 11, 12, 13])
    assert len(s) == 4 and isinstance(s.datasets, tuple)
    x, y = s[2]
    assert x.item() == 2.0 and y == 12
    assert [(x.item(), y) for x, y in s.__getitems__([0, 3])] == [(0.0, 10), (3.0, 13)]
    got = [(x.tolist(), y.tolist()) for x, y in DataLoader(s, batch_size=3)]
    assert got == [([0.0, 1.0, 2.0], [10, 11, 12]), ([3.0], [13])]


def test_stack_dataset_dicts():
    s = StackDataset(x=symgrad.arange(4.0), y=[10, 11, 12, 13])
    assert len(s) == 4 and set(s.datasets) == {"x", "y"}
    assert s[1]["y"] == 11 and s[1]["x"].item() == 1.0
    assert [d["y"] for d in s.__getitems__([2, 0])] == [12, 10]
    got = [{k: v.tolist() for k, v in b.items()} for b in DataLoader(s, batch_size=3)]
    assert got == [{"x": [0.0, 1.0, 2.0], "y": [10, 11, 12]}, {"x": [3.0], "y": [13]}]


def test_stack_dataset_uses_the_batch_reads_of_its_datasets():
    inner = Batched()
    s = StackDataset(inner, [0, 1, 2, 3])
    assert s.__getitems__([1, 2]) == [(101, 1), (102, 2)] and inner.asked == [[1, 2]]

    class Short(Batched):
        def __getitems__(self, indices):
            return [1]

    with pytest.raises(
        ValueError, match="Nested dataset's output size mismatch. Expected 2, got 1"
    ):
        StackDataset(Short(), [0, 1, 2, 3]).__getitems__([1, 2])


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((symgrad.arange(3), symgrad.arange(4)), {}, "Size mismatch between datasets"),
        ((), {"x": [1, 2], "y": [1]}, "Size mismatch between datasets"),
        (([1],), {"y": [1]}, "but both types are given"),
        ((), {}, "At least one dataset should be passed"),
    ],
)
def test_stack_dataset_errors(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        StackDataset(*args, **kwargs)


def test_loader_reads_whole_batches_through_getitems():
    data = Batched()
    assert [b.tolist() for b in DataLoader(data, batch_size=3)] == [[100, 101, 102], [103]]
    assert data.asked == [[0, 1, 2], [3]]
    sub = Subset(data, [3, 2, 1])
    assert [b.tolist() for b in DataLoader(sub, batch_size=3)] == [[103, 102, 101]]
    assert sub.__getitems__([0, 2]) == [103, 101]
    assert Subset([5, 6, 7], [2, 0]).__getitems__([0, 1]) == [7, 5]


def test_get_worker_info_is_none_outside_workers():
    assert get_worker_info() is None
    seen = []

    class Sharded(IterableDataset):
        def __iter__(self):
            seen.append(get_worker_info())
            return iter(range(3))

    # the loader reads in this process whatever num_workers says, so no worker info
    loader = DataLoader(Sharded(), batch_size=2, num_workers=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2]] and seen == [None]


def test_worker_info_fields():
    info = WorkerInfo(id=1, num_workers=2, seed=5, dataset=None)
    assert (info.id, info.num_workers, info.seed, info.dataset) == (1, 2, 5, None)
    assert (info.rng, info.worker_method) == (None, "multiprocessing")
    assert repr(info) == (
        "WorkerInfo(id=1, num_workers=2, seed=5, dataset=None, rng=None, "
        "worker_method='multiprocessing')"
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.id = 0


@pytest.mark.torch
def test_stack_and_chain_match_torch():
    torch = pytest.importorskip("torch")
    from torch.utils.data import ChainDataset as TheirChain
    from torch.utils.data import StackDataset as TheirStack

    ours = StackDataset(a=[1, 2, 3], b=["x", "y", "z"])
    theirs = TheirStack(a=[1, 2, 3], b=["x", "y", "z"])
    assert [ours[i] for i in range(3)] == [theirs[i] for i in range(3)]
    assert ours.__getitems__([2, 0]) == theirs.__getitems__([2, 0])

    class TheirStream(torch.utils.data.IterableDataset):
        def __init__(self, items):
            self.items = items

        def __iter__(self):
            return iter(self.items)

    assert list(ChainDataset([Stream([1]), Stream([2, 3])])) == list(
        TheirChain([TheirStream([1]), TheirStream([2, 3])])
    )
    assert torch.utils.data.get_worker_info() is get_worker_info() is None
