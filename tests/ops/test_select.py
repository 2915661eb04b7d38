"""select(input, dim, index), function and method, as PyTorch."""

import pytest

import symgrad


def test_select_values_view_and_gradient():
    x = symgrad.arange(6.0).reshape(2, 3).requires_grad_()
    s = x.select(1, -1)
    assert s.tolist() == [2.0, 5.0] and s.grad_fn.name() == "SelectBackward0"
    assert symgrad.select(x, 0, 1).tolist() == [3.0, 4.0, 5.0]
    (x * 2).select(1, 0).sum().backward()
    assert x.grad.tolist() == [[2.0, 0.0, 0.0], [2.0, 0.0, 0.0]]


def test_select_errors():
    x = symgrad.ones(2, 3)
    with pytest.raises(IndexError, match=r"index 5 out of range for tensor of size \[2, 3\]"):
        x.select(1, 5)
    with pytest.raises(IndexError, match="at dimension 1"):
        x.select(-1, -4)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.select(2, 0)
    with pytest.raises(IndexError, match="0-dim"):
        symgrad.tensor(1.0).select(0, 0)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    data = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    for dim, index in ((0, 1), (1, -1), (-1, 0)):
        assert symgrad.tensor(data).select(dim, index).tolist() == (
            torch.tensor(data).select(dim, index).tolist()
        )
