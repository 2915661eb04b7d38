"""``vmap`` over in-place writes (the scatter family, ``index_*_``, ``index_put_`` and
``x[key] = v``, ``masked_fill_``), per-element boolean masks and ``one_hot``.

A write into a batched tensor runs once on the whole batch (no loop warning), equal to the
per-element loop and to ``torch.func.vmap`` when PyTorch is installed, values and per-sample
gradients ``vmap(grad(...))``. Where PyTorch refuses (a batch written into an unbatched tensor,
a result whose shape depends on each element's values), symgrad raises the same error."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad import func
from symgrad.nn import functional as F

try:  # tests/ is on sys.path when pytest imports the test packages from their root directory
    from autograd.test_vmap_selection import B, R, _ints, _unique_rows
except ImportError:  # tests/ made a package itself
    from tests.autograd.test_vmap_selection import B, R, _ints, _unique_rows


def _written(write):
    """A function of ``(T, x, i)``: a copy of ``x`` (not a leaf, so it may change in place)
    changed by ``write(T, y, x, i)``, returned."""

    def fn(T, x, i):
        y = x * 1
        write(T, y, x, i)
        return y

    return fn


def _setitem(key, value):
    def write(T, y, x, i):
        y[key(T, i)] = value(T, x)

    return write


# name -> (function of (T, x, i) for T symgrad or torch, x of one element's shape, i maker)
WRITES = {
    "scatter_": (
        _written(lambda T, y, x, i: y.scatter_(1, i, x[:, :2] * 2)),
        (3, 4),
        lambda b: _unique_rows(4, 2, 3, b),
    ),
    "scatter_value": (
        _written(lambda T, y, x, i: y.scatter_(1, i, 0.5)),
        (3, 4),
        lambda b: _unique_rows(4, 2, 3, b),
    ),
    "scatter_add_": (
        _written(lambda T, y, x, i: y.scatter_add_(1, i, x[:, :2].exp())),
        (3, 4),
        lambda b: _ints(4, (3, 2), b),
    ),
    "scatter_reduce_sum": (
        _written(lambda T, y, x, i: y.scatter_reduce_(0, i, x[:2] * 3, "sum")),
        (3, 4),
        lambda b: _ints(3, (2, 4), b),
    ),
    "scatter_reduce_amax": (
        _written(lambda T, y, x, i: y.scatter_reduce_(0, i, x[:2] * 3, "amax")),
        (3, 4),
        lambda b: _ints(3, (2, 4), b),
    ),
    "scatter_reduce_mean_without_self": (
        _written(
            lambda T, y, x, i: y.scatter_reduce_(1, i, x[:, 1:] ** 2, "mean", include_self=False)
        ),
        (3, 4),
        lambda b: _ints(4, (3, 3), b),
    ),
    "index_add_": (
        _written(lambda T, y, x, i: y.index_add_(0, i, x[:2] * 3, alpha=2)),
        (3, 4),
        lambda b: _ints(3, (2,), b),
    ),
    "index_copy_": (
        _written(lambda T, y, x, i: y.index_copy_(1, i, x[:, 1:3].cos())),
        (3, 4),
        lambda b: _unique_rows(4, 2, 1, b)[..., 0, :],
    ),
    "index_fill_": (
        _written(lambda T, y, x, i: y.index_fill_(1, i, -1.0)),
        (3, 4),
        lambda b: _ints(4, (2,), b),
    ),
    "index_fill_tensor_value": (
        _written(lambda T, y, x, i: y.index_fill_(0, i, x.sum())),
        (3, 4),
        lambda b: np.array([[1, 1, 0], [2, 0, 2], [0, 1, 1]] if b else [1, 1, 0]),  # repeats
    ),
    "index_put_": (
        _written(lambda T, y, x, i: y.index_put_((i,), x[:2] * 2)),
        (3, 4),
        lambda b: _unique_rows(3, 2, 1, b)[..., 0, :],
    ),
    "index_put_accumulate": (
        _written(lambda T, y, x, i: y.index_put_((i,), x[:3, 1:2].sin(), accumulate=True)),
        (3, 4),
        lambda b: _ints(3, (3,), b),
    ),
    "index_put_two_indices": (
        _written(lambda T, y, x, i: y.index_put_((i, T.tensor([0, 3])), x[0, :2])),
        (3, 4),
        lambda b: _unique_rows(3, 2, 1, b)[..., 0, :],
    ),
    "setitem_rows": (
        _written(_setitem(lambda T, i: i, lambda T, x: x[:2] * 2)),
        (3, 4),
        lambda b: _unique_rows(3, 2, 1, b)[..., 0, :],
    ),
    "setitem_columns_number": (
        _written(_setitem(lambda T, i: (slice(None), i), lambda T, x: 5.0)),
        (3, 4),
        lambda b: _ints(4, (2,), b),
    ),
    "setitem_int_and_index": (
        _written(_setitem(lambda T, i: (1, i), lambda T, x: x[0, :2].exp())),
        (3, 4),
        lambda b: _unique_rows(4, 2, 1, b)[..., 0, :],
    ),
    "setitem_broadcast_value": (
        _written(_setitem(lambda T, i: i, lambda T, x: x[2])),
        (3, 4),
        lambda b: _ints(3, (1,), b),
    ),
    "masked_fill_by_index": (
        _written(lambda T, y, x, i: y.masked_fill_(i > 1, -2.0)),
        (3, 4),
        lambda b: _ints(4, (3, 4), b),
    ),
    "masked_fill_value_of_x": (
        _written(lambda T, y, x, i: y.masked_fill_(i == 0, x.sum())),
        (3, 4),
        lambda b: _ints(2, (3, 4), b),
    ),
}
# the written tensor is x's copy, so x is batched in both modes
IN_DIMS = {"both": (0, 0), "data": (0, None)}


def _inputs(name, mode):
    _, shape, index = WRITES[name]
    x = R.normal(size=(B,) + shape)
    return x, index(IN_DIMS[mode][1] == 0)


def _loop(fn, args, in_dims):
    picks = [[a if d is None else a[k] for a, d in zip(args, in_dims)] for k in range(B)]
    return symgrad.stack([fn(*p) for p in picks])


@pytest.mark.parametrize("mode", sorted(IN_DIMS))
@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_equals_the_loop(name, mode, no_loop):
    x, i = _inputs(name, mode)
    fn, in_dims = WRITES[name][0], IN_DIMS[mode]
    args = (symgrad.tensor(x), symgrad.tensor(i))

    def ours(x, i):
        return fn(symgrad, x, i)

    batched = func.vmap(ours, in_dims=in_dims)(*args)
    np.testing.assert_allclose(batched.numpy(), _loop(ours, args, in_dims).numpy(), atol=1e-12)
    loss = func.grad(lambda *a: ours(*a).sin().sum())
    grads = func.vmap(loss, in_dims=in_dims)(*args)
    np.testing.assert_allclose(grads.numpy(), _loop(loss, args, in_dims).numpy(), atol=1e-12)


@pytest.mark.parametrize("mode", sorted(IN_DIMS))
@pytest.mark.parametrize("name", sorted(WRITES))
def test_write_is_pytorchs(name, mode):
    torch = pytest.importorskip("torch")
    x, i = _inputs(name, mode)
    fn, in_dims = WRITES[name][0], IN_DIMS[mode]
    args, targs = (symgrad.tensor(x), symgrad.tensor(i)), (torch.tensor(x), torch.tensor(i))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's own fallbacks warn about speed
        theirs = torch.func.vmap(lambda x, i: fn(torch, x, i), in_dims=in_dims)(*targs)
        theirs_grad = torch.func.vmap(
            torch.func.grad(lambda x, i: fn(torch, x, i).sin().sum()), in_dims=in_dims
        )(*targs)
    ours = func.vmap(lambda x, i: fn(symgrad, x, i), in_dims=in_dims)(*args)
    ours_grad = func.vmap(func.grad(lambda x, i: fn(symgrad, x, i).sin().sum()), in_dims=in_dims)(
        *args
    )
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)
    np.testing.assert_allclose(ours_grad.numpy(), theirs_grad.numpy(), atol=1e-12)


def test_writes_give_plain_values(no_loop):
    rows = symgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    index = symgrad.tensor([[2, 0], [1, 1]])

    def scatter(r, i):
        y = r.clone()
        return y.scatter_(0, i, symgrad.tensor([10.0, 20.0]))

    assert func.vmap(scatter)(rows, index).tolist() == [[20.0, 2.0, 10.0], [4.0, 20.0, 6.0]]

    def added(r, i):
        y = r.clone()
        y.index_add_(0, i, symgrad.ones(2))
        return y

    assert func.vmap(added)(rows, index).tolist() == [[2.0, 2.0, 4.0], [4.0, 7.0, 6.0]]

    def put(r, i):
        y = r.clone()
        y[i] = r[:2] * 10
        return y

    assert func.vmap(put)(rows, index).tolist() == [[20.0, 2.0, 10.0], [4.0, 50.0, 6.0]]

    def filled(r):
        y = r.clone()
        return y.masked_fill_(r > 2.5, 0.0)

    assert func.vmap(filled)(rows).tolist() == [[1.0, 2.0, 0.0], [0.0, 0.0, 0.0]]
    # per-sample gradients through the write: the overwritten entries get none
    grads = func.vmap(func.grad(lambda r, i: (scatter(r, i) * r).sum()))(rows, index)
    assert grads.tolist() == [[20.0, 4.0, 10.0], [8.0, 20.0, 12.0]]


def test_a_batched_write_changes_the_mapped_input(no_loop):
    x = symgrad.zeros(2, 3)
    index = symgrad.tensor([[0], [2]])
    func.vmap(lambda r, i: r.scatter_(0, i, 1.0))(x, index)
    assert x.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    func.vmap(lambda r: r.add_(1.0).mul_(2.0), in_dims=1)(x)
    assert x.tolist() == [[4.0, 2.0, 2.0], [2.0, 2.0, 4.0]]


def test_writes_into_views_of_a_batched_tensor(no_loop):
    x = symgrad.tensor(R.normal(size=(B, 3, 4)))
    i = symgrad.tensor(_ints(3, (2,)))

    def fn(a, j):
        y = a * 2
        y[1].index_fill_(0, j, 0.0)
        y[:, 0].scatter_add_(0, j, a[0, :2])
        return y

    batched = func.vmap(fn)(x, i)
    np.testing.assert_allclose(batched.numpy(), _loop(fn, (x, i), (0, 0)).numpy())
    loss = func.grad(lambda a, j: fn(a, j).cos().sum())
    np.testing.assert_allclose(
        func.vmap(loss)(x, i).numpy(), _loop(loss, (x, i), (0, 0)).numpy(), atol=1e-12
    )


def test_nested_vmaps_write_at_both_levels(no_loop):
    x = symgrad.tensor(R.normal(size=(2, 3, 4)))
    i = symgrad.tensor(_ints(4, (2,))[:2])  # one vector of indices per outer element

    def inner(r, j):
        y = r * 1
        y.index_fill_(0, j, -1.0)
        y[j] = r[:2] * 3
        return y

    out = func.vmap(func.vmap(inner, in_dims=(0, None)))(x, i)
    expected = symgrad.stack([symgrad.stack([inner(r, i[a]) for r in x[a]]) for a in range(2)])
    np.testing.assert_allclose(out.numpy(), expected.numpy())


def test_jacobians_inside_vmap_through_writes(no_loop):
    x = symgrad.tensor(R.normal(size=(B, 4)))
    i = symgrad.tensor(_unique_rows(4, 2, 1)[:, 0, :])

    def f(a, j):
        y = a * 1
        y.scatter_add_(0, j, a[:2].exp())
        y[j] = a[:2] ** 2
        y.index_put_((j,), a[2:] * 3, accumulate=True)
        y.masked_fill_(a > 0.5, 0.25)
        return y.sin()

    def g(a, j):
        return f(a, j).sum()

    for transform, fn in ((func.jacrev, f), (func.jacfwd, f), (func.hessian, g)):
        batched = func.vmap(transform(fn))(x, i)
        loop = symgrad.stack([transform(fn)(a, j) for a, j in zip(x, i)])
        np.testing.assert_allclose(batched.numpy(), loop.numpy(), atol=1e-12)


def _assigned(key, value):
    def fn(T, x):
        y = x * 1
        y[key] = value(T, x)
        return y

    return fn


# name -> function of (T, x) for a batched x of shape (B, 2, 4): other writes into a batched copy
OTHER_WRITES = {
    "fill_by_a_value_of_x": lambda T, x: (x * 1).fill_(x.sum()),
    "zero_": lambda T, x: (x * 1).zero_() + x,
    "zero_of_a_view": lambda T, x: (lambda y: (y[0].zero_(), y)[1])(x * 2),
    "copy_": lambda T, x: (x * 1).copy_(x.flip(0)),
    "copy_unbatched": lambda T, x: (x * 1).copy_(T.ones(4, dtype=T.float64)),
    "assign_everything": _assigned(Ellipsis, lambda T, x: x.exp()),
    "assign_slice_a_number": _assigned((slice(None), slice(1, 3)), lambda T, x: 2.0),
    "assign_a_0d_value": _assigned(Ellipsis, lambda T, x: x[0, 0]),
    "clamp_": lambda T, x: (x * 1).clamp_(min=x.mean()),
    "add_alpha": lambda T, x: (x * 1).add_(x.cos(), alpha=2),
    "integer_index_put": lambda T, x: (
        T.zeros(4, dtype=T.int64).index_put((x[0].argsort()[:2],), T.tensor([5, 7])) * x
    ),
}


@pytest.mark.parametrize("name", sorted(OTHER_WRITES))
def test_other_writes_equal_the_loop(name, no_loop):
    fn = OTHER_WRITES[name]
    x = symgrad.tensor(R.normal(size=(B, 2, 4)))
    batched = func.vmap(lambda x: fn(symgrad, x))(x)
    np.testing.assert_allclose(batched.numpy(), _loop(lambda x: fn(symgrad, x), (x,), (0,)).numpy())
    loss = func.grad(lambda x: fn(symgrad, x).sin().sum())
    np.testing.assert_allclose(
        func.vmap(loss)(x).numpy(), _loop(loss, (x,), (0,)).numpy(), atol=1e-12
    )


@pytest.mark.parametrize("name", sorted(OTHER_WRITES))
def test_other_writes_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn = OTHER_WRITES[name]
    x = R.normal(size=(B, 2, 4))
    ours = func.vmap(lambda x: fn(symgrad, x))(symgrad.tensor(x))
    theirs = torch.func.vmap(lambda x: fn(torch, x))(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)
    ours = func.vmap(func.grad(lambda x: fn(symgrad, x).sin().sum()))(symgrad.tensor(x))
    theirs = torch.func.vmap(torch.func.grad(lambda x: fn(torch, x).sin().sum()))(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)


# -- PyTorch's refusals ----------------------------------------------------------------------------
XU = np.arange(12.0).reshape(3, 4)
IDX = np.array([[[0, 1], [2, 3], [1, 0]]] * B)
ROWS = np.array([[0, 2]] * B)
X = np.arange(B * 12.0).reshape(B, 3, 4)


def _put(T, key, value):
    y = T.tensor(XU)
    y[key] = value
    return y


# name -> (function of (T, a), the batched argument a, start of PyTorch's message)
REFUSED = {
    "scatter_index": (
        lambda T, i: T.tensor(XU).scatter_(1, i, 2.0),
        IDX,
        "vmap: aten::scatter_(self, *extra_args) is not possible",
    ),
    "scatter_src": (
        lambda T, s: T.tensor(XU).scatter_(1, T.tensor(IDX[0]), s),
        np.ones((B, 3, 2)),
        "vmap: aten::scatter_(self",
    ),
    "scatter_add_": (
        lambda T, i: T.tensor(XU).scatter_add_(1, i, T.ones(3, 2, dtype=T.float64)),
        IDX,
        "vmap: scatter_add_(self",
    ),
    "scatter_reduce_": (
        lambda T, s: T.tensor(XU).scatter_reduce_(1, T.tensor(IDX[0]), s, "amax"),
        np.ones((B, 3, 2)),
        "vmap: scatter_reduce_(self",
    ),
    "index_add_": (
        lambda T, i: T.tensor(XU).index_add_(1, i, T.ones(3, 2, dtype=T.float64)),
        ROWS,
        "vmap: index_add_(self",
    ),
    "index_copy_": (
        lambda T, s: T.tensor(XU).index_copy_(1, T.tensor([0, 2]), s),
        np.ones((B, 3, 2)),
        "vmap: aten::index_copy_(self",
    ),
    "index_fill_": (
        lambda T, i: T.tensor(XU).index_fill_(1, i, -1.0),
        ROWS,
        "vmap: index_fill_(self",
    ),
    "index_put_": (
        lambda T, v: T.tensor(XU).index_put_((T.tensor([0, 2]),), v),
        np.ones((B, 2, 4)),
        "vmap: index_put_(self",
    ),
    "setitem_index": (lambda T, i: _put(T, i, 1.0), ROWS, "vmap: index_put_(self"),
    "setitem_basic_key": (lambda T, v: _put(T, 0, v), np.ones((B, 4)), "vmap: inplace arithmetic"),
    "setitem_mask_of_unbatched": (lambda T, x: _put(T, x > 5, 1.0), X, "vmap: index_put_(self"),
    "setitem_batched_mask": (
        lambda T, x: (x.clone().__setitem__(x > 5, 1.0), x)[1],
        X,
        "vmap: We do not support batching operators that can support dynamic shape",
    ),
    "masked_fill_mask": (
        lambda T, x: T.tensor(XU).masked_fill_(x > 5, -1.0),
        X,
        "vmap: inplace arithmetic(self",
    ),
    "masked_fill_value": (
        lambda T, v: T.tensor(XU).masked_fill_(T.tensor(XU) > 5, v),
        np.ones(B),
        "vmap: aten::masked_fill_(self",
    ),
    "mul_": (lambda T, x: T.tensor(XU).mul_(x), X, "vmap: inplace arithmetic(self"),
    "add_": (
        lambda T, x: T.tensor(XU).add_(x),
        X,
        "output with shape [3, 4] doesn't match the broadcast shape [3, 3, 4]",
    ),
    "getitem_mask": (
        lambda T, x: x[x > 5],
        X,
        "vmap: We do not support batching operators that can support dynamic shape",
    ),
    "getitem_mask_of_unbatched": (lambda T, x: T.tensor(XU)[x > 5], X, "vmap: We do not support"),
    "getitem_mask_after_slice": (lambda T, x: x[:, x[0] > 5], X, "vmap: We do not support"),
    "masked_select": (
        lambda T, x: T.masked_select(x, x > 5),
        X,
        "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask)",
    ),
    "nonzero": (
        lambda T, x: T.nonzero(x > 5),
        X,
        "vmap: We do not support batching operators that can output dynamic shape. Attempted "
        "to vmap over aten::nonzero.",
    ),
    "nonzero_as_tuple": (
        lambda T, x: (x > 5).nonzero(as_tuple=True)[0],
        X,
        "Batching rule not implemented for aten::nonzero_numpy.",
    ),
    "unique": (lambda T, x: T.unique(x > 5), X, "vmap: We do not support batching operators"),
    "unique_consecutive": (
        lambda T, x: T.unique_consecutive(x),
        X,
        "vmap: We do not support batching operators that can output dynamic shape. Attempted "
        "to vmap over aten::unique_consecutive.",
    ),
    "one_hot_without_classes": (
        lambda T, i: T.nn.functional.one_hot(i),
        IDX,
        "When vmap-ing torch.nn.functional.one_hot, please provide an explicit positive "
        "num_classes argument.",
    ),
    "one_hot_float": (
        lambda T, x: T.nn.functional.one_hot(x, 4),
        X,
        "one_hot is only applicable to index tensor",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_as_pytorch_refuses(name, no_loop):
    fn, a, message = REFUSED[name]
    with pytest.raises(RuntimeError) as info:
        func.vmap(lambda a: fn(symgrad, a))(symgrad.tensor(a))
    assert type(info.value) is RuntimeError
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusal_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, a, _ = REFUSED[name]
    messages = []
    for T in (symgrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(RuntimeError) as info:
                T.func.vmap(lambda a: fn(T, a))(T.tensor(a))  # noqa: B023
        assert type(info.value) is RuntimeError
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_refusal_names_the_level_of_a_nested_vmap(no_loop):
    def outer(a):
        return func.vmap(lambda b: b.clone().scatter_(0, a, 1.0))(symgrad.zeros(2, 4))

    with pytest.raises(RuntimeError, match="not being vmapped over at level 1"):
        func.vmap(outer)(symgrad.tensor([[0, 1], [2, 3]]))


# -- per-element masks and one_hot that batch ------------------------------------------------------
# name -> function of (T, x) for a batched x of shape (B, 3, 4)
MASKED = {
    "where": lambda T, x: T.where(x > 0.2, x, x.exp()),
    "where_number": lambda T, x: T.where(x > 0.2, x, 0.0),
    "times_mask": lambda T, x: x * (x > 0),
    "masked_fill": lambda T, x: x.masked_fill(x < 0, 1.5) * x,
    "shared_mask": lambda T, x: x[T.tensor([True, False, True])] * 2,
    "masked_select_shared_mask": lambda T, x: T.masked_select(x, T.tensor([True, False] * 2)),
    "mask_counts": lambda T, x: (x > 0).sum(-1) * x[:, 0],
    "mean_over_mask": lambda T, x: (x * (x > 0)).sum() / (x > 0).sum().clamp(min=1),
    "any_all": lambda T, x: x * (x > 0).any(-1, keepdim=True) + (x > -1).all() * x.sum(),
    "count_nonzero": lambda T, x: x[:, 0] * T.count_nonzero(x > 0, dim=1) + T.count_nonzero(x),
    "one_hot_weights": lambda T, x: (T.nn.functional.one_hot(x.argmax(-1), 4) * x).sum(-1),
}


@pytest.mark.parametrize("name", sorted(MASKED))
def test_masks_equal_the_loop(name, no_loop):
    fn = MASKED[name]
    x = symgrad.tensor(R.normal(size=(B, 3, 4)))
    batched = func.vmap(lambda x: fn(symgrad, x))(x)
    np.testing.assert_allclose(batched.numpy(), _loop(lambda x: fn(symgrad, x), (x,), (0,)).numpy())
    loss = func.grad(lambda x: fn(symgrad, x).sin().sum())
    np.testing.assert_allclose(
        func.vmap(loss)(x).numpy(), _loop(loss, (x,), (0,)).numpy(), atol=1e-12
    )


@pytest.mark.parametrize("name", sorted(MASKED))
def test_masks_are_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn = MASKED[name]
    x = R.normal(size=(B, 3, 4))
    ours = func.vmap(lambda x: fn(symgrad, x))(symgrad.tensor(x))
    theirs = torch.func.vmap(lambda x: fn(torch, x))(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)
    if name == "one_hot_weights":
        return  # PyTorch's one_hot under grad inside vmap reads the index (.item()) and fails
    ours = func.vmap(func.grad(lambda x: fn(symgrad, x).sin().sum()))(symgrad.tensor(x))
    theirs = torch.func.vmap(torch.func.grad(lambda x: fn(torch, x).sin().sum()))(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)


def test_one_hot_inside_vmap(no_loop):
    index = symgrad.tensor([[0, 3], [-1, 2]])
    # PyTorch compares each index with the classes: one out of range gets a row of zeros
    out = func.vmap(lambda i: F.one_hot(i, 3))(index)
    assert out.dtype is symgrad.int64
    assert out.tolist() == [[[1, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 1]]]


def test_one_hot_inside_vmap_is_pytorchs():
    torch = pytest.importorskip("torch")
    index = _ints(5, (2, 3)) - 1
    ours = func.vmap(lambda i: F.one_hot(i, 4))(symgrad.tensor(index))
    theirs = torch.func.vmap(lambda i: torch.nn.functional.one_hot(i, 4))(torch.tensor(index))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
