"""``F.instance_norm`` and ``InstanceNorm1d/2d/3d``: values, running statistics, node names,
gradients, errors; PyTorch cross-checks when it is importable."""

import warnings

import numpy as np
import pytest

import symgrad
import symgrad.nn as nn
import symgrad.nn.functional as F
from symgrad.autograd import gradcheck, gradgradcheck


def _chain(t):
    names, f = [], t.grad_fn
    while f is not None:
        names.append(type(f).__name__)
        f = next((n for n, _ in f.next_functions if n is not None), None)
    return names


def test_values_statistics_and_nodes():
    x = symgrad.tensor([[[1.0, 3.0], [0.0, 4.0]], [[2.0, 2.0], [1.0, -1.0]]], requires_grad=True)
    w = symgrad.tensor([2.0, 1.0], requires_grad=True)
    mean, var = symgrad.zeros(2), symgrad.ones(2)
    out = F.instance_norm(x, mean, var, weight=w, bias=symgrad.tensor([0.5, 0.0]))
    expected = [[[-1.5, 2.5], [-1.0, 1.0]], [[0.5, 0.5], [1.0, -1.0]]]
    assert np.allclose(out.detach().numpy(), expected, atol=1e-4)
    assert np.allclose(mean.numpy(), [0.2, 0.1]) and np.allclose(var.numpy(), [1.0, 1.4])
    assert mean._version == 1
    assert _chain(out) == [
        "ViewBackward0",
        "NativeBatchNormBackward0",
        "ViewBackward0",
        "AccumulateGrad",
    ]
    assert type(out.grad_fn.next_functions[0][0].next_functions[1][0]).__name__ == (
        "RepeatBackward0"
    )
    out = F.instance_norm(x, mean, var, use_input_stats=False)
    assert np.allclose(out.detach().numpy()[0, 0], [0.8, 2.8], atol=1e-4)
    assert mean._version == 1  # evaluation leaves the statistics alone


def test_gradcheck():
    x = symgrad.randn(2, 3, 4, dtype=symgrad.float64, requires_grad=True)
    w = symgrad.randn(3, dtype=symgrad.float64, requires_grad=True)
    b = symgrad.randn(3, dtype=symgrad.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (x, w, b))
    assert gradgradcheck(lambda x, w: F.instance_norm(x, weight=w), (x, w))


def test_errors():
    with pytest.raises(ValueError, match="more than 1 spatial element"):
        F.instance_norm(symgrad.ones(2, 3, 1))
    with pytest.raises(RuntimeError, match="use_input_stats is false"):
        F.instance_norm(symgrad.ones(2, 3, 4), use_input_stats=False)
    with pytest.raises(RuntimeError, match="weight should contain 6 elements not 4"):
        F.instance_norm(symgrad.ones(2, 3, 4), weight=symgrad.ones(2))
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        nn.InstanceNorm2d(3)(symgrad.ones(2, 3))
    with pytest.raises(ValueError, match="to match num_features"):
        nn.InstanceNorm1d(3, affine=True)(symgrad.ones(2, 4, 5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.InstanceNorm1d(3)(symgrad.randn(2, 4, 5))
    assert "does not match num_features" in str(caught[0].message)


def test_modules():
    norm = nn.InstanceNorm1d(2, affine=True, track_running_stats=True)
    assert repr(norm) == (
        "InstanceNorm1d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, "
        "track_running_stats=True)"
    )
    assert list(norm.state_dict()) == [
        "weight", "bias", "running_mean", "running_var", "num_batches_tracked",
    ]  # fmt: skip
    x = symgrad.tensor([[1.0, 3.0], [0.0, 4.0]])
    out = norm(x)  # unbatched
    assert type(out.grad_fn).__name__ == "SqueezeBackward1"
    assert np.allclose(norm.running_mean.numpy(), [0.2, 0.2])
    assert norm.num_batches_tracked.item() == 0  # instance norm does not count batches
    norm.eval()
    assert np.allclose(
        norm(x).detach().numpy()[0], (np.array([1.0, 3.0]) - 0.2) / np.sqrt(1.1 + 1e-5)
    )
    assert list(nn.InstanceNorm2d(3).state_dict()) == []


@pytest.mark.parametrize("cls, shape", [("InstanceNorm1d", (2, 3, 5)),
                                        ("InstanceNorm2d", (2, 3, 4, 2)),
                                        ("InstanceNorm3d", (2, 3, 2, 2, 2))])  # fmt: skip
@pytest.mark.parametrize("options", [{}, {"affine": True, "track_running_stats": True}])
def test_against_torch(cls, shape, options):
    torch = pytest.importorskip("torch")
    rs = np.random.RandomState(0)
    mods = [getattr(lib.nn, cls)(3, **options).double() for lib in (symgrad, torch)]
    state = {k: rs.rand(*v.shape) + 0.5 for k, v in mods[1].state_dict().items() if v.ndim}
    for lib, m in zip((symgrad, torch), mods):
        m.load_state_dict({k: lib.tensor(v) for k, v in state.items()}, strict=False)
    assert repr(mods[0]) == repr(mods[1])
    data = rs.randn(*shape)
    results = []
    for lib, m in zip((symgrad, torch), mods):
        x = lib.tensor(data, requires_grad=True)
        y, unbatched = m(x), m(x[1])
        m.eval()
        z = m(x)
        (y.sin().sum() + (unbatched * unbatched).sum() + (z**3).sum()).backward()
        values = [
            y,
            unbatched,
            z,
            x.grad,
            *m.state_dict().values(),
            *(p.grad for p in m.parameters()),
        ]
        results.append([v.detach().numpy() for v in values] + [_chain(y), _chain(unbatched)])
    for ours, theirs in zip(*results):
        assert ours == theirs if isinstance(ours, list) else np.allclose(ours, theirs)
