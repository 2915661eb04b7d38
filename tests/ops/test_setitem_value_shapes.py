"""``x[key] = value`` with a basic key (ints, slices, ``...``, None) copies the value into
the view ``x[key]`` as PyTorch's ``copy_to`` does: the value's leading 1s are dropped, then
it is expanded to the view's shape, so a value that does not fit raises ``expand``'s error.
``copy_`` with a source that does not broadcast raises PyTorch's broadcast error."""

from __future__ import annotations

import pytest
from _torch_table import table_tests

import symgrad

_EXPANDED = "The expanded size of the tensor ({}) must match the existing size ({}) at "
# name -> (key, value shape, the first line of PyTorch's message, or the values' sum)
CASES = {
    "int_key_wrong_last": (
        (slice(None), 1),
        (3,),
        _EXPANDED.format(4, 3)
        + "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]",
    ),
    "slice_key_wrong_last": (
        (slice(None), slice(1, None)),
        (3,),
        _EXPANDED.format(4, 3)
        + "non-singleton dimension 2.  Target sizes: [2, 2, 4].  Tensor sizes: [3]",
    ),
    "ellipsis_wrong_last": (
        Ellipsis,
        (3,),
        _EXPANDED.format(4, 3)
        + "non-singleton dimension 2.  Target sizes: [2, 3, 4].  Tensor sizes: [3]",
    ),
    "none_key_wrong_last": (
        None,
        (3,),
        _EXPANDED.format(4, 3)
        + "non-singleton dimension 3.  Target sizes: [1, 2, 3, 4].  Tensor sizes: [3]",
    ),
    "leading_ones_dropped_then_checked": (
        (slice(0, 1),),
        (1, 1, 2, 4),
        _EXPANDED.format(3, 2)
        + "non-singleton dimension 1.  Target sizes: [1, 3, 4].  Tensor sizes: [2, 4]",
    ),
    "more_dimensions_than_the_view": (
        0,
        (1, 2, 3, 4),
        "expand(torch.FloatTensor{[2, 3, 4]}, size=[3, 4]): the number of sizes provided (2) "
        "must be greater or equal to the number of dimensions in the tensor (3)",
    ),
    "ellipsis_with_a_leading_one": (Ellipsis, (1, 2, 3, 4), 24.0),
    "whole_slice_with_a_leading_one": (slice(None), (1, 2, 3, 4), 24.0),
    "element_with_leading_ones": ((0, 0, 0), (1, 1), 1.0),
}


def _write(T, name):
    key, shape, _ = CASES[name]
    x = T.zeros(2, 3, 4)
    try:
        x[key] = T.ones(shape)
    except RuntimeError as error:
        return str(error).split("\n")[0]
    return x.sum().item()


test_symgrad, test_pytorch = table_tests(
    {name: (lambda T, name=name: _write(T, name), case[2]) for name, case in CASES.items()}
)


def _copy(T):
    try:
        T.zeros(2, 3, 4).copy_(T.ones(3))
    except RuntimeError as error:
        return str(error).split("\n")[0]


_COPY = "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 2"


def test_copy_source_that_does_not_broadcast():
    assert _copy(symgrad) == _COPY


def test_copy_source_that_does_not_broadcast_pytorch():
    torch = pytest.importorskip("torch")
    assert _copy(torch) == _COPY


def test_values_written_through_a_leading_one_keep_their_gradient():
    x = symgrad.zeros(2, 3, requires_grad=True)
    v = symgrad.arange(6.0).reshape(1, 2, 3).requires_grad_(True)
    y = x * 1
    y[...] = v * 2
    (y * y).sum().backward()
    assert y.tolist() == [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]]
    assert v.grad.tolist() == [[[0.0, 8.0, 16.0], [24.0, 32.0, 40.0]]]
    assert x.grad.tolist() == [[0.0] * 3] * 2
