"""In-place shape methods: shapes, shared memory, version counters and PyTorch's node names;
``_is_view``."""

from __future__ import annotations

import pytest

import symgrad

CASES = [
    ("unsqueeze_", (0,), (2, 1, 3), (1, 2, 1, 3), "UnsqueezeBackward1"),
    ("unsqueeze_", (-1,), (2, 1, 3), (2, 1, 3, 1), "UnsqueezeBackward1"),
    ("squeeze_", (), (2, 1, 3), (2, 3), "SqueezeBackward3"),
    ("squeeze_", (1,), (2, 1, 3), (2, 3), "SqueezeBackward4"),
    ("squeeze_", (0,), (2, 1, 3), (2, 1, 3), "SqueezeBackward4"),
    ("squeeze_", ((0, 1),), (2, 1, 3), (2, 3), "SqueezeBackward5"),
    ("t_", (), (2, 3), (3, 2), "TBackward1"),
    ("t_", (), (6,), (6,), "TBackward1"),
    ("transpose_", (0, 2), (2, 1, 3), (3, 1, 2), "TransposeBackward1"),
    ("swapdims_", (0, 1), (2, 1, 3), (1, 2, 3), "TransposeBackward1"),
    ("swapaxes_", (0, 1), (2, 1, 3), (1, 2, 3), "TransposeBackward1"),
]


@pytest.mark.parametrize("method,args,shape,new_shape,node", CASES)
def test_shape_and_version(method, args, shape, new_shape, node):
    x = symgrad.arange(6.0).reshape(shape).clone()
    values = x.flatten().tolist()
    version = x._version
    assert getattr(x, method)(*args) is x
    assert x.shape == new_shape and x._version == version + 1
    assert sorted(x.flatten().tolist()) == sorted(values)


@pytest.mark.parametrize("method,args,shape,new_shape,node", CASES)
def test_recorded_with_pytorchs_node(method, args, shape, new_shape, node):
    a = symgrad.arange(6.0).reshape(shape).requires_grad_()
    x = a * 1
    getattr(x, method)(*args)
    assert type(x.grad_fn).__name__ == node
    assert type(x.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    (x * symgrad.arange(6.0).reshape(new_shape)).sum().backward()
    want = symgrad.arange(6.0).reshape(new_shape)
    assert a.grad.shape == shape
    assert sorted(a.grad.flatten().tolist()) == sorted(want.flatten().tolist())


def test_transpose_in_place_gradient_values():
    a = symgrad.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    x = a * 1
    x.t_()
    (x * symgrad.tensor([[10.0], [20.0], [30.0]])).sum().backward()
    assert a.grad.tolist() == [[10.0, 20.0, 30.0]]


def test_memory_stays_shared():
    b = symgrad.zeros(2, 3)
    flat = b.view(6)
    b.t_()
    b[0, 1] = 5.0
    assert flat.tolist() == [0.0, 0.0, 0.0, 5.0, 0.0, 0.0]
    assert b.shape == (3, 2) and not b.is_contiguous() and b.stride() == (1, 3)
    assert flat._version == b._version


def test_errors():
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        symgrad.ones(2, requires_grad=True).unsqueeze_(0)
    with pytest.raises(RuntimeError, match=r"t_\(\) expects a tensor with <= 2 dimensions"):
        symgrad.ones(2, 1, 3).t_()
    with pytest.raises(IndexError):
        symgrad.ones(2).unsqueeze_(5)
    a = symgrad.ones(2, requires_grad=True)
    y = a * 1
    z = y * y
    y.unsqueeze_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_is_view():
    x = symgrad.ones(2, 2)
    assert not x._is_view() and x[0]._is_view() and x.view(4)._is_view() and x.t()._is_view()
    assert not x.detach()._is_view() and not x.clone()._is_view()
    assert not x.t().reshape(4)._is_view()  # a copy, as PyTorch's _unsafe_view
    assert x.t().reshape(4)._base is None
    assert symgrad.swapdims(symgrad.ones(2, 3), 0, 1).shape == (3, 2)


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    for method, args, shape, _, _ in CASES:
        results = []
        for lib in (torch, symgrad):
            a = lib.arange(6.0).reshape(shape).requires_grad_()
            x = a * 1
            getattr(x, method)(*args)
            (x * lib.arange(6.0).reshape(x.shape)).sum().backward()
            results.append((tuple(x.shape), type(x.grad_fn).__name__, a.grad.tolist(), x.stride()))
        assert results[0] == results[1], method


SHAPE_CHANGES = [("unsqueeze_", (0,)), ("squeeze_", ()), ("t_", ()), ("transpose_", (0, -1))]


@pytest.mark.parametrize("method,args", SHAPE_CHANGES)
def test_a_view_of_a_leaf_that_requires_grad_is_refused(method, args):
    a = symgrad.ones(3, 4, requires_grad=True)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        getattr(a[0], method)(*args)
    with symgrad.no_grad():  # not recorded: allowed
        assert getattr(a[0], method)(*args).shape == getattr(symgrad.ones(4), method)(*args).shape


@pytest.mark.parametrize("method,args", SHAPE_CHANGES)
def test_a_piece_of_unbind_or_split_is_refused(method, args):
    y = symgrad.ones(3, 4, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="Output 1 of Unbind is a view and is being modified"):
        getattr(y.unbind(0)[1], method)(*args)
    with pytest.raises(RuntimeError, match="Output 0 of Split is a view and is being modified"):
        getattr(y.split(1, dim=1)[0], method)(*args)
    # a view of a tensor that needs no grad, and other views, change shape freely
    assert getattr(symgrad.ones(3, 4).unbind(0)[1], method)(*args).grad_fn is None
    assert getattr(y.diagonal(), method)(*args).requires_grad


@pytest.mark.parametrize("method,args", SHAPE_CHANGES)
def test_view_refusals_against_pytorch(method, args):
    torch = pytest.importorskip("torch")
    outcomes = []
    for lib in (torch, symgrad):
        a = lib.ones(3, 4, requires_grad=True)
        seen = []
        for make in (lambda a: a[0], lambda a: (a * 1).unbind(0)[0], lambda a: (a * 1)[0]):
            try:
                seen.append(tuple(getattr(make(a), method)(*args).shape))
            except RuntimeError as e:
                seen.append(str(e)[:70])  # (symgrad adds what to do after)
        outcomes.append(seen)
    assert outcomes[0] == outcomes[1]
