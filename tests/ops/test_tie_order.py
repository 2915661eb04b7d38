"""Which of several equal elements ``sort``, ``argsort``, ``topk``, ``kthvalue`` and ``median``
report: PyTorch's CPU kernels' choice (``std::sort`` past 16 elements, ``std::partial_sort``,
``std::nth_element``, PyTorch's quickselect), with the expected indices written out, and
(when PyTorch is installed) against PyTorch on random rows full of ties.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

NAN = float("nan")
ALTERNATING = [1.0, 0.0] * 10  # 20 elements: past std::sort's insertion-sort threshold


def test_sort_past_16_elements_is_not_stable():
    x = symgrad.tensor(ALTERNATING)
    expected = [1, 19, 17, 15, 13, 11, 9, 7, 5, 3, 8, 6, 10, 12, 4, 14, 16, 2, 18, 0]
    assert x.sort().indices.tolist() == expected
    assert x.argsort().tolist() == expected
    assert symgrad.argsort(x, descending=True).tolist() == [
        0, 2, 18, 4, 6, 16, 8, 10, 14, 12, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1,
    ]  # fmt: skip


def test_stable_sort_and_short_rows_keep_the_order_of_equal_elements():
    x = symgrad.tensor(ALTERNATING)
    assert x.sort(stable=True).indices.tolist() == list(range(1, 20, 2)) + list(range(0, 20, 2))
    assert symgrad.tensor([1.0, 0.0] * 8).sort().indices.tolist() == (
        list(range(1, 16, 2)) + list(range(0, 16, 2))
    )


def test_zero_and_negative_zero_are_equal():
    x = symgrad.tensor([0.0, -0.0] * 10)
    assert x.sort().indices.tolist() == [10, *range(19, 10, -1), 0, *range(9, 0, -1)]


def test_topk_and_kthvalue_with_ties():
    x = symgrad.tensor(ALTERNATING)
    assert x.topk(3).indices.tolist() == [10, 16, 8]
    assert x.topk(3, largest=False).indices.tolist() == [11, 13, 15]
    assert x.topk(8, sorted=False).indices.tolist() == [6, 12, 14, 10, 8, 16, 4, 18]
    assert x.kthvalue(4).indices.item() == 15
    ones = symgrad.ones(5)
    assert ones.topk(2).indices.tolist() == [2, 4]
    assert ones.kthvalue(2).indices.item() == 2


def test_topk_unsorted_keeps_nth_elements_order():
    assert symgrad.arange(20.0).topk(5, sorted=False).indices.tolist() == [18, 19, 17, 16, 15]


def test_topk_of_few_elements_of_a_long_row_is_a_partial_sort():
    y = symgrad.zeros(70)
    y[::7] = 1.0
    assert y.topk(1).indices.tolist() == [0]
    assert y.topk(1, largest=False).indices.tolist() == [1]


def test_median_reports_the_first_nan():
    x = symgrad.tensor([[1.0, NAN, 2.0, NAN], [1.0, 2.0, 3.0, 4.0]])
    found = x.median(1)
    assert found.indices.tolist() == [1, 1]
    assert np.isnan(found.values[0].item())
    leaf = symgrad.tensor([1.0, NAN, 2.0, NAN], requires_grad=True)
    m = leaf.median()
    m.backward()
    assert np.isnan(m.item())
    assert leaf.grad.tolist() == [0.0, 0.5, 0.0, 0.5]


def test_values_and_gradients_follow_the_indices():
    x = symgrad.tensor(ALTERNATING, requires_grad=True)
    values, indices = x.topk(3, largest=False)
    values.sum().backward()
    expected = np.zeros(20)
    expected[indices.numpy()] = 1.0
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def _rows(rng, trial):
    shape = tuple(int(v) for v in rng.integers(1, 4, int(rng.integers(1, 3))))
    n = int(rng.integers(1, 100))
    dim = int(rng.integers(0, len(shape) + 1))
    shape = shape[:dim] + (n,) + shape[dim:]
    data = rng.integers(0, int(rng.integers(1, 5)), shape)
    if trial % 4 == 0:
        data = data.astype(np.float64)
        data[rng.random(shape) < 0.15] = np.nan
    elif trial % 4 == 1:
        data = data.astype(np.float32) * np.where(rng.random(shape) < 0.5, -1, 1)
    elif trial % 4 == 3:
        data = data > 1
    return data, dim, n


def _calls(dim, n, boolean):
    """(name, call(module, tensor)) of every op whose indices are compared."""
    calls = [
        (f"sort {d}", lambda m, x, d=d: x.sort(dim=dim, descending=d).indices)
        for d in (False, True)
    ]
    calls.append(("argsort", lambda m, x: m.argsort(x, dim=dim, descending=True)))
    for k in sorted({1, 2, n // 3, n}):
        if 1 <= k <= n and not boolean:  # PyTorch has no topk or kthvalue of booleans
            calls += [
                (f"topk {k} {lg} {st}", lambda m, x, k=k, lg=lg, st=st: x.topk(k, dim, lg, st)[1])
                for lg in (True, False)
                for st in (True, False)
            ]
            calls.append((f"kthvalue {k}", lambda m, x, k=k: x.kthvalue(k, dim).indices))
    if not boolean:
        calls.append(("median", lambda m, x: x.median(dim).indices))
    return calls


def test_indices_match_pytorch_on_rows_full_of_ties():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(13)
    for trial in range(80):
        data, dim, n = _rows(rng, trial)
        t, s = torch.tensor(data), symgrad.tensor(data)
        for name, call in _calls(dim, n, data.dtype.kind == "b"):
            expected = call(torch, t).numpy()
            found = call(symgrad, s).numpy()
            np.testing.assert_array_equal(found, expected, err_msg=f"{name} of {data!r}")
