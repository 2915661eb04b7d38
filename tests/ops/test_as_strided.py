"""as_strided: views of a tensor's memory by sizes, strides and offset, with
AsStridedBackward0 gradients (adding up where strides overlap)."""

import numpy as np
import pytest

import symgrad


def test_values_share_memory_and_strides():
    x = symgrad.arange(6.0)
    v = symgrad.as_strided(x, (2, 2), (1, 2))
    assert v.tolist() == [[0.0, 2.0], [1.0, 3.0]]
    assert v.stride() == (1, 2) and v._base is x and not v.is_contiguous()
    assert x.as_strided((3,), (2,), 1).tolist() == [1.0, 3.0, 5.0]
    w = symgrad.zeros(6)
    w.as_strided((2,), (3,), 1).fill_(7.0)
    assert w.tolist() == [0.0, 7.0, 0.0, 0.0, 7.0, 0.0]
    m = symgrad.arange(12.0).reshape(3, 4)
    # strides and offset count elements of the memory, not of the (row) view
    assert m[1].as_strided((2, 2), (4, 1)).tolist() == [[4.0, 5.0], [8.0, 9.0]]
    assert m.t().as_strided((2, 3), (1, 4)).tolist() == [[0.0, 4.0, 8.0], [1.0, 5.0, 9.0]]
    assert symgrad.as_strided(symgrad.ones(3), (0,), (1,)).shape == (0,)


def test_gradients_add_up_where_strides_overlap():
    a = symgrad.arange(6.0, requires_grad=True)
    s = a.as_strided((2, 2), (1, 2))
    assert s.grad_fn.name() == "AsStridedBackward0"
    s.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0, 1.0, 0.0, 0.0]
    b = symgrad.arange(4.0, requires_grad=True)
    windows = b.as_strided((3, 2), (1, 1))
    (windows * symgrad.arange(6.0).reshape(3, 2)).sum().backward()
    assert b.grad.tolist() == [0.0, 3.0, 7.0, 5.0]
    y = symgrad.arange(6.0, requires_grad=True) * 2
    z = y.as_strided((2, 2), (2, 1), 1)
    assert z.tolist() == [[2.0, 4.0], [6.0, 8.0]]


def test_errors():
    a = symgrad.arange(6.0)
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
        a.as_strided((10,), (1,))
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        a.as_strided((2,), (-1,))
    with pytest.raises(RuntimeError, match="mismatch in length of strides and shape"):
        a.as_strided((2, 2), (1,))
    with pytest.raises(RuntimeError, match="invalid storage offset -1"):
        a.as_strided((2,), (1,), -1)


def test_matches_torch():
    torch = pytest.importorskip("torch")
    cases = [((2, 3), (1, 2), 0), ((3, 2), (1, 1), 1), ((2, 2), (3, 0), 2), ((4,), (2,), None)]
    weights = np.arange(1.0, 7.0)
    for size, stride, offset in cases:
        ours = symgrad.arange(8.0, requires_grad=True)
        theirs = torch.arange(8.0, requires_grad=True)
        o = ours.as_strided(size, stride, offset)
        t = theirs.as_strided(size, stride, offset)
        assert o.tolist() == t.tolist()
        assert o.stride() == t.stride() and o.storage_offset() == t.storage_offset()
        w = weights[: int(np.prod(size))].reshape(size)
        (o * symgrad.tensor(w, dtype=symgrad.float32)).sum().backward()
        (t * torch.tensor(w, dtype=torch.float32)).sum().backward()
        assert ours.grad.tolist() == theirs.grad.tolist()
