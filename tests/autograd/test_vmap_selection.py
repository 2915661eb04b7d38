"""``vmap`` over selection ops: index tensors given per element (the index batched, the data
batched, or both), sorting and scans along a dimension, and batch norm's running statistics.
Each runs once on the whole batch (no loop warning), equal to the per-element loop and to
``torch.func.vmap`` when PyTorch is installed, values and ``vmap(grad(...))``."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import func
from symgrad.nn import functional as F

R = np.random.default_rng(1)
B = 3
CLASS_W = [1.0, 2.0, 0.5, 3.0]


def _ints(high, shape, batch=True):
    return R.integers(0, high, size=((B,) if batch else ()) + shape)


def _unique_rows(high, k, rows, batch=True):
    """Indices without repeats along the last dimension (scatter's writes then never race)."""
    lead = ((B,) if batch else ()) + (rows,)
    return np.argsort(R.random(lead + (high,)), axis=-1)[..., :k]


# name -> (function of (T, x, i) for T symgrad or torch, x of one element's shape, i maker)
INDEXED = {
    "gather_dim1": (lambda T, x, i: T.gather(x, 1, i), (3, 4), lambda b: _ints(4, (3, 2), b)),
    "gather_dim0_negative": (
        lambda T, x, i: T.gather(x, -2, i),
        (3, 4),
        lambda b: _ints(3, (2, 4), b),
    ),
    "take_along_dim": (
        lambda T, x, i: T.take_along_dim(x, i, 1),
        (3, 4),
        lambda b: _ints(4, (1, 2), b),
    ),
    "take_along_dim_flat": (
        lambda T, x, i: T.take_along_dim(x, i),
        (3, 4),
        lambda b: _ints(12, (5,), b),
    ),
    "index_select_dim1": (
        lambda T, x, i: T.index_select(x, 1, i),
        (3, 4),
        lambda b: _ints(4, (5,), b),
    ),
    "index_select_dim0": (
        lambda T, x, i: T.index_select(x, -2, i),
        (3, 4),
        lambda b: _ints(3, (2,), b),
    ),
    "getitem_leading": (lambda T, x, i: x[i], (3, 4), lambda b: _ints(3, (2, 2), b)),
    "getitem_after_slice": (lambda T, x, i: x[:, i] * 2, (3, 4), lambda b: _ints(4, (2,), b)),
    "getitem_two_tensors": (
        lambda T, x, i: x[:, T.tensor([0, 2]), i],
        (2, 3, 4),
        lambda b: _ints(4, (2,), b),
    ),
    "getitem_int_then_tensor": (lambda T, x, i: x[1, i], (3, 4), lambda b: _ints(4, (3,), b)),
    "getitem_separated": (
        lambda T, x, i: x[i, :, T.tensor([1, 0])],
        (3, 2, 4),
        lambda b: _ints(3, (2,), b),
    ),
    "scatter": (
        lambda T, x, i: x.scatter(1, i, x[:, :2] * 2),
        (3, 4),
        lambda b: _unique_rows(4, 2, 3, b),
    ),
    "scatter_value": (
        lambda T, x, i: x.scatter(1, i, 0.5),
        (3, 4),
        lambda b: _unique_rows(4, 2, 3, b),
    ),
    "scatter_add": (
        lambda T, x, i: x.scatter_add(1, i, x[:, :2].exp()),
        (3, 4),
        lambda b: _ints(4, (3, 2), b),
    ),
    "scatter_reduce_amax": (
        lambda T, x, i: x.scatter_reduce(0, i, x[:2] * 3, "amax"),
        (3, 4),
        lambda b: _ints(3, (2, 4), b),
    ),
    "scatter_reduce_mean": (
        lambda T, x, i: x.scatter_reduce(0, i, x[:2] ** 2, "mean", include_self=False),
        (3, 4),
        lambda b: _ints(3, (2, 4), b),
    ),
    "index_add": (
        lambda T, x, i: x.index_add(0, i, x[:2] * 3, alpha=2),
        (3, 4),
        lambda b: _ints(3, (2,), b),
    ),
    "index_copy": (
        lambda T, x, i: x.index_copy(1, i, x[:, 1:3].cos()),
        (3, 4),
        lambda b: _unique_rows(4, 2, 1, b)[..., 0, :],
    ),
    "index_fill": (lambda T, x, i: x.index_fill(1, i, -1.0), (3, 4), lambda b: _ints(4, (2,), b)),
    "embedding": (
        lambda T, x, i: T.nn.functional.embedding(i, x),
        (5, 3),
        lambda b: _ints(5, (4,), b),
    ),
    "embedding_padding": (
        lambda T, x, i: T.nn.functional.embedding(i, x, padding_idx=1),
        (5, 3),
        lambda b: _ints(5, (2, 3), b),
    ),
    "cross_entropy_label_smoothing": (
        lambda T, x, i: T.nn.functional.cross_entropy(x, i, label_smoothing=0.2),
        (3, 4),
        lambda b: _ints(4, (3,), b),
    ),
    "cross_entropy_smoothing_weighted_ignored": (
        lambda T, x, i: T.nn.functional.cross_entropy(
            x, i, T.tensor(CLASS_W, dtype=T.float64), ignore_index=-100, label_smoothing=0.3
        ),
        (3, 4),
        lambda b: np.where(_ints(2, (3,), b) == 0, -100, _ints(4, (3,), b)),
    ),
    "masked_fill_by_index": (
        lambda T, x, i: x.masked_fill(i > 1, -2.0),
        (3, 4),
        lambda b: _ints(4, (3, 4), b),
    ),
}
IN_DIMS = {"both": (0, 0), "data": (0, None), "index": (None, 0)}
TORCH_REFUSES = {
    ("cross_entropy_label_smoothing", "index"),
    ("cross_entropy_smoothing_weighted_ignored", "both"),
    ("cross_entropy_smoothing_weighted_ignored", "index"),
}


def _inputs(name, mode):
    _, shape, index = INDEXED[name]
    x_dim, i_dim = IN_DIMS[mode]
    x = R.normal(size=((B,) if x_dim == 0 else ()) + shape)
    return x, index(i_dim == 0)


def _loop(fn, args, in_dims):
    picks = [[a if d is None else a[k] for a, d in zip(args, in_dims)] for k in range(B)]
    return symgrad.stack([fn(*p) for p in picks])


def _check_against_loop(fn, args, in_dims):
    batched = func.vmap(fn, in_dims=in_dims)(*args)
    np.testing.assert_allclose(batched.numpy(), _loop(fn, args, in_dims).numpy(), atol=1e-12)
    if not args[0].dtype.is_floating_point:
        return
    loss = func.grad(lambda *a: fn(*a).sin().sum())
    grads = func.vmap(loss, in_dims=in_dims)(*args)
    np.testing.assert_allclose(grads.numpy(), _loop(loss, args, in_dims).numpy(), atol=1e-12)


@pytest.mark.parametrize("mode", sorted(IN_DIMS))
@pytest.mark.parametrize("name", sorted(INDEXED))
def test_indexed_rule_equals_the_loop(name, mode, no_loop):
    x, i = _inputs(name, mode)
    fn = INDEXED[name][0]
    _check_against_loop(
        lambda x, i: fn(symgrad, x, i), (symgrad.tensor(x), symgrad.tensor(i)), IN_DIMS[mode]
    )


def _against_torch(fn, x, i, in_dims):
    torch = pytest.importorskip("torch")
    ours = func.vmap(lambda x, i: fn(symgrad, x, i), in_dims=in_dims)
    theirs = torch.func.vmap(lambda x, i: fn(torch, x, i), in_dims=in_dims)
    args = (symgrad.tensor(x), symgrad.tensor(i))
    targs = (torch.tensor(x), torch.tensor(i))
    np.testing.assert_allclose(ours(*args).numpy(), theirs(*targs).numpy(), atol=1e-12)
    ours = func.vmap(func.grad(lambda x, i: fn(symgrad, x, i).sin().sum()), in_dims=in_dims)
    theirs = torch.func.vmap(
        torch.func.grad(lambda x, i: fn(torch, x, i).sin().sum()), in_dims=in_dims
    )
    np.testing.assert_allclose(ours(*args).numpy(), theirs(*targs).numpy(), atol=1e-12)


@pytest.mark.parametrize("mode", sorted(IN_DIMS))
@pytest.mark.parametrize("name", sorted(INDEXED))
def test_indexed_rule_is_pytorchs(name, mode):
    if (name, mode) in TORCH_REFUSES:
        pytest.skip("PyTorch 2.13 has no batching rule here (an in-place add or masked_select)")
    x, i = _inputs(name, mode)
    _against_torch(INDEXED[name][0], x, i, IN_DIMS[mode])


# name -> (function of (T, x), x of one element's shape)
ALONG = {
    "sort_dim0": (lambda T, x: T.sort(x, 0).values, (3, 4)),
    "sort_descending_indices": (
        lambda T, x: x.sort(-1, descending=True).values * x.sort(-1, True).indices,
        (3, 4),
    ),
    "argsort": (lambda T, x: x.argsort(1) * x[:, :1], (3, 4)),
    "msort": (lambda T, x: T.msort(x), (3, 4)),
    "topk_largest": (lambda T, x: x.topk(2, 1).values, (3, 4)),
    "topk_smallest_dim0": (lambda T, x: x.topk(2, 0, largest=False)[0], (3, 4)),
    "topk_indices": (lambda T, x: x.topk(2).indices * 1.0 + x[..., :2], (3, 4)),
    "kthvalue": (lambda T, x: x.kthvalue(2, -1).values, (3, 4)),
    "kthvalue_keepdim": (lambda T, x: x.kthvalue(3, 0, keepdim=True)[0], (3, 4)),
    "median_dim": (lambda T, x: x.median(1).values.sum() + x.median(0)[1] * x, (3, 4)),
    "nanmedian_dim": (lambda T, x: x.nanmedian(1).values, (3, 4)),
    "mode": (lambda T, x: x.round().mode(1).values * x.sum(), (3, 4)),
    "max_min_dim": (lambda T, x: x.max(1).values + x.min(-2)[0].sum(), (3, 4)),
    "argmax_argmin": (lambda T, x: x.argmax(1).sum() + x.argmin(0, keepdim=True) * x, (3, 4)),
    "argmax_all": (lambda T, x: x.argmax() * x.sum(), (3, 4)),
    "cumsum": (lambda T, x: x.cumsum(0) + x.cumsum(-1), (3, 4)),
    "cumprod": (lambda T, x: x.cumprod(1), (3, 4)),
    "cummax_cummin": (lambda T, x: x.cummax(0).values * x.cummin(-1)[0], (3, 4)),
    "cummax_indices": (lambda T, x: x.cummax(1).indices * x, (3, 4)),
    "logcumsumexp": (lambda T, x: x.logcumsumexp(-2), (3, 4)),
    "masked_fill_own_mask": (lambda T, x: x.masked_fill(x > 0.3, -2.0), (3, 4)),
    "masked_fill_shared_mask": (
        lambda T, x: x.masked_fill(T.tensor([True, False, True, False]), 1.5),
        (3, 4),
    ),
    "masked_fill_own_value": (lambda T, x: x.masked_fill(x < 0, x.sum()), (3, 4)),
    "adaptive_max_pool2d": (
        lambda T, x: T.nn.functional.adaptive_max_pool2d(x, (2, 3)),
        (2, 5, 6),
    ),
    "adaptive_max_pool1d_indices": (
        lambda T, x: T.nn.functional.adaptive_max_pool1d(x, 2, return_indices=True)[1] * x[..., :2],
        (2, 5),
    ),
    "scans_0d": (lambda T, x: x.cumsum(0) + x.logcumsumexp(0) + x.cummax(0)[0], ()),
    "sort_0d": (lambda T, x: x.sort().values + x.topk(1).values, ()),
}


@pytest.mark.parametrize("name", sorted(ALONG))
def test_along_rule_equals_the_loop(name, no_loop):
    fn, shape = ALONG[name]
    x = symgrad.tensor(R.normal(size=(B,) + shape))
    _check_against_loop(lambda x: fn(symgrad, x), (x,), (0,))


@pytest.mark.parametrize("name", sorted(ALONG))
def test_along_rule_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, shape = ALONG[name]
    x = R.normal(size=(B,) + shape)
    ours = func.vmap(lambda x: fn(symgrad, x))(symgrad.tensor(x))
    theirs = torch.func.vmap(lambda x: fn(torch, x))(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)
    ours = func.vmap(func.grad(lambda x: fn(symgrad, x).sin().sum()))(symgrad.tensor(x))
    theirs = torch.func.vmap(torch.func.grad(lambda x: fn(torch, x).sin().sum()))(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)


def test_selection_rules_give_plain_values(no_loop):
    rows = symgrad.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    index = symgrad.tensor([[2, 0], [1, 1]])
    assert func.vmap(lambda r, i: r.gather(0, i))(rows, index).tolist() == [
        [2.0, 3.0],
        [5.0, 5.0],
    ]
    assert func.vmap(lambda i: rows[0][i])(index).tolist() == [[2.0, 3.0], [1.0, 1.0]]
    assert func.vmap(lambda r: r.sort().values)(rows).tolist() == [[1.0, 2.0, 3.0], [0.0, 4.0, 5.0]]
    assert func.vmap(lambda r: r.topk(1).indices)(rows).tolist() == [[0], [1]]
    assert func.vmap(lambda r: r.cumsum(0))(rows).tolist() == [[3.0, 4.0, 6.0], [0.0, 5.0, 9.0]]
    assert func.vmap(lambda r: r.cummax(0).indices)(rows).tolist() == [[0, 0, 0], [0, 1, 1]]
    added = func.vmap(lambda i: symgrad.zeros(3).scatter_add(0, i, symgrad.ones(2)))(index)
    assert added.tolist() == [[1.0, 0.0, 1.0], [0.0, 2.0, 0.0]]
    table = symgrad.tensor([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]])
    picked = func.vmap(lambda i: F.embedding(i, table))(index)
    assert picked.tolist() == [[[3.0, 30.0], [1.0, 10.0]], [[2.0, 20.0], [2.0, 20.0]]]
    # per-sample gradients of a table: each element's own rows
    grads = func.vmap(func.grad(lambda w, i: F.embedding(i, w).sum()), in_dims=(None, 0))(
        table, index
    )
    assert grads[:, :, 0].tolist() == [[1.0, 0.0, 1.0], [0.0, 2.0, 0.0]]


