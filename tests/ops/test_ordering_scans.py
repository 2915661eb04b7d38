"""Sorting, selection, scans, triangles and diagonals: values, indices and gradients by hand
(as PyTorch 2.13 gives them), return types, views, dtypes and errors."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

NAN, INF = float("nan"), float("inf")


def test_sort_orders_nan_last_and_is_stable():
    t = symgrad.tensor([1.0, NAN, 3.0, 1.0, -INF, 3.0])
    assert t.sort().indices.tolist() == [4, 0, 3, 2, 5, 1]
    assert t.sort(descending=True).indices.tolist() == [1, 2, 5, 0, 3, 4]
    assert t.argsort().tolist() == [4, 0, 3, 2, 5, 1]
    assert repr(symgrad.tensor([3, 1, 2]).sort()) == (
        "symgrad.return_types.sort(\nvalues=tensor([1, 2, 3]),\nindices=tensor([1, 2, 0]))"
    )


def test_gradients_go_where_the_values_came_from():
    x = symgrad.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], requires_grad=True)
    values, _ = x.sort(1, descending=True)
    (values * symgrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [[1.0, 3.0, 2.0], [3.0, 1.0, 2.0]]
    assert values.grad_fn.name() == "SortBackward0"
    x.grad = None
    top = x.topk(2, dim=0)
    assert top.values.tolist() == [[3.0, 5.0, 4.0], [0.0, 1.0, 2.0]]
    assert top.indices.tolist() == [[0, 1, 1], [1, 0, 0]]
    k = x.kthvalue(2, 1)
    assert k.values.tolist() == [2.0, 4.0] and k.indices.tolist() == [2, 2]
    assert k.values.grad_fn.name() == "KthvalueBackward0"


def test_scans_by_hand():
    x = symgrad.tensor(
        [[1.0, 2.0, 2.0, 0.5], [3.0, 0.0, 4.0, 0.0]], dtype=symgrad.float64, requires_grad=True
    )
    g = symgrad.tensor([[1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 2.0, 0.5]], dtype=symgrad.float64)
    (gx,) = symgrad.autograd.grad(x.cumsum(1), x, g)
    assert gx.tolist() == [[10.0, 9.0, 7.0, 4.0], [2.5, 1.5, 2.5, 0.5]]
    y = x.cumprod(1)
    assert y.tolist() == [[1.0, 2.0, 4.0, 2.0], [3.0, 0.0, 0.0, 0.0]]
    (gx,) = symgrad.autograd.grad(y, x, g)
    assert gx.tolist() == [[25.0, 12.0, 10.0, 16.0], [1.0, 21.0, 0.0, 0.0]]  # zeros: no nan
    values, indices = symgrad.cummax(x, 1)
    assert values.tolist() == [[1.0, 2.0, 2.0, 2.0], [3.0, 3.0, 4.0, 4.0]]
    assert indices.tolist() == [[0, 1, 2, 2], [0, 0, 2, 2]]  # a later tie takes over
    assert symgrad.cummin(x, 1).indices.tolist() == [[0, 0, 0, 3], [0, 1, 1, 3]]
    assert symgrad.tensor([1, 2]).cumsum(0).dtype is symgrad.int64
    assert symgrad.tensor([True, False]).cumsum(0).tolist() == [1, 1]
    assert x.cumsum(-1, dtype=symgrad.float32).dtype is symgrad.float32


def test_cumsum_closed_form():
    x = symgrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    (dx,) = symgrad.symbolic.gradient((x.cumsum(0) ** 2).sum(), [x])
    # d/dx_i of sum_k (x_0 + ... + x_k)^2 = 2 * (the partial sums from k = i on)
    assert [str(e) for e in dx] == [
        "6*x[0] + 4*x[1] + 2*x[2]",
        "4*x[0] + 4*x[1] + 2*x[2]",
        "2*x[0] + 2*x[1] + 2*x[2]",
    ]


def test_triangles_and_diagonals():
    x = symgrad.arange(12.0).reshape(3, 4)
    assert x.tril().tolist() == [[0.0, 0.0, 0.0, 0.0], [4.0, 5.0, 0.0, 0.0], [8.0, 9.0, 10.0, 0.0]]
    assert x.triu(1).tolist() == [[0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 6.0, 7.0], [0.0, 0.0, 0.0, 11.0]]
    assert symgrad.diagonal(x, 1).tolist() == [1.0, 6.0, 11.0]
    assert symgrad.diag(x, -1).tolist() == [4.0, 9.0]
    assert symgrad.trace(x).item() == 15.0
    assert symgrad.diag_embed(symgrad.tensor([1.0, 2.0]), 1).tolist() == [
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 2.0],
        [0.0, 0.0, 0.0],
    ]
    z = symgrad.zeros(3, 3)
    d = z.diagonal()
    assert d._base is z
    d.fill_(1.0)  # a view: the write reaches z
    assert z.tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    m = symgrad.ones(2, 2) * float("inf")
    assert m.tril().tolist() == [[INF, 0.0], [INF, INF]]  # zeros, not inf * 0


def test_trace_closed_form():
    a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], name="A")
    x = symgrad.tensor([[0.5, 0.0], [1.0, 2.0]], requires_grad=True, name="X")
    (dx,) = symgrad.symbolic.gradient(symgrad.trace(a @ x), [x])
    assert np.array(dx.tolist(), dtype=object).astype(str).tolist() == [
        ["A[0, 0]", "A[1, 0]"],
        ["A[0, 1]", "A[1, 1]"],
    ]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: symgrad.ones(3).topk(4), RuntimeError, "selected index k out of range"),
        (lambda: symgrad.ones(3).kthvalue(4), RuntimeError, "selected number k out of range"),
        (
            lambda: symgrad.ones(2, 0).kthvalue(1, 1),
            IndexError,
            "Expected reduction dim 1 to have non-zero size",
        ),
        (
            lambda: symgrad.ones(3).tril(),
            RuntimeError,
            "tril: input tensor must have at least 2 dimensions",
        ),
        (
            lambda: symgrad.ones(2, 2).diagonal(0, 1, 1),
            RuntimeError,
            "diagonal dimensions cannot be identical",
        ),
        (lambda: symgrad.trace(symgrad.ones(3)), RuntimeError, "expected a matrix"),
        (lambda: symgrad.ones(2, 2).cumsum(2), IndexError, "Dimension out of range"),
    ],
)
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_einsum_by_hand_and_in_closed_form():
    a = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert symgrad.einsum("ij,j->i", a, symgrad.tensor([1.0, 1.0])).tolist() == [3.0, 7.0]
    assert symgrad.einsum("ii", a).item() == 5.0
    assert symgrad.einsum("ij->ji", a).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert symgrad.einsum("i,j->ij", a[0], a[1]).tolist() == [[3.0, 4.0], [6.0, 8.0]]
    x = symgrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    A = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], name="A")
    (dx,) = symgrad.symbolic.gradient(symgrad.einsum("i,ij,j->", x, A, x), [x])
    assert [str(e) for e in dx] == [
        "2*A[0, 0]*x[0] + A[0, 1]*x[1] + A[1, 0]*x[1]",
        "A[0, 1]*x[0] + A[1, 0]*x[0] + 2*A[1, 1]*x[1]",
    ]
    with pytest.raises(RuntimeError, match="subscript i is repeated for operand 0 but the sizes"):
        symgrad.einsum("ii", symgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match="does not match the number of dimensions"):
        symgrad.einsum("ij,jk", symgrad.ones(2), symgrad.ones(2, 2))
