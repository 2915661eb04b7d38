"""``tensor_split`` reads indices as slice bounds (a negative one counts from the end), takes
PyTorch's keywords (``sections=``, ``indices=``, ``tensor_indices_or_sections=``) and checks
its arguments with PyTorch's errors."""

from __future__ import annotations

import pytest

import symgrad


def _parts(parts):
    return [p.tolist() for p in parts]


def test_negative_indices_count_from_the_end():
    x = symgrad.arange(7.0, dtype=symgrad.float64).requires_grad_(True)
    parts = x.tensor_split([-2])
    assert _parts(parts) == [[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0]]
    assert [p.grad_fn.name() for p in parts] == ["SliceBackward0", "SliceBackward0"]
    (parts[0].sum() + 3 * parts[1].sum()).backward()
    assert x.grad.tolist() == [1.0] * 5 + [3.0] * 2
    assert _parts(symgrad.arange(7).tensor_split([-10, -2, 3])) == [
        [],
        [0, 1, 2, 3, 4],
        [],
        [3, 4, 5, 6],
    ]
    assert _parts(symgrad.arange(7).tensor_split(symgrad.tensor([-1]))) == [[0, 1, 2, 3, 4, 5], [6]]
    assert [p.shape[1] for p in symgrad.ones(2, 4).hsplit([-1])] == [3, 1]


def test_keywords():
    x = symgrad.arange(7)
    assert _parts(symgrad.tensor_split(x, sections=2)) == [[0, 1, 2, 3], [4, 5, 6]]
    assert _parts(x.tensor_split(indices=[2])) == [[0, 1], [2, 3, 4, 5, 6]]
    spec = symgrad.tensor([2])
    assert _parts(x.tensor_split(tensor_indices_or_sections=spec)) == [[0, 1], [2, 3, 4, 5, 6]]
    assert _parts(x.tensor_split(symgrad.tensor(3))) == [[0, 1, 2], [3, 4], [5, 6]]


@pytest.mark.parametrize(
    "call,error,words",
    [
        (lambda x: x.tensor_split(symgrad.tensor([[1]])), RuntimeError, "one-dimensional tensor"),
        (lambda x: x.tensor_split(symgrad.tensor([1.0])), RuntimeError, "long, but got Float"),
        (lambda x: x.tensor_split(symgrad.tensor(2, dtype=symgrad.int32)), RuntimeError, "got Int"),
        (lambda x: x.tensor_split([1.5]), TypeError, "invalid combination of arguments"),
        (lambda x: x.tensor_split(True), TypeError, "invalid combination of arguments"),
        (lambda x: x.tensor_split(2, dim=1), IndexError, "Dimension out of range"),
        (lambda x: x[0].tensor_split(2), RuntimeError, "at least a 1-dimensional tensor"),
        (lambda x: x.reshape(1, 7).hsplit(0), RuntimeError, "not divisible by the split_size 0"),
    ],
)  # fmt: skip
def test_errors(call, error, words):
    with pytest.raises(error, match=words):
        call(symgrad.arange(7.0))


def _run(T):
    x = T.arange(35.0, dtype=T.float64).reshape(5, 7).requires_grad_(True)
    parts = [
        *x.tensor_split([-2], dim=1),
        *x.tensor_split(T.tensor([-4, 2]), dim=0),
        *T.tensor_split(x, [4, 1, -1], dim=-1),
        *x.hsplit([-3]),
    ]
    sum(((k + 1) * p).sum() for k, p in enumerate(parts)).backward()
    return [p.tolist() for p in parts], x.grad.tolist(), [type(p.grad_fn).__name__ for p in parts]


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    assert _run(torch) == _run(symgrad)
