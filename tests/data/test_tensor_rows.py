"""A ``DataLoader`` over a ``TensorDataset`` (or a ``Subset`` of one) with the default collate
reads each batch's rows at once: the batches are the ones stacking the samples gives (values,
dtypes, shapes, layout), and PyTorch's, in every case where that shortcut applies or not."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad.utils.data import DataLoader, Subset, TensorDataset, default_collate

try:
    import torch
except ImportError:
    torch = None

LIBS = [symgrad] + ([torch] if torch is not None else [])


def _data(T, requires_grad=False):
    x = T.tensor(np.arange(30, dtype=np.float32).reshape(10, 3), requires_grad=requires_grad)
    y = T.tensor(np.arange(10) % 3)
    return x, y


def _batches(T, dataset, **options):
    return [
        [
            (b.tolist(), str(b.dtype).split(".")[-1], tuple(b.shape), b.is_contiguous())
            for b in batch
        ]
        for batch in T.utils.data.DataLoader(dataset, **options)
    ]


def _stacked(dataset, **options):
    """The batches stacked sample by sample: a collate that is not default_collate itself."""
    return _batches(symgrad, dataset, collate_fn=lambda b: default_collate(b), **options)


EXPECTED_FIRST = [
    ([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]], "float32", (4, 3)),
    ([0, 1, 2, 0], "int64", (4,)),
]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_batches_as_torch(lib):
    x, y = _data(lib)
    batches = _batches(lib, lib.utils.data.TensorDataset(x, y), batch_size=4)
    assert len(batches) == 3
    assert [b[:3] for b in batches[0]] == EXPECTED_FIRST
    assert [b[2] for b in batches[2]] == [(2, 3), (2,)]
    assert all(b[3] for batch in batches for b in batch)


@pytest.mark.parametrize("options", [{"batch_size": 4}, {"batch_size": 3, "drop_last": True}])
def test_rows_at_once_equal_stacked_samples(options):
    x, y = _data(symgrad)
    dataset = TensorDataset(x, y.float(), y)
    assert _batches(symgrad, dataset, **options) == _stacked(dataset, **options)


def test_shuffled_subset_rows():
    x, y = _data(symgrad)
    inner = Subset(TensorDataset(x, y), [9, 7, 5, 3, 1, 0])
    dataset = Subset(inner, [5, 0, 2, 4])
    assert _batches(symgrad, dataset, batch_size=3) == [
        [([[0.0, 1.0, 2.0], [27.0, 28.0, 29.0], [15.0, 16.0, 17.0]], "float32", (3, 3), True),
         ([0, 0, 2], "int64", (3,), True)],
        [([[3.0, 4.0, 5.0]], "float32", (1, 3), True), ([1], "int64", (1,), True)],
    ]  # fmt: skip
    symgrad.manual_seed(0)
    shuffled = _batches(symgrad, dataset, batch_size=3, shuffle=True)
    symgrad.manual_seed(0)
    assert shuffled == _stacked(dataset, batch_size=3, shuffle=True)


def test_noncontiguous_tensor_rows():
    x = symgrad.tensor(np.arange(12.0).reshape(3, 4)).t()  # 4 rows, column-major
    dataset = TensorDataset(x)
    assert _batches(symgrad, dataset, batch_size=3) == _stacked(dataset, batch_size=3)


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_tensor_requiring_grad_is_stacked(lib):
    """Rows of a tensor that requires grad are stacked samples (StackBackward0), as PyTorch."""
    x, y = _data(lib, requires_grad=True)
    xb, yb = next(iter(lib.utils.data.DataLoader(lib.utils.data.TensorDataset(x, y), 2)))
    assert type(xb.grad_fn).__name__ == "StackBackward0"
    xb.sum().backward()
    assert x.grad[:2].tolist() == [[1.0] * 3] * 2 and x.grad[2:].abs().sum().item() == 0


def test_own_indices_out_of_range_raise_as_samples_do():
    x, y = _data(symgrad)
    loader = DataLoader(TensorDataset(x, y), batch_sampler=[[0, 10]])
    with pytest.raises(IndexError):
        list(loader)
