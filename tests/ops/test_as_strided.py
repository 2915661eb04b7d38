"""``as_strided``: sizes, strides and offset counted in the memory a tensor shares, a view of
it (writes through it are seen by the base), ``AsStridedBackward0`` summing gradients of
elements read more than once, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad


def test_values_are_read_from_the_shared_memory():
    x = symgrad.arange(12.0).reshape(3, 4)
    assert x.as_strided((2, 2), (1, 4)).tolist() == [[0.0, 4.0], [1.0, 5.0]]
    assert x[1].as_strided((3,), (1,)).tolist() == [4.0, 5.0, 6.0]  # x[1]'s own offset, 4
    assert x[1].as_strided((3,), (1,), 0).tolist() == [0.0, 1.0, 2.0]  # offset in the memory
    assert x.t().as_strided((2,), (4,)).tolist() == [0.0, 4.0]
    assert symgrad.as_strided(x, (2, 3), (0, 1), 2).tolist() == [[2.0, 3.0, 4.0]] * 2


def test_a_view_sharing_memory_and_version():
    x = symgrad.zeros(6)
    y = x.as_strided((2, 2), (2, 1), 1)
    assert y._base is x
    y[0, 0] = 5.0
    assert x.tolist() == [0.0, 5.0, 0.0, 0.0, 0.0, 0.0]
    assert x._version == y._version == 1


def test_gradient_sums_over_repeated_reads():
    x = symgrad.arange(5.0, dtype=symgrad.float64, requires_grad=True)
    y = x.as_strided((3, 2), (1, 1))  # each row a window of two: x[1..3] read twice
    assert y.grad_fn.name() == "AsStridedBackward0"
    (y * symgrad.tensor([[1.0, 10.0]], dtype=symgrad.float64)).sum().backward()
    assert x.grad.tolist() == [1.0, 11.0, 11.0, 10.0, 0.0]


def test_a_view_of_a_non_leaf_records_on_it():
    a = symgrad.arange(6.0, dtype=symgrad.float64, requires_grad=True)
    h = a * 2
    y = h.as_strided((2,), (3,), 1)
    assert [f.name() for f, _ in y.grad_fn.next_functions] == ["MulBackward0"]
    y.sum().backward()
    assert a.grad.tolist() == [0.0, 2.0, 0.0, 0.0, 2.0, 0.0]


@pytest.mark.parametrize(
    "args,message",
    [
        (((2, 2), (1,)), "mismatch in length of strides and shape"),
        (((2,), (-1,)), "Negative strides are not supported"),
        (((4, 4), (4, 1)), "out of bounds for storage of size"),
        (((2,), (1,), 5), "out of bounds for storage of size"),
    ],
)
def test_errors(args, message):
    with pytest.raises(RuntimeError, match=message):
        symgrad.zeros(6).as_strided(*args)


def test_reaching_outside_a_view_that_requires_grad_is_refused_clearly():
    a = symgrad.zeros(6, requires_grad=True)
    with pytest.raises(NotImplementedError, match="reaching memory outside it"):
        (a * 1)[2:4].as_strided((3,), (1,), 0)


@pytest.mark.torch
def test_against_pytorch():
    torch = pytest.importorskip("torch")
    results = []
    for T in (torch, symgrad):
        x = T.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        h = x * 1.5
        out = []
        for size, stride, offset in [((2, 2), (1, 4), None), ((3, 2), (1, 1), 2), ((2,), (5,), 1)]:
            y = h.as_strided(size, stride, offset)
            out.append((y.tolist(), type(y.grad_fn).__name__, y.storage_offset(), y.stride()))
            (y * T.arange(float(y.numel())).reshape(y.shape)).sum().backward(retain_graph=True)
        out.append(x.grad.tolist())
        v = h[1].as_strided((2,), (2,))
        out.append((v.tolist(), v.storage_offset()))
        for bad in [((4, 4), (4, 1)), ((2,), (-1,))]:
            try:
                T.zeros(6).as_strided(*bad)
            except RuntimeError as e:
                out.append(str(e)[:20])
        results.append(out)
    assert results[0] == results[1]
