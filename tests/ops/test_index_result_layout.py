"""The result of indexing by tensors is laid out as PyTorch lays it out: following the input's
memory order outside the indexed dimensions and the index's inside them, so the copies of
``x[:, 1, [0, 2]]``, ``x.t()[:, idx]`` or ``x.permute(0, 2, 1)[:, idx]`` are row by row
and ``.view`` works on them as in PyTorch (NumPy lays out the indexed dimensions first)."""

from __future__ import annotations

import pytest

import symgrad

CASES = {  # name -> the indexed tensor of x = arange(24).reshape(2, 3, 4)
    "select_then_index": lambda T, x: x[:, 1, [0, 2]],
    "transposed_columns": lambda T, x: x[0].t()[:, [0, 1]],
    "permuted": lambda T, x: x.permute(0, 2, 1)[:, [0, 2]],
    "transposed_rows": lambda T, x: x[0].t()[[0, 1, 3]],
    "transposed_index": lambda T, x: x[:, T.tensor([[0, 1], [2, 0]]).t()],
    "apart_on_transposed": lambda T, x: x.transpose(0, 2)[[0, 1], :, [1, 0]],
    "mask_of_permuted": lambda T, x: x.permute(2, 0, 1)[T.tensor([True, False, True, True])],
}
EXPECTED = {  # name -> (strides, whether .view(-1) works)
    "select_then_index": ((2, 1), True),
    "transposed_columns": ((2, 1), True),
    "permuted": ((6, 3, 1), True),
    "transposed_rows": ((3, 1), True),
    "transposed_index": ((16, 4, 8, 1), False),
    "apart_on_transposed": ((3, 1), True),
    "mask_of_permuted": ((6, 3, 1), True),
}


def _layout(T, name):
    x = T.arange(24.0).reshape(2, 3, 4)
    y = CASES[name](T, x)
    try:
        flat = y.view(-1).tolist()
    except RuntimeError:
        flat = None
    return tuple(y.stride()), y.is_contiguous(), flat, y.tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_index_result_strides(name):
    strides, contiguous, flat, values = _layout(symgrad, name)
    assert (strides, flat is not None) == EXPECTED[name]
    assert contiguous == EXPECTED[name][1]
    if flat is not None:
        assert flat == symgrad.tensor(values).reshape(-1).tolist()


@pytest.mark.torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch")
    assert _layout(symgrad, name) == _layout(torch, name)
