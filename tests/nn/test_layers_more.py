"""The normalization, activation, loss, dropout, embedding and bilinear modules: PyTorch's
initialization, buffers, state_dict keys and repr, the running statistics step by step, and,
with PyTorch importable, whole training steps from identical weights."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import nn

X1 = [[0.5, -1.0], [1.5, 1.0], [-2.0, 0.25]]
X2 = [[1.0, 2.0], [3.0, -1.0]]


@pytest.mark.parametrize(
    "momentum, mean, var, out",
    [
        (
            None,
            [1.0, 0.2916666666666667],
            [2.625, 2.7604166666666665],
            [-0.6172122242071555, 0.4263336109629726],
        ),
        (
            0.1,
            [0.2, 0.0575],
            [1.3025, 1.3518750000000002],
            [-0.17524250902065508, 0.8106091174468156],
        ),
    ],
)
def test_batch_norm_running_statistics_step_by_step(momentum, mean, var, out):
    bn = nn.BatchNorm1d(2, momentum=momentum).double()
    for x in (X1, X2):
        bn(symgrad.tensor(x, dtype=symgrad.float64))
    bn.eval()
    np.testing.assert_allclose(bn.running_mean.numpy(), mean, rtol=1e-15)
    np.testing.assert_allclose(bn.running_var.numpy(), var, rtol=1e-15)
    assert bn.num_batches_tracked.item() == 2 and bn.num_batches_tracked.dtype is symgrad.int64
    y = bn(symgrad.tensor([[0.0, 1.0]], dtype=symgrad.float64))
    np.testing.assert_allclose(y.detach().numpy(), [out], rtol=1e-14)


def test_batch_norm_buffers_state_dict_and_repr():
    bn = nn.BatchNorm2d(3)
    assert list(bn.state_dict()) == [
        "weight",
        "bias",
        "running_mean",
        "running_var",
        "num_batches_tracked",
    ]
    assert bn.weight.tolist() == [1.0] * 3 and bn.bias.tolist() == [0.0] * 3
    assert repr(bn) == (
        "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"
    )
    plain = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    assert list(plain.state_dict()) == [] and plain.running_mean is None
    with pytest.raises(ValueError, match="expected 4D input"):
        bn(symgrad.ones(2, 3))
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.BatchNorm1d(3)(symgrad.ones(2, 3, 1, 1))


def test_layer_and_group_norm_modules():
    ln = nn.LayerNorm(4, bias=False)
    assert repr(ln) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=False)"
    assert list(ln.state_dict()) == ["weight"]
    assert repr(nn.LayerNorm((2, 3), elementwise_affine=False)) == (
        "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False)"
    )
    gn = nn.GroupNorm(2, 4)
    assert repr(gn) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    with pytest.raises(ValueError, match="divisible by num_groups"):
        nn.GroupNorm(3, 4)


def test_activation_module_reprs():
    expected = {
        nn.SELU(): "SELU()",
        nn.CELU(0.5, inplace=True): "CELU(alpha=0.5, inplace=True)",
        nn.Hardtanh(-2.0, 2.0): "Hardtanh(min_val=-2.0, max_val=2.0)",
        nn.ReLU6(True): "ReLU6(inplace=True)",
        nn.Hardswish(True): "Hardswish()",
        nn.Softshrink(): "Softshrink(0.5)",
        nn.GLU(0): "GLU(dim=0)",
        nn.Softmin(1): "Softmin(dim=1)",
        nn.GELU("tanh"): "GELU(approximate='tanh')",
        nn.LeakyReLU(0.2, True): "LeakyReLU(negative_slope=0.2, inplace=True)",
        nn.Softplus(): "Softplus(beta=1.0, threshold=20.0)",
        nn.Dropout(0.3): "Dropout(p=0.3, inplace=False)",
        nn.Embedding(4, 3, max_norm=1.0): "Embedding(4, 3, max_norm=1.0)",
        nn.Bilinear(2, 3, 4): "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)",
        nn.KLDivLoss(reduction="batchmean"): "KLDivLoss()",
    }
    for module, text in expected.items():
        assert repr(module) == text
    with pytest.raises(AssertionError, match="must be greater than min_val"):
        nn.Hardtanh(1.0, -1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(2.0)


def test_embedding_and_bilinear_initialization():
    symgrad.manual_seed(0)
    emb = nn.Embedding(10, 3, padding_idx=-1)
    assert emb.padding_idx == 9 and emb.weight[9].tolist() == [0.0, 0.0, 0.0]
    assert emb.weight.requires_grad
    frozen = nn.Embedding.from_pretrained(symgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    assert not frozen.weight.requires_grad and frozen(symgrad.tensor([1])).tolist() == [[3.0, 4.0]]
    with pytest.raises(AssertionError, match="2-dimensional"):
        nn.Embedding.from_pretrained(symgrad.ones(3))
    bil = nn.Bilinear(4, 3, 2)
    assert bil.weight.shape == (2, 4, 3) and float(bil.weight.detach().abs().max()) <= 0.5


def test_dropout_module_follows_train_and_eval():
    drop = nn.Dropout(0.5)
    x = symgrad.ones(1000)
    assert set(np.unique(drop(x).numpy())) == {0.0, 2.0}
    drop.eval()
    assert drop(x) is x


def test_loss_modules_forward_their_options():
    a, c = symgrad.tensor([[0.5, 3.0]]), symgrad.zeros(1, 2)
    assert nn.SmoothL1Loss(beta=0.5)(a, c).item() == pytest.approx((0.25 + 2.75) / 2)
    assert nn.HuberLoss(reduction="sum", delta=2.0)(a, c).item() == pytest.approx(0.125 + 4.0)
    assert nn.HingeEmbeddingLoss(margin=2.0)(a, -symgrad.ones(1, 2)).item() == pytest.approx(0.75)
    assert nn.MarginRankingLoss(1.0)(a[0], c[0], symgrad.ones(2)).item() == pytest.approx(0.25)


# -- step for step against PyTorch, from identical weights -----------------------------------------
def _copy(ours, theirs, torch):
    for (n, p), (m, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n == m
        with torch.no_grad():
            q.copy_(torch.tensor(p.detach().numpy()))


def _close(a, b):
    # (a group norm of a nearly constant group amplifies the two libraries' rounding: 2e-10)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)


MODELS = [
    lambda M: M.BatchNorm1d(3),
    lambda M: M.BatchNorm1d(3, momentum=None),
    lambda M: M.BatchNorm2d(3, affine=False, track_running_stats=False),
    lambda M: M.LayerNorm(3),
    lambda M: M.GroupNorm(1, 3),
    lambda M: M.Sequential(M.Linear(3, 6), M.BatchNorm1d(6), M.SELU(), M.LayerNorm(6), M.Mish()),
    lambda M: M.Sequential(M.Linear(3, 6), M.GroupNorm(3, 6), M.Hardswish(), M.GLU(), M.CELU()),
    lambda M: M.Sequential(M.Hardtanh(), M.LogSigmoid(), M.Softshrink(0.1), M.Softmin(dim=1)),
]


@pytest.mark.parametrize("make", MODELS)
def test_training_steps_match_pytorch(make):
    torch = pytest.importorskip("torch")
    symgrad.manual_seed(0)  # the same weights at every run (copied into PyTorch's model)
    ours, theirs = make(nn).double(), make(torch.nn).double()
    _copy(ours, theirs, torch)
    assert repr(ours) == repr(theirs)
    params = list(theirs.parameters())
    if params:
        opt = symgrad.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
        topt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    rng = np.random.default_rng(0)
    shape = (4, 3, 2, 2) if isinstance(theirs, torch.nn.BatchNorm2d) else (5, 3)
    for step in range(4):
        if step == 3:
            ours.eval(), theirs.eval()
        x = rng.standard_normal(shape)
        xs, xt = symgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ys, yt = ours(xs), theirs(xt)
        _close(ys, yt)
        assert ys.grad_fn.name() == yt.grad_fn.name()
        w = rng.standard_normal(tuple(yt.shape))
        (ys * symgrad.tensor(w)).sum().backward()
        (yt * torch.tensor(w)).sum().backward()
        _close(xs.grad, xt.grad)
        if params:
            opt.step(), topt.step()
            opt.zero_grad(), topt.zero_grad()
        state, tstate = ours.state_dict(), theirs.state_dict()
        assert list(state) == list(tstate)
        for key in state:
            _close(state[key], tstate[key])