def test_nested_vmaps_index_at_both_levels(no_loop):
    x = symgrad.tensor(R.normal(size=(2, 3, 4)))
    i = symgrad.tensor(_ints(4, (2,))[:2])  # (2, 2): one vector of indices per outer element
    inner = func.vmap(lambda r, j: r[j] + r.sort().values[:2], in_dims=(0, None))
    out = func.vmap(inner)(x, i)
    expected = symgrad.stack(
        [symgrad.stack([r[i[a]] + r.sort().values[:2] for r in x[a]]) for a in range(2)]
    )
    np.testing.assert_allclose(out.numpy(), expected.numpy())


# -- batch norm's running statistics ---------------------------------------------------------------
def test_batch_norm_training_refuses_unbatched_running_statistics():
    mean, var = symgrad.zeros(2), symgrad.ones(2)
    x = symgrad.tensor(R.normal(size=(3, 4, 2)))
    with pytest.raises(RuntimeError, match="running_mean or running_var, which will be updated"):
        func.vmap(lambda a: F.batch_norm(a, mean, var, training=True))(x)
    assert mean.tolist() == [0.0, 0.0] and var.tolist() == [1.0, 1.0]  # nothing was updated
    with pytest.raises(RuntimeError, match="track_running_stats"):
        func.vmap(symgrad.nn.BatchNorm1d(2))(x)


