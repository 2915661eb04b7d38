"""Constant padding with a nonzero value keeps the input's dtype (a Python float fill made
float32 padding float64)."""

import pytest

import symgrad
import symgrad.nn.functional as F


def test_nonzero_fill_keeps_the_dtype_and_gradient():
    x = symgrad.ones(2, requires_grad=True)
    y = F.pad(x, (1, 1), value=5.0)
    assert y.dtype == symgrad.float32 and y.tolist() == [5.0, 1.0, 1.0, 5.0]
    assert y.grad_fn.name() == "ConstantPadNdBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]
    assert F.pad(symgrad.ones(2, dtype=symgrad.float16), (0, 1), value=3.0).dtype == symgrad.float16
    assert F.pad(symgrad.tensor([1, 2]), (1, 1), value=7).tolist() == [7, 1, 2, 7]
    assert symgrad.nn.ConstantPad1d(2, 3.5)(symgrad.zeros(1, 2)).dtype == symgrad.float32


def test_matches_torch():
    torch = pytest.importorskip("torch")
    for dtype in ("float32", "float64", "int64"):
        ours = F.pad(symgrad.ones(1, 2, dtype=getattr(symgrad, dtype)), (1, 2), value=-1.5)
        theirs = torch.nn.functional.pad(
            torch.ones(1, 2, dtype=getattr(torch, dtype)), (1, 2), value=-1.5
        )
        assert ours.tolist() == theirs.tolist()
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
