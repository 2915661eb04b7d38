"""The meta device: tensors and modules with shapes and dtypes but no values."""

import copy

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.func import functional_call, stack_module_state, vmap


def test_meta_factories_print_and_device():
    m = symgrad.empty(2, 3, device="meta")
    assert m.is_meta and m.device == symgrad.device("meta") and str(m.device) == "meta"
    assert m.shape == (2, 3) and m.dtype == symgrad.float32
    assert repr(m) == "tensor(..., device='meta', size=(2, 3))"
    d = symgrad.zeros(2, device="meta", dtype=symgrad.float64, requires_grad=True)
    assert repr(d) == (
        "tensor(..., device='meta', size=(2,), dtype=symgrad.float64, requires_grad=True)"
    )
    assert not symgrad.ones(2).is_meta
    moved = symgrad.ones(3).to("meta")
    assert moved.is_meta and moved.shape == (3,)
    assert moved.to("meta") is moved


def test_meta_has_no_values():
    m = symgrad.empty(2, 3, device="meta")
    with pytest.raises(RuntimeError, match="6 elements cannot be converted"):
        m.item()
    with pytest.raises(RuntimeError, match="cannot be called on meta tensors"):
        symgrad.empty(1, device="meta").item()
    with pytest.raises(TypeError, match="meta device type tensor to numpy"):
        m.numpy()
    with pytest.raises(NotImplementedError, match="no data"):
        m.tolist()
    with pytest.raises(NotImplementedError, match="no data"):
        m.cpu()
    with pytest.raises(NotImplementedError, match="no data"):
        m.to("cpu")


def test_meta_mixed_with_cpu_raises():
    m = symgrad.empty(2, 3, device="meta")
    with pytest.raises(RuntimeError, match="is not on the expected device"):
        m._data + symgrad.ones(2, 3)._data


def test_module_to_meta_and_ensembling():
    symgrad.manual_seed(0)
    models = [nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)) for _ in range(3)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert all(p.is_meta for p in base.parameters())
    assert "device='meta', size=(4, 3), requires_grad=True" in repr(base[0].weight)
    assert not models[0][0].weight.is_meta

    def run(p, b, x):
        return functional_call(base, (p, b), (x,))

    x = symgrad.randn(5, 3)
    out = vmap(run, in_dims=(0, 0, None))(params, buffers, x)
    expected = symgrad.stack([m(x) for m in models])
    assert symgrad.allclose(out, expected)


def test_value_factories_refuse_meta():
    with pytest.raises(NotImplementedError, match="meta"):
        symgrad.tensor([1.0], device="meta")


def test_computing_on_a_meta_tensor_raises_rather_than_inventing_values():
    m = symgrad.zeros(2, 3, device="meta", requires_grad=True)
    for compute in (
        lambda: m * 2,
        lambda: m.exp(),
        lambda: m.sum(),
        lambda: m @ symgrad.zeros(3, 2, device="meta"),
    ):
        with pytest.raises(NotImplementedError, match="does not compute on meta tensors"):
            compute()
    with pytest.raises(RuntimeError, match="not on the expected device meta"):
        m + symgrad.ones(2, 3)
    # a value read through a view is nan, never a plausible number
    assert np.isnan(m.reshape(3, 2).detach()._data).all()
