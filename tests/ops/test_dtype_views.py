"""Tensor.view(dtype): the memory read as another dtype, as PyTorch."""

import pytest

import symgrad


def test_same_size_reinterpretation_shares_memory():
    x = symgrad.tensor([1.0, 2.0], requires_grad=True)
    bits = x.view(symgrad.int32)
    assert bits.tolist() == [1065353216, 1073741824] and bits.dtype == symgrad.int32
    assert not bits.requires_grad and bits._base is None
    assert x.view(dtype=symgrad.int32).tolist() == bits.tolist()
    y = symgrad.zeros(2)
    z = y.view(symgrad.int32)
    z[0] = 1065353216
    assert y.tolist() == [1.0, 0.0] and y._version == z._version == 1


def test_size_changes_scale_the_last_dimension():
    x = symgrad.tensor([1.0, 2.0])
    assert x.view(symgrad.float64).shape == (1,)
    assert x.view(symgrad.float16).tolist() == [0.0, 1.875, 0.0, 2.0]
    assert x.view(symgrad.uint8).shape == (8,)
    assert symgrad.tensor(1.0).view(symgrad.int32).tolist() == 1065353216
    assert x.view(2, 1).shape == (2, 1)  # sizes still work


def test_errors():
    with pytest.raises(RuntimeError, match=r"self.stride\(-1\) must be 1"):
        symgrad.ones(3, 2).t().view(symgrad.float16)
    with pytest.raises(RuntimeError, match=r"self.size\(-1\) must be divisible by 2"):
        symgrad.ones(3).view(symgrad.float64)
    with pytest.raises(RuntimeError, match=r"self.dim\(\) cannot be 0"):
        symgrad.tensor(1.0).view(symgrad.int16)
    with pytest.raises(RuntimeError, match=r"storage_offset\(\) must be divisible by 2"):
        symgrad.arange(4.0)[1:3].view(symgrad.float64)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    data = [1.5, -2.0, 3.25, 0.0]
    for name in ("int32", "float16", "uint8", "float64", "int64", "int16"):
        ours = symgrad.tensor(data).view(getattr(symgrad, name))
        theirs = torch.tensor(data).view(getattr(torch, name))
        assert ours.tolist() == theirs.tolist(), name
        assert tuple(ours.shape) == tuple(theirs.shape), name
