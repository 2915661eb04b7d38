"""PyTorch's other spellings and small composites (symgrad.ops.aliases), the integer-first
order of mixed index keys, print profiles and the constants."""

import math

import pytest

import symgrad


def test_stacking_and_splitting():
    a, b = symgrad.tensor([1, 2]), symgrad.tensor([3, 4])
    assert symgrad.hstack([a, b]).tolist() == [1, 2, 3, 4]
    assert symgrad.vstack([a, b]).tolist() == [[1, 2], [3, 4]]
    assert symgrad.row_stack([a, b]).tolist() == [[1, 2], [3, 4]]
    assert symgrad.column_stack([a, b]).tolist() == [[1, 3], [2, 4]]
    assert symgrad.dstack([a, b]).tolist() == [[[1, 3], [2, 4]]]
    x = symgrad.arange(24.0).view(2, 3, 4)
    assert [t.shape[2] for t in x.tensor_split(3, dim=2)] == [2, 1, 1]
    assert [t.tolist() for t in symgrad.arange(6).tensor_split([1, 4])] == [[0], [1, 2, 3], [4, 5]]
    assert [t.shape for t in x.hsplit(3)] == [(2, 1, 4)] * 3
    with pytest.raises(RuntimeError):
        x.vsplit(3)


def test_where_condition_only_argwhere_take():
    x = symgrad.tensor([[0, 3], [5, 0]])
    rows, cols = symgrad.where(x > 0)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert symgrad.argwhere(x).tolist() == [[0, 1], [1, 0]]
    assert symgrad.take(x, symgrad.tensor([[3, 1]])).tolist() == [[0, 3]]
    with pytest.raises(IndexError):
        symgrad.take(x, symgrad.tensor([4]))


def test_addcmul_addcdiv_and_in_place():
    w = symgrad.tensor([1.0, 2.0], requires_grad=True)
    y = symgrad.addcmul(symgrad.ones(2), w, w, value=0.5)
    assert y.tolist() == [1.5, 3.0]
    y.sum().backward()
    assert w.grad.tolist() == [1.0, 2.0]
    z = symgrad.ones(2)
    z.addcdiv_(symgrad.tensor([1.0, 3.0]), symgrad.tensor([2.0, 2.0]), value=2)
    assert z.tolist() == [2.0, 4.0]
    with pytest.raises(RuntimeError):
        symgrad.addcdiv(z, symgrad.tensor([1]), symgrad.tensor([2]))


def test_method_aliases():
    x = symgrad.tensor([1.0, -2.0])
    assert x.type_as(symgrad.tensor([1], dtype=symgrad.float64)).dtype is symgrad.float64
    assert x.multiply(2).tolist() == [2.0, -4.0] and x.subtract(1).tolist() == [0.0, -3.0]
    assert x.divide(2).tolist() == [0.5, -1.0] and x.true_divide(2).tolist() == [0.5, -1.0]
    assert x.greater(0).tolist() == [True, False] and symgrad.less_equal(x, 1).tolist() == [
        True,
        True,
    ]
    assert x.negative().tolist() == [-1.0, 2.0] and symgrad.positive(x) is x
    assert x.outer(x).tolist() == [[1.0, -2.0], [-2.0, 4.0]]
    assert symgrad.ones(2, 3, 4).moveaxis(0, -1).shape == (3, 4, 2)
    assert symgrad.ones(2, 3).ravel().shape == (6,) and symgrad.ones(2, 3).ndimension() == 2
    b = symgrad.tensor([True, False])
    assert b.logical_and(symgrad.tensor([True, True])).tolist() == [True, False]
    assert b.clone().logical_or_(symgrad.tensor([False, True])).tolist() == [True, True]
    assert symgrad.isin(symgrad.tensor([1, 2, 3]), symgrad.tensor([2, 5])).tolist() == [
        False,
        True,
        False,
    ]
    nan = float("nan")
    assert symgrad.fmax(symgrad.tensor([1.0, nan]), symgrad.tensor([nan, 0.0])).tolist() == [
        1.0,
        0.0,
    ]
    assert symgrad.can_cast(symgrad.float32, symgrad.int32) is False
    assert symgrad.can_cast(symgrad.int64, symgrad.float16) is True