def test_batch_norm_training_updates_each_elements_statistics(no_loop):
    x = symgrad.tensor([[[1.0], [3.0]], [[2.0], [6.0]]])  # two elements of (N=2, C=1)
    mean, var = symgrad.zeros(2, 1), symgrad.ones(2, 1)
    out = func.vmap(lambda a, m, v: F.batch_norm(a, m, v, training=True, momentum=0.5))(
        x, mean, var
    )
    np.testing.assert_allclose(out.numpy()[:, :, 0], [[-1.0, 1.0], [-1.0, 1.0]], atol=1e-4)
    assert mean.tolist() == [[1.0], [2.0]]  # 0.5 * 0 + 0.5 * batch mean
    assert var.tolist() == [[1.5], [4.5]]  # 0.5 * 1 + 0.5 * unbiased batch variance


def test_batch_norm_without_statistics_and_with_replaced_modules(no_loop):
    model = symgrad.nn.Sequential(symgrad.nn.Linear(3, 2), symgrad.nn.BatchNorm1d(2))
    func.replace_all_batch_norm_modules_(model)
    x = symgrad.tensor(R.normal(size=(4, 5, 3)), dtype=symgrad.float32)
    out = func.vmap(model)(x)
    np.testing.assert_allclose(out.mean(1).detach().numpy(), np.zeros((4, 2)), atol=1e-6)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_with_batched_statistics_is_pytorchs(training):
    torch = pytest.importorskip("torch")
    x, w = R.normal(size=(3, 4, 2, 5)), R.normal(size=2)
    stats = R.normal(size=(3, 2)), R.random(size=(3, 2)) + 0.5

    def run(T, F):
        mean, var = (T.tensor(s.copy()) for s in stats)

        def fn(a, m, v):
            return F.batch_norm(a, m, v, T.tensor(w), None, training, 0.3)

        def loss(a, m, v):
            return fn(a, m, v).sin().sum()

        out = T.func.vmap(fn)(T.tensor(x), mean, var)
        grads = T.func.vmap(T.func.grad(loss))(T.tensor(x), T.tensor(stats[0]), T.tensor(stats[1]))
        return out.numpy(), grads.numpy(), mean.numpy(), var.numpy()

    for ours, theirs in zip(run(symgrad, F), run(torch, torch.nn.functional)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_batch_norm_error_is_pytorchs():
    torch = pytest.importorskip("torch")
    x = R.normal(size=(3, 4, 2))
    messages = []
    for T in (symgrad, torch):
        mean, var = T.zeros(2), T.ones(2)
        norm = T.nn.functional.batch_norm
        with pytest.raises(RuntimeError) as info:
            T.func.vmap(lambda a: norm(a, mean, var, training=True))(T.tensor(x))  # noqa: B023
        assert type(info.value) is RuntimeError
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# -- per-sample gradients of small models ----------------------------------------------------------
def _sequence_model(T):
    T.manual_seed(0)

    class Model(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = T.nn.Embedding(11, 4)
            self.norm = T.nn.LayerNorm(4)
            self.out = T.nn.Linear(4, 11)

        def forward(self, tokens):
            h = self.norm(self.embed(tokens)).cumsum(1)
            return T.nn.functional.log_softmax(self.out(h.topk(3, -1).values.sum(-1, True) * h), -1)

    return Model()


def _sequence_loss(T, model):
    def loss(params, tokens, targets):
        logp = T.func.functional_call(model, params, (tokens.unsqueeze(0),))
        return -logp.gather(-1, targets.unsqueeze(0).unsqueeze(-1)).mean()

    return loss


def test_per_sample_gradients_of_a_sequence_model(no_loop):
    model = _sequence_model(symgrad)
    params = {k: v.detach() for k, v in model.named_parameters()}
    tokens, targets = symgrad.tensor(_ints(11, (6,))), symgrad.tensor(_ints(11, (6,)))
    loss = _sequence_loss(symgrad, model)
    per_sample = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, tokens, targets)
    for k in range(B):
        single = func.grad(loss)(params, tokens[k], targets[k])
        for name in params:
            np.testing.assert_allclose(per_sample[name][k].numpy(), single[name].numpy(), atol=1e-6)


def test_per_sample_gradients_of_a_sequence_model_are_pytorchs():
    torch = pytest.importorskip("torch")
    tokens, targets = _ints(11, (6,)), _ints(11, (6,))
    found = []
    for T in (symgrad, torch):
        model = _sequence_model(T)
        params = {
            k: T.tensor(v.detach().numpy()) for k, v in _sequence_model(symgrad).named_parameters()
        }
        loss = _sequence_loss(T, model)
        grads = T.func.vmap(T.func.grad(loss), in_dims=(None, 0, 0))(
            params, T.tensor(tokens), T.tensor(targets)
        )
        found.append({k: v.detach().numpy() for k, v in grads.items()})
    for name in found[0]:
        np.testing.assert_allclose(found[0][name], found[1][name], rtol=1e-4, atol=1e-5)


def test_jacobians_and_hessians_inside_vmap_through_selection_ops(no_loop):
    x = symgrad.tensor(R.normal(size=(B, 4)))
    i = symgrad.tensor(_ints(4, (2,)))

    def f(a, j):
        return (a.sort().values * a.cumsum(0)).gather(0, j).exp()

    def g(a, j):
        return (a.topk(3).values ** 3).logcumsumexp(0).sum() + a[j].sum() ** 2

    for transform, fn in ((func.jacrev, f), (func.jacfwd, f), (func.hessian, g)):
        batched = func.vmap(transform(fn))(x, i)
        loop = symgrad.stack([transform(fn)(a, j) for a, j in zip(x, i)])
        np.testing.assert_allclose(batched.numpy(), loop.numpy(), atol=1e-12)


@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_all_ignored_sample_has_zero_gradient_under_vmap(smoothing):
    # PyTorch (and symgrad outside vmap): the mean over no target is nan, its gradient 0
    weight = symgrad.tensor(CLASS_W, dtype=symgrad.float64)

    def loss(a, t):
        return symgrad.nn.functional.cross_entropy(a, t, weight, label_smoothing=smoothing)

    x = symgrad.tensor(R.normal(size=(2, 3, 4)))
    targets = symgrad.tensor([[-100, -100, -100], [1, -100, 2]])
    grads = func.vmap(func.grad(loss))(x, targets)
    values = func.vmap(loss)(x, targets)
    np.testing.assert_array_equal(grads[0].numpy(), np.zeros((3, 4)))
    assert np.isnan(values[0].item()) and np.isfinite(values[1].item())
    one = x[1].detach().requires_grad_(True)
    loss(one, targets[1]).backward()
    np.testing.assert_allclose(grads[1].numpy(), one.grad.numpy(), rtol=1e-12)
    # without vmap too, even when the gradient flowing in is nan (sin of the nan mean)
    ignored = x[0].detach().requires_grad_(True)
    loss(ignored, targets[0]).sin().backward()
    np.testing.assert_array_equal(ignored.grad.numpy(), np.zeros((3, 4)))
