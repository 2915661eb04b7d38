"""``masked_scatter`` and ``put`` (and their in-place forms): values, PyTorch's nodes,
gradients of the input and the source, and errors."""

from __future__ import annotations

import pytest

import symgrad

MASK = [[True, False, True], [False, True, False]]


def test_masked_scatter_values_and_gradients():
    x = symgrad.zeros(2, 3, dtype=symgrad.float64, requires_grad=True)
    s = symgrad.arange(1.0, 7.0, dtype=symgrad.float64, requires_grad=True)
    y = (x * 1).masked_scatter(symgrad.tensor(MASK), s)
    assert y.tolist() == [[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]]
    assert y.grad_fn.name() == "MaskedScatterBackward0"
    (y * symgrad.arange(1.0, 7.0, dtype=symgrad.float64).reshape(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 0.0], [4.0, 0.0, 6.0]]
    assert s.grad.tolist() == [1.0, 3.0, 5.0, 0.0, 0.0, 0.0]
    # the mask broadcasts; the source is read in row-major order whatever its shape
    row = symgrad.tensor([True, False, True])
    z = symgrad.zeros(2, 3, dtype=symgrad.float64).masked_scatter(row, s.reshape(2, 3))
    assert z.tolist() == [[1.0, 0.0, 2.0], [3.0, 0.0, 4.0]]


def test_masked_scatter_in_place_and_errors():
    z = symgrad.zeros(3)
    assert z.masked_scatter_(z == 0, symgrad.tensor([7.0, 8.0, 9.0])) is z
    assert z.tolist() == [7.0, 8.0, 9.0]
    x = symgrad.zeros(2, 3)
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones"):
        x.masked_scatter(symgrad.tensor(MASK), symgrad.ones(2))
    with pytest.raises(RuntimeError, match="only supports boolean masks"):
        x.masked_scatter(symgrad.tensor(MASK).int(), symgrad.ones(6))
    with pytest.raises(RuntimeError, match="don't broadcast"):
        x.masked_scatter(symgrad.ones(4, dtype=symgrad.bool), symgrad.ones(6))


def test_put_values_gradients_and_accumulate():
    x = symgrad.zeros(2, 3, dtype=symgrad.float64, requires_grad=True)
    s = symgrad.tensor([9.0, 8.0, 7.0], dtype=symgrad.float64, requires_grad=True)
    y = (x * 1).put(symgrad.tensor([0, 4, -1]), s)
    assert y.tolist() == [[9.0, 0.0, 0.0], [0.0, 8.0, 7.0]] and y.grad_fn.name() == "PutBackward0"
    (y * symgrad.arange(1.0, 7.0, dtype=symgrad.float64).reshape(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 3.0], [4.0, 0.0, 0.0]]
    assert s.grad.tolist() == [1.0, 5.0, 6.0]
    acc = symgrad.zeros(2, 3).put(
        symgrad.tensor([0, 0]), symgrad.tensor([1.0, 2.0]), accumulate=True
    )
    assert acc.tolist() == [[3.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    z = symgrad.zeros(3)
    assert z.put_(symgrad.tensor([1]), symgrad.tensor([5.0])) is z and z.tolist() == [0.0, 5.0, 0.0]


def test_put_errors():
    x = symgrad.zeros(2, 3)
    with pytest.raises(IndexError, match="tried to access index 6 on a tensor of 6 elements"):
        x.put(symgrad.tensor([6]), symgrad.tensor([1.0]))
    with pytest.raises(IndexError, match="the same number of elements"):
        x.put(symgrad.tensor([0, 1]), symgrad.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index"):
        x.put(symgrad.tensor([0.0]), symgrad.tensor([1.0]))


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    results = []
    for T in (torch, symgrad):
        x = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=T.float64, requires_grad=True)
        s = T.tensor([0.5, -1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        w = T.tensor([[1.0, -2.0, 3.0], [0.5, 5.0, -1.5]], dtype=T.float64)
        a = (x * 2).masked_scatter(T.tensor([[False, True, True], [True, False, False]]), s)
        b = (x * 3).put(T.tensor([5, 0, -2, 1]), s, accumulate=True)
        c = (x * 1).put(T.tensor([2, 3]), s[:2] * 4)
        ((a + b + c) * w).sum().backward()
        results.append(
            (a.tolist(), b.tolist(), c.tolist(), x.grad.tolist(), s.grad.tolist(),
             [type(t.grad_fn).__name__ for t in (a, b, c)])
        )  # fmt: skip
    assert results[0] == results[1]


@pytest.mark.parametrize(
    "call,message",
    [
        (
            lambda x, T: x.scatter_(0, T.zeros(1, 4, dtype=T.int64), T.ones(2, 3)),
            "no larger size than src [2, 3]",
        ),
        (
            lambda x, T: x.scatter_(0, T.zeros(1, 5, dtype=T.int64), T.ones(1, 5)),
            "no larger than self [3, 4] apart",
        ),
        (
            lambda x, T: x.scatter_add_(0, T.zeros(1, 5, dtype=T.int64), T.ones(1, 5)),
            "apart from dimension 0",
        ),
        (lambda x, T: x.scatter_(0, T.zeros(1, 5, dtype=T.int64), 2.0), "apart from dimension 0"),
    ],
)
def test_scatter_index_larger_than_self_or_src_is_pytorchs_runtime_error(call, message):
    with pytest.raises(RuntimeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        call(symgrad.zeros(3, 4), symgrad)
