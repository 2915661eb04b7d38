"""The in-place fused products (``addmm_``, ``addmv_``, ``addr_``, ``baddbmm_``, ``addbmm_``):
values, version counter, PyTorch's nodes over the tensor's history, errors, gradients of first
and second order, and ``addbmm_``'s resizing of a broadcast tensor."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

# name -> shapes of self, the first and the second factor
SHAPES = {
    "addmm_": [(2, 4), (2, 3), (3, 4)],
    "addmv_": [(2,), (2, 3), (3,)],
    "addr_": [(2, 3), (2,), (3,)],
    "baddbmm_": [(5, 2, 4), (5, 2, 3), (5, 3, 4)],
    "addbmm_": [(2, 4), (5, 2, 3), (5, 3, 4)],
}
NODES = {
    "addmm_": "AddmmBackward0",
    "addmv_": "AddmvBackward0",
    "addr_": "AddrBackward0",
    "baddbmm_": "BaddbmmBackward0",
    "addbmm_": "AddbmmBackward0",
}


def _operands(T, name, flags="TTT"):
    rng = np.random.default_rng(len(name))
    return [
        T.tensor(rng.standard_normal(s), dtype=T.float64, requires_grad=f == "T")
        for s, f in zip(SHAPES[name], flags)
    ]


def _names(fn):
    return [None if f is None else type(f).__name__ for f, _ in fn.next_functions]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_in_place_records_the_ops_node_over_the_history(name):
    a, m1, m2 = _operands(symgrad, name)
    x = a.clone()
    version = x._version
    assert getattr(x, name)(m1, m2, beta=0.5, alpha=2.0) is x
    assert x._version == version + 1
    assert type(x.grad_fn).__name__ == NODES[name]
    assert _names(x.grad_fn) == ["CloneBackward0", "AccumulateGrad", "AccumulateGrad"]
    out_of_place = getattr(symgrad, name[:-1])(a, m1, m2, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(x.detach().numpy(), out_of_place.detach().numpy())


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_in_place_without_grad_writes_the_memory(name):
    a, m1, m2 = _operands(symgrad, name, "FFF")
    memory, expected = a.numpy(), getattr(symgrad, name[:-1])(a, m1, m2, alpha=-1.0).numpy()
    getattr(a, name)(m1, m2, alpha=-1.0)
    assert a._version == 1 and a.grad_fn is None
    np.testing.assert_allclose(memory, expected)  # the same array, changed


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_in_place_of_a_leaf_requiring_grad_raises(name):
    a, m1, m2 = _operands(symgrad, name, "TFF")
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used"):
        getattr(a, name)(m1, m2)
    with symgrad.no_grad():
        getattr(a, name)(m1, m2)  # a parameter update
    assert a.grad_fn is None and a._version == 1


def test_values_and_gradients():
    a = symgrad.tensor([[1.0, 2.0]], requires_grad=True)
    b1 = symgrad.tensor([[[1.0], [2.0]], [[3.0], [4.0]]]).transpose(1, 2).requires_grad_()
    b2 = symgrad.tensor([[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]], requires_grad=True)
    x = a * 1
    x.addbmm_(b1, b2, beta=2.0, alpha=0.5)  # 2 * [1, 2] + 0.5 * ([1, 2] + [6, 8])
    assert x.tolist() == [[5.5, 9.0]]
    (x * x).sum().backward()
    assert a.grad.tolist() == [[22.0, 36.0]]
    assert b1.grad.tolist() == [[[5.5, 9.0]], [[11.0, 18.0]]]
    assert b2.grad.tolist() == [[[5.5, 9.0], [11.0, 18.0]], [[16.5, 27.0], [22.0, 36.0]]]


# self's shape, the factors' shapes, PyTorch's message
SHAPE_ERRORS = {
    "addmm_": ([4], [(2, 3), (3, 4)], r"Bad in-place call: input tensor size \[4\] and output"),
    "addmv_": ([1], [(2, 3), (3,)], r"input tensor size \[1\] and output tensor size \[2\]"),
    "addr_": ([1, 1], [(2,), (3,)], r"size mismatch, input: \[1, 1\], v1: \[2\], v2: \[3\]"),
    "addr_1d": ([3], [(2,), (3,)], "2D tensor expected, got 1D tensor for input"),
    "baddbmm_": ([2, 4], [(5, 2, 3), (5, 3, 4)], r"size \[2, 4\] and output tensor size \[5,"),
    "addbmm_": ([8], [(5, 2, 3), (5, 3, 4)], r"The expanded size of the tensor \(4\) must"),
}


@pytest.mark.parametrize("case", sorted(SHAPE_ERRORS))
def test_shape_errors(case):
    shape, factors, message = SHAPE_ERRORS[case]
    with pytest.raises(RuntimeError, match=message):
        getattr(symgrad.ones(*shape), case.removesuffix("1d"))(*[symgrad.ones(*s) for s in factors])


def test_addbmm_resizes_a_broadcast_tensor():
    a = symgrad.full((1, 1), 2.0, requires_grad=True)
    x = a.clone()
    x.addbmm_(symgrad.ones(5, 2, 3), symgrad.ones(5, 3, 4), beta=3.0)
    assert x.shape == (2, 4) and x._version == 1
    assert x.tolist() == [[21.0] * 4] * 2
    x.sum().backward()
    assert a.grad.tolist() == [[24.0]]
    y = symgrad.ones(4)
    y.addbmm_(symgrad.ones(5, 2, 3), symgrad.ones(5, 3, 4))
    assert y.tolist() == [[16.0] * 4] * 2
    v = symgrad.ones(3, 1, 1)[0]
    with pytest.raises(RuntimeError, match="would be resized"):
        v.addbmm_(symgrad.ones(5, 2, 3), symgrad.ones(5, 3, 4))


# -- against PyTorch ------------------------------------------------------------------------------


def _run(T, name, flags):
    a, m1, m2 = _operands(T, name, flags)
    x = a.clone() if a.requires_grad else a
    getattr(x, name)(m1, m2, beta=-0.5, alpha=1.5)
    leaves = [t for t in (a, m1, m2) if t.requires_grad]
    v = T.tensor(np.linspace(-1, 1, x.numel()).reshape(x.shape), dtype=T.float64)
    first = T.autograd.grad((x * x * v).sum(), leaves, create_graph=True)
    second = T.autograd.grad(sum((g * g).sum() for g in first), leaves, allow_unused=True)
    return x, [x, *first, *second]


@pytest.mark.parametrize("flags", ["TTT", "FTT", "TFT"])
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_against_pytorch(name, flags):
    torch = pytest.importorskip("torch")
    (x, ours), (y, theirs) = _run(symgrad, name, flags), _run(torch, name, flags)
    assert type(x.grad_fn).__name__ == type(y.grad_fn).__name__
    assert _names(x.grad_fn) == _names(y.grad_fn)
    assert x._version == y._version
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None or not a.detach().numpy().any()
            continue
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", sorted(SHAPE_ERRORS))
def test_shape_errors_against_pytorch(case):
    torch = pytest.importorskip("torch")
    shape, factors, message = SHAPE_ERRORS[case]
    with pytest.raises(RuntimeError, match=message):
        getattr(torch.ones(*shape), case.removesuffix("1d"))(*[torch.ones(*s) for s in factors])


def test_addbmm_resizing_against_pytorch():
    torch = pytest.importorskip("torch")
    results = []
    for T in (symgrad, torch):
        a = T.tensor([[2.0]], dtype=T.float64, requires_grad=True)
        m = T.tensor(np.arange(30.0).reshape(5, 2, 3), dtype=T.float64, requires_grad=True)
        x = a.clone()
        x.addbmm_(m, T.ones(5, 3, 4, dtype=T.float64), beta=3.0, alpha=-1.0)
        (x * x).sum().backward()
        results.append([x.detach().numpy(), a.grad.numpy(), m.grad.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs)


# -- out= -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_out_keyword(name):
    a, m1, m2 = _operands(symgrad, name, "FFF")
    fn = getattr(symgrad, name[:-1])
    out = symgrad.empty(0, dtype=symgrad.float64)
    assert fn(a, m1, m2, beta=0.5, alpha=2.0, out=out) is out
    assert out.tolist() == fn(a, m1, m2, beta=0.5, alpha=2.0).tolist()
    assert out._version == 1
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        fn(a, m1.requires_grad_(), m2, out=out)


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_out_keyword_against_pytorch(name):
    torch = pytest.importorskip("torch")
    results = []
    for T in (symgrad, torch):
        a, m1, m2 = _operands(T, name, "FFF")
        out = T.empty(0, dtype=T.float64)
        getattr(T, name[:-1])(a, m1, m2, beta=0.5, alpha=2.0, out=out)
        results.append(out.numpy())
    np.testing.assert_allclose(*results)
