"""``vmap`` through the primitives' batching rules: one run on the whole batch, equal to the
per-element loop (and to ``torch.func.vmap`` when PyTorch is installed), with no loop warning;
anything without a rule falls back to the loop with the same results."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import func
from symgrad.nn import functional as F

R = np.random.default_rng(0)


def _t(shape):
    return symgrad.tensor(R.normal(size=shape))


W, V, S = _t((3, 2)), _t((3,)), _t((2, 3, 3))

# name -> (function of one element, batched input of shape (4, ...), in_dims)
CASES = {
    "elementwise_broadcast": (lambda x: symgrad.tanh(x) * V + 2.0, (4, 3)),
    "binary_pow_where": (lambda x: symgrad.where(x > 0, x**2, -x) / (1 + x.exp()), (4, 2, 3)),
    "sum_dims": (lambda x: x.sum(0) + x.sum(-1, keepdim=True).sum(), (4, 2, 3)),
    "mean_var_std_norm": (
        lambda x: x.mean() + x.var(1).sum() + x.std() + x.norm(dim=0).sum(),
        (4, 2, 3),
    ),
    "amax_max_prod": (lambda x: x.amax(0) + x.max() + x.prod(1).sum(), (4, 2, 3)),
    "softmax_family": (
        lambda x: x.softmax(-1) + x.log_softmax(0) + x.logsumexp(1, True),
        (4, 2, 3),
    ),
    "matrix_vector": (lambda x: x @ V, (4, 2, 3)),
    "vector_matrix": (lambda x: x @ W, (4, 3)),
    "vector_vector": (lambda x: x @ V, (4, 3)),
    "matrix_matrix_unbatched_left": (lambda x: W.t() @ x, (4, 3, 5)),
    "batched_matmul_against_3d": (lambda x: S @ x, (4, 3)),
    "self_products": (lambda x: x.t() @ x + x @ x.t() @ x, (4, 3, 3)),
    "shapes": (lambda x: x.transpose(0, 1).unsqueeze(0).permute(2, 0, 1).squeeze(1), (4, 2, 3)),
    "expand_view_index": (lambda x: x[1:, None].expand(2, 4, 3)[0, ::2] * x[0], (4, 3, 3)),
    "linear_tanh_linear": (
        lambda x: F.linear(symgrad.tanh(F.linear(x, W.t(), V[:2])), W, V),
        (4, 3),
    ),
    "mse_and_bce_losses": (
        lambda x: (
            F.mse_loss(x, V) + F.binary_cross_entropy_with_logits(x, V.sigmoid(), reduction="sum")
        ),
        (4, 3),
    ),
    "huber_none": (lambda x: F.huber_loss(x, V, reduction="none") * 2, (4, 3)),
}


@pytest.fixture
def no_loop(monkeypatch):
    """Any fallback to the loop warns (and the warning is an error here)."""
    monkeypatch.setattr(importlib.import_module("symgrad.func.vmap"), "_warned_loop", [False])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _loop(fn, xs, dim=0):
    return symgrad.stack([fn(x) for x in xs.unbind(dim)])


@pytest.mark.parametrize("name", sorted(CASES))
def test_batched_run_equals_the_loop(name, no_loop):
    fn, shape = CASES[name]
    xs = _t(shape)
    np.testing.assert_allclose(func.vmap(fn)(xs).numpy(), _loop(fn, xs).numpy(), atol=1e-12)


def test_in_dims_out_dims_and_unmapped_inputs(no_loop):
    xs = _t((3, 4))
    out = func.vmap(lambda x, w: x * w, in_dims=(1, None), out_dims=1)(xs, V)
    np.testing.assert_allclose(out.numpy(), (xs * V[:, None]).numpy())
    pair = func.vmap(lambda x: (x.sum(), V * 1.0))(xs)  # a result not depending on the batch
    assert pair[0].shape == (3,) and pair[1].shape == (3, 3)
    np.testing.assert_allclose(pair[1].numpy(), np.stack([V.numpy()] * 3))


def test_nested_vmap_batches_both_levels(no_loop):
    xs = _t((2, 3, 4))
    out = func.vmap(func.vmap(lambda x: (x * x).sum() + x.amax()))(xs)
    np.testing.assert_allclose(out.numpy(), ((xs * xs).sum(-1) + xs.amax(-1)).numpy())


def test_gradients_flow_through_a_batched_run():
    xs = symgrad.tensor(R.normal(size=(4, 3)), requires_grad=True)
    fn = CASES["linear_tanh_linear"][0]
    func.vmap(fn)(xs).pow(2).sum().backward()
    batched = xs.grad.numpy()
    xs.grad = None
    _loop(fn, xs).pow(2).sum().backward()
    np.testing.assert_allclose(batched, xs.grad.numpy(), atol=1e-12)


def _mlp_loss(model):
    def loss(params, x, y):
        out = func.functional_call(model, params, (x.unsqueeze(0),))
        return F.mse_loss(out.squeeze(), y)

    return loss


def test_per_sample_gradients_in_one_batched_pass(no_loop):
    symgrad.manual_seed(0)
    model = symgrad.nn.Sequential(
        symgrad.nn.Linear(3, 8), symgrad.nn.Tanh(), symgrad.nn.Linear(8, 1)
    )
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = symgrad.randn(6, 3), symgrad.randn(6)
    loss = _mlp_loss(model)
    per_sample = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(6):
        single = func.grad(loss)(params, x[i], y[i])
        for k in params:
            assert per_sample[k].shape == (6,) + tuple(params[k].shape)
            np.testing.assert_allclose(per_sample[k][i].numpy(), single[k].numpy(), atol=1e-6)
    g, value = func.vmap(func.grad_and_value(loss), in_dims=(None, 0, 0))(params, x, y)
    np.testing.assert_allclose(value.numpy(), [loss(params, x[i], y[i]).item() for i in range(6)])


def test_per_sample_gradients_are_pytorchs():
    torch = pytest.importorskip("torch")
    xs, ys, w = R.normal(size=(5, 3)), R.normal(size=5), R.normal(size=3)

    def loss(T):
        return lambda w, x, y: (T.tanh(x @ w) - y) ** 2

    ours = func.vmap(func.grad(loss(symgrad)), in_dims=(None, 0, 0))(
        symgrad.tensor(w), symgrad.tensor(xs), symgrad.tensor(ys)
    )
    theirs = torch.func.vmap(torch.func.grad(loss(torch)), in_dims=(None, 0, 0))(
        torch.tensor(w), torch.tensor(xs), torch.tensor(ys)
    )
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_what_has_no_rule_runs_as_a_loop_with_the_same_results(monkeypatch):
    monkeypatch.setattr(importlib.import_module("symgrad.func.vmap"), "_warned_loop", [False])
    xs = _t((4, 5))
    with pytest.warns(UserWarning, match="once per batch element"):
        out = func.vmap(lambda x: x.sort().values[:2] * symgrad.histc(x, 4, -2.0, 2.0).sum())(xs)
    expected = _loop(lambda x: x.sort().values[:2] * symgrad.histc(x, 4, -2.0, 2.0).sum(), xs)
    np.testing.assert_allclose(out.numpy(), expected.numpy())


def test_a_user_error_is_raised_as_without_vmap():
    with pytest.raises(RuntimeError, match="cannot be multiplied|shapes|same dtype"):
        func.vmap(lambda x: x @ symgrad.ones(5))(_t((2, 3)))


# -- the rules of convolution, joining, indexing, losses, pooling and normalization ----------------
W2, B2, W1 = _t((4, 3, 3, 3)).numpy(), _t((4,)).numpy(), _t((4, 3, 2)).numpy()
LW, LB = _t((5,)).numpy(), _t((5,)).numpy()
CLASS_W = [1.0, 2.0, 0.5, 3.0]

# name -> (function of (T, F, x) for T symgrad or torch, shape of the batched x)
RULE_CASES = {
    "conv2d": (lambda T, F, x: F.conv2d(x, T.tensor(W2), T.tensor(B2), padding=1), (3, 2, 3, 5, 5)),
    "conv1d_stride": (lambda T, F, x: F.conv1d(x, T.tensor(W1), stride=2), (3, 2, 3, 7)),
    "conv2d_stride_dilation": (
        lambda T, F, x: F.conv2d(x, T.tensor(W2), stride=(2, 1), padding=2, dilation=(2, 3)),
        (3, 2, 3, 7, 8),
    ),
    "conv2d_unbatched_input": (lambda T, F, x: F.conv2d(x, T.tensor(W2)), (3, 3, 5, 5)),
    "conv2d_batched_kernel": (
        lambda T, F, w: F.conv2d(T.tensor(W2[:2, :, :, :]), w, groups=1),
        (3, 4, 3, 3, 3),
    ),
    "cat_stack": (
        lambda T, F, x: (
            T.cat([x, T.tensor(W1[0]) * 1.0, x * 2], 1).sum(0)
            + T.stack([x, x.exp()], 0).sum(0).sum(1, keepdim=True)
        ),
        (3, 3, 2),
    ),
    "split_chunk_unbind": (
        lambda T, F, x: x.split(2, 1)[1] * x.chunk(2, 1)[0][:, :1] + x.unbind(0)[1].sum(),
        (3, 3, 4),
    ),
    "getitem_index_tensor": (
        lambda T, F, x: x[T.tensor([2, 0, 1, 1])] * 2 + x[:, T.tensor([0, 2])].sum(),
        (3, 3, 4),
    ),
    "getitem_separated_indices": (
        lambda T, F, x: x[T.tensor([0, 1]), :, T.tensor([1, 2])],
        (3, 3, 2, 4),
    ),
    "getitem_mask": (lambda T, F, x: x[T.tensor([True, False, True])], (3, 3, 2)),
    "index_select_gather": (
        lambda T, F, x: (
            T.index_select(x, 1, T.tensor([2, 0, 1, 1])).sum(0)
            + T.gather(x, 1, T.tensor([[0, 3], [1, 1], [2, 0]])).sum()
        ),
        (3, 3, 4),
    ),
    "take_along_dim": (
        lambda T, F, x: T.take_along_dim(x, T.tensor([[0], [3], [1]]), 1),
        (3, 3, 4),
    ),
    "cross_entropy": (lambda T, F, x: F.cross_entropy(x, T.tensor([1, 0, 3])), (3, 3, 4)),
    "cross_entropy_weighted_none": (
        lambda T, F, x: F.cross_entropy(
            x, T.tensor([1, 0, 3]), weight=T.tensor(CLASS_W, dtype=T.float64), reduction="none"
        ),
        (3, 3, 4),
    ),
    "nll_loss_ignored_weighted_mean": (
        lambda T, F, x: F.nll_loss(
            F.log_softmax(x, 1), T.tensor([1, -100, 3]), weight=T.tensor(CLASS_W, dtype=T.float64)
        ),
        (3, 3, 4),
    ),
    "nll_loss_sum": (
        lambda T, F, x: F.nll_loss(x, T.tensor([1, 0, 3]), reduction="sum"),
        (3, 3, 4),
    ),
    "nll_loss_1d": (lambda T, F, x: F.nll_loss(x, T.tensor(2)), (3, 4)),
    "softmax_log_softmax": (lambda T, F, x: F.softmax(x, 0) * F.log_softmax(x, -1), (3, 3, 4)),
    "max_pool2d": (lambda T, F, x: F.max_pool2d(x, 2), (3, 2, 3, 4, 4)),
    "max_pool1d": (lambda T, F, x: F.max_pool1d(x, 2, stride=1), (3, 2, 5)),
    "avg_pools": (
        lambda T, F, x: F.avg_pool2d(x, 2) + F.adaptive_avg_pool2d(x, 1),
        (3, 2, 3, 4, 4),
    ),
    "layer_norm": (lambda T, F, x: F.layer_norm(x, (5,), T.tensor(LW), T.tensor(LB)), (3, 2, 5)),
    "group_norm": (
        lambda T, F, x: F.group_norm(x, 2, T.tensor(LW[:4]), T.tensor(LB[:4])),
        (3, 2, 4, 3),
    ),
    "constant_pad": (lambda T, F, x: F.pad(x, (1, 2), value=0.5), (3, 2, 4)),
}


@pytest.mark.parametrize("name", sorted(RULE_CASES))
def test_rule_equals_the_loop(name, no_loop):
    fn, shape = RULE_CASES[name]
    xs = _t(shape)
    batched = func.vmap(lambda x: fn(symgrad, F, x))(xs)
    loop = _loop(lambda x: fn(symgrad, F, x), xs)
    np.testing.assert_allclose(batched.numpy(), loop.numpy(), rtol=1e-12, atol=1e-12)
    grads = func.vmap(func.grad(lambda x: fn(symgrad, F, x).sin().sum()))(xs)
    grads_loop = _loop(func.grad(lambda x: fn(symgrad, F, x).sin().sum()), xs)
    np.testing.assert_allclose(grads.numpy(), grads_loop.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(RULE_CASES))
def test_rule_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, shape = RULE_CASES[name]
    x = R.normal(size=shape)
    ours = func.vmap(lambda x: fn(symgrad, F, x))(symgrad.tensor(x))
    theirs = torch.func.vmap(lambda x: fn(torch, torch.nn.functional, x))(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)
    ours = func.vmap(func.grad(lambda x: fn(symgrad, F, x).sin().sum()))(symgrad.tensor(x))
    theirs = torch.func.vmap(
        torch.func.grad(lambda x: fn(torch, torch.nn.functional, x).sin().sum())
    )(torch.tensor(x))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-12)


def test_rules_give_plain_values(no_loop):
    x = symgrad.arange(8.0).reshape(2, 1, 1, 4)
    pooled = func.vmap(lambda x: F.max_pool1d(x[0], 2))(x)
    assert pooled.tolist() == [[[1.0, 3.0]], [[5.0, 7.0]]]
    kernel = symgrad.tensor([[[1.0, -1.0]]])
    conv = func.vmap(lambda x: F.conv1d(x[0], kernel))(x)
    assert conv.tolist() == [[[-1.0, -1.0, -1.0]], [[-1.0, -1.0, -1.0]]]
    logits = symgrad.zeros(2, 1, 4)
    loss = func.vmap(lambda z: F.cross_entropy(z, symgrad.tensor([3])))(logits)
    np.testing.assert_allclose(loss.numpy(), [np.log(4.0)] * 2)
    rows = symgrad.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    picked = func.vmap(lambda r: r[symgrad.tensor([2, 0])])(rows)
    assert picked.tolist() == [[30.0, 10.0], [60.0, 40.0]]
    joined = func.vmap(lambda r: symgrad.cat([r[:1], symgrad.tensor([0.0])]))(rows)
    assert joined.tolist() == [[10.0, 0.0], [40.0, 0.0]]


def test_per_sample_gradients_of_a_small_cnn(no_loop):
    symgrad.manual_seed(0)
    model = symgrad.nn.Sequential(
        symgrad.nn.Conv2d(1, 3, 3),
        symgrad.nn.ReLU(),
        symgrad.nn.MaxPool2d(2),
        symgrad.nn.Flatten(),
        symgrad.nn.Linear(12, 4),
        symgrad.nn.LogSoftmax(dim=1),
    )
    params = {k: v.detach() for k, v in model.named_parameters()}
    data, targets = symgrad.randn(5, 1, 6, 6), symgrad.tensor([0, 3, 1, 1, 2])

    def loss(params, x, y):
        out = func.functional_call(model, params, (x.unsqueeze(0),))
        return F.nll_loss(out, y.unsqueeze(0))

    per_sample = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, data, targets)
    for i in range(5):
        single = func.grad(loss)(params, data[i], targets[i])
        for k in params:
            np.testing.assert_allclose(per_sample[k][i].numpy(), single[k].numpy(), atol=1e-6)
