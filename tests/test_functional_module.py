"""``symgrad.functional`` (PyTorch's ``torch.functional``) and the helpers it adds:
``atleast_1d``/``2d``/``3d``, ``broadcast_shapes``, ``unravel_index``."""

from __future__ import annotations

import importlib

import pytest

import symgrad


def test_importable_with_pytorchs_names():
    F = importlib.import_module("symgrad.functional")
    assert symgrad.functional is F
    names = ("einsum", "norm", "split", "meshgrid", "tensordot", "unique", "unique_consecutive")
    extras = ("block_diag", "cartesian_prod", "cdist", "chain_matmul")
    for name in (*names, *extras, "broadcast_tensors", "atleast_2d", "unravel_index"):
        assert getattr(F, name) is getattr(symgrad, name)
    x = symgrad.tensor([1.0, 2.0])
    assert F.einsum("i,i->", x, x).item() == 5.0
    with pytest.raises(AttributeError, match="stft is not supported by symgrad"):
        F.stft  # noqa: B018


@pytest.mark.parametrize(
    "fn,shape,node",
    [
        (symgrad.atleast_1d, (), "ViewBackward0"),
        (symgrad.atleast_2d, (), "ViewBackward0"),
        (symgrad.atleast_2d, (3,), "UnsqueezeBackward0"),
        (symgrad.atleast_3d, (), "ViewBackward0"),
        (symgrad.atleast_3d, (3,), "UnsqueezeBackward0"),
        (symgrad.atleast_3d, (2, 3), "UnsqueezeBackward0"),
    ],
)
def test_atleast_shapes_and_nodes(fn, shape, node):
    x = symgrad.ones(shape, requires_grad=True)
    out = fn(x)
    assert out.ndim == max(len(shape), int(fn.__name__[-2]))
    assert type(out.grad_fn).__name__ == node
    out.sum().backward()
    assert x.grad.shape == shape


def test_atleast_values():
    assert symgrad.atleast_3d(symgrad.ones(3)).shape == (1, 3, 1)
    assert symgrad.atleast_3d(symgrad.ones(2, 3)).shape == (2, 3, 1)
    x = symgrad.ones(2, 3, 4)
    assert symgrad.atleast_3d(x) is x
    shapes = [t.shape for t in symgrad.atleast_1d([symgrad.tensor(1.0), symgrad.ones(2)])]
    assert shapes == [(1,), (2,)]
    with pytest.raises(TypeError, match="expects tensors"):
        symgrad.atleast_1d(3)


def test_broadcast_shapes():
    assert symgrad.broadcast_shapes((2, 1), (3,)) == (2, 3)
    assert symgrad.broadcast_shapes(2, (3, 1)) == (3, 2)
    assert symgrad.broadcast_shapes() == ()
    with pytest.raises(RuntimeError, match=r"\[2\], \[3\] don't broadcast"):
        symgrad.broadcast_shapes((2,), (3,))


def test_unravel_index():
    rows, cols = symgrad.unravel_index(symgrad.tensor([4, 7, 9, -1]), (3, 3))
    assert rows.tolist() == [1, 2, 0, 2] and cols.tolist() == [1, 1, 0, 2]  # wrapping as PyTorch
    assert [t.tolist() for t in symgrad.unravel_index(symgrad.tensor(5), (2, 3))] == [1, 2]
    assert symgrad.unravel_index(symgrad.tensor([[1, 5]]), (2, 3))[0].shape == (1, 2)
    with pytest.raises(TypeError, match="integer dtype"):
        symgrad.unravel_index(symgrad.tensor([1.0]), (3, 3))
    with pytest.raises(ValueError, match="negative"):
        symgrad.unravel_index(symgrad.tensor([1]), (3, -3))


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    idx = [0, 5, 11, 23, -7, 30]
    want = torch.unravel_index(torch.tensor(idx), (2, 3, 4))
    got = symgrad.unravel_index(symgrad.tensor(idx), (2, 3, 4))
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
    for shape in [(), (3,), (2, 3), (2, 3, 4)]:
        for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
            w = getattr(torch, name)(torch.ones(shape, requires_grad=True))
            g = getattr(symgrad, name)(symgrad.ones(shape, requires_grad=True))
            assert tuple(g.shape) == tuple(w.shape)
            assert type(g.grad_fn).__name__ == type(w.grad_fn).__name__