def test_layout_sizes_and_constants():
    x = symgrad.ones(2, 3)
    assert repr(x.layout) == "symgrad.strided" and x.is_cpu
    assert x.nbytes == 24 and x.itemsize == 4
    assert symgrad.pi == math.pi and symgrad.e == math.e and symgrad.inf == math.inf
    assert math.isnan(symgrad.nan) and symgrad.newaxis is None
    r = symgrad.randint_like(x, 3, 5)
    assert r.shape == (2, 3) and r.dtype is symgrad.float32 and bool(((r >= 3) & (r < 5)).all())


def test_integers_select_before_index_arrays():
    x = symgrad.arange(24.0).view(2, 3, 4).requires_grad_()
    y = x[0, :, [1, 3]]
    assert y.shape == (3, 2)
    assert y.tolist() == [[1.0, 3.0], [5.0, 7.0], [9.0, 11.0]]
    assert x[symgrad.tensor(1), :, [0]].shape == (3, 1)
    assert x[[0, 1], :, 0].shape == (2, 3)
    assert x[None, 0, :, symgrad.tensor([True, False, True, True])].shape == (1, 3, 3)
    y.sum().backward()
    assert x.grad[0].tolist() == [[0.0, 1.0, 0.0, 1.0]] * 3 and x.grad[1].sum().item() == 0


def test_print_profiles():
    symgrad.set_printoptions(profile="short")
    try:
        assert repr(symgrad.tensor([1.23456])) == "tensor([1.23])"
        symgrad.set_printoptions(profile="full")
        assert "..." not in repr(symgrad.arange(2000))
    finally:
        symgrad.set_printoptions(profile="default")
    assert repr(symgrad.tensor([1.23456])) == "tensor([1.2346])"
    symgrad.set_printoptions(profile="long")  # an unknown profile changes nothing, as PyTorch
    assert repr(symgrad.tensor([1.23456])) == "tensor([1.2346])"


def test_against_torch():
    torch = pytest.importorskip("torch")
    import numpy as np

    data = np.arange(24.0).reshape(2, 3, 4)
    for key in [(0, slice(None), [1, 3]), ([0, 1], slice(None), 0), (Ellipsis, 1, [0, 2])]:
        ours = symgrad.tensor(data)[key]
        theirs = torch.tensor(data)[key]
        assert ours.shape == tuple(theirs.shape) and np.array_equal(ours.numpy(), theirs.numpy())
    for name in ["hstack", "vstack", "dstack", "column_stack"]:
        ours = getattr(symgrad, name)([symgrad.tensor(data[0]), symgrad.tensor(data[1])])
        theirs = getattr(torch, name)([torch.tensor(data[0]), torch.tensor(data[1])])
        assert np.array_equal(ours.numpy(), theirs.numpy())
    for n in [1, 2, 3, 5, [1, 2], [3, 1]]:
        ours = [t.numpy() for t in symgrad.tensor(data).tensor_split(n, dim=2)]
        theirs = [t.numpy() for t in torch.tensor(data).tensor_split(n, dim=2)]
        assert len(ours) == len(theirs) and all(np.array_equal(a, b) for a, b in zip(ours, theirs))


def test_data_ptr_bool_subtraction_and_integer_spread():
    x = symgrad.arange(24.0).view(2, 3, 4)
    assert x.view(3, 8).data_ptr() == x.data_ptr()
    assert x[1].data_ptr() - x.data_ptr() == 48
    assert x.clone().data_ptr() != x.data_ptr()
    mask = symgrad.tensor([True, False])
    for bad in (lambda: 1 - mask, lambda: mask - mask, lambda: symgrad.tensor([1, 2]) - True):
        with pytest.raises(RuntimeError, match="bool tensor"):
            bad()
    assert (1 - mask.float()).tolist() == [0.0, 1.0] and (~mask).tolist() == [False, True]
    with pytest.raises(RuntimeError, match="floating point"):
        symgrad.tensor([1, 2]).std()
    with pytest.raises(RuntimeError, match="floating point"):
        symgrad.tensor([1, 2]).var(0)
