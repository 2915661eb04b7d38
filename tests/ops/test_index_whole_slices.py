"""Which slices of a key PyTorch skips: one written from 0 (or no start) to the end or past
it (or no stop), by 1. A slice that covers its dimension by other bounds (``-3:`` of 3 rows,
``::3`` of one, ``0:1:2`` of one) is a slice node, and a write through it is ``CopySlices``
where a write through skipped slices alone is ``copy_`` into the tensor itself
(``CopyBackwards``) or, by index arrays, ``IndexPutBackward0``."""

from __future__ import annotations

import pytest

import symgrad

# name -> (shape, key); the key read, and written with a number
KEYS = {
    "negative_start_whole": ((3,), (slice(-4, None),)),
    "step_of_one_element": ((1,), (slice(-2, None, 3),)),
    "negative_start_then_int": ((3, 2), (slice(-3, None), 0)),
    "stop_past_the_end_then_int": ((3, 2), (slice(0, 99), 0)),
    "explicit_step_one_and_indices": ((2, 4), (slice(None, None, 1), [1, 0])),
    "stop_at_one_and_indices": ((1, 3), (slice(None, 1, 1), [0, 2])),
    "negative_start_and_indices": ((2, 1, 3), ([0, 1], slice(-1, None, 1), [2, 1])),
}
EXPECTED = {  # name -> (node of x[key], its first next node, node of x[key] = 5)
    "negative_start_whole": ("SliceBackward0", "MulBackward0", "CopySlices"),
    "step_of_one_element": ("SliceBackward0", "MulBackward0", "CopySlices"),
    "negative_start_then_int": ("SelectBackward0", "SliceBackward0", "CopySlices"),
    "stop_past_the_end_then_int": ("SelectBackward0", "MulBackward0", "CopySlices"),
    "explicit_step_one_and_indices": ("IndexBackward0", "MulBackward0", "IndexPutBackward0"),
    "stop_at_one_and_indices": ("IndexBackward0", "MulBackward0", "IndexPutBackward0"),
    "negative_start_and_indices": ("IndexBackward0", "SliceBackward0", "CopySlices"),
}


def _nodes(T, name):
    shape, key = KEYS[name]
    x = T.ones(shape, dtype=T.float64, requires_grad=True)
    a = x * 1
    y = a[key]
    read = (y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
    a[key] = 5.0
    a.sum().backward()
    names = (*read, a.grad_fn.name().replace("torch::autograd::", ""))
    return names, a.tolist(), x.grad.tolist(), a._version


@pytest.mark.parametrize("name", sorted(KEYS))
def test_nodes_of_whole_slices(name):
    assert _nodes(symgrad, name)[0] == EXPECTED[name]


def test_a_one_element_stepped_slice_adds_in_place_through_a_view():
    x = symgrad.ones(1, requires_grad=True)
    a = x * 1
    a[::2] += x  # a slice node: no copy of a into itself
    assert a.tolist() == [2.0] and a._version == 2


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(KEYS))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")
    assert _nodes(symgrad, name) == _nodes(torch, name)
