"""``symgrad.amp.GradScaler``: PyTorch's loss scaling, unscaling, skipped steps and scale
updates, its errors, and the disabled scaler of the "cuda" device."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn


def _model() -> tuple:
    model = nn.Linear(2, 1)
    with symgrad.no_grad():
        model.weight.copy_(symgrad.tensor([[0.5, -0.25]]))
        model.bias.fill_(0.125)
    return model, symgrad.optim.SGD(model.parameters(), lr=0.1)


def _loss(model: nn.Module, factor: float = 1.0) -> symgrad.Tensor:
    return model(symgrad.ones(1, 2)).sum() * factor


def test_a_training_step() -> None:
    model, opt = _model()
    scaler = symgrad.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    assert scaler.get_scale() == 4.0 and scaler.is_enabled()
    scaled = scaler.scale(_loss(model))
    assert scaled.grad_fn.name() == "MulBackward0"
    assert scaled.item() == pytest.approx(4 * 0.375)
    scaled.backward()
    np.testing.assert_array_equal(model.weight.grad.numpy(), [[4.0, 4.0]])
    scaler.unscale_(opt)
    np.testing.assert_array_equal(model.weight.grad.numpy(), [[1.0, 1.0]])
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    assert scaler.step(opt) is None
    np.testing.assert_allclose(model.weight.detach().numpy(), [[0.4, -0.35]])
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) is being called after step"):
        scaler.unscale_(opt)
    scaler.update()
    assert scaler.get_scale() == 4.0
    assert scaler.state_dict() == {
        "scale": 4.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
        "_growth_tracker": 1,
    }  # fmt: skip
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        scaler.update()
    # a second clean step: growth_interval reached, the scale doubles
    opt.zero_grad()
    scaler.scale(_loss(model)).backward()
    scaler.step(opt)
    scaler.update()
    assert scaler.get_scale() == 8.0 and scaler.state_dict()["_growth_tracker"] == 0


def test_a_non_finite_gradient_skips_the_step_and_backs_off() -> None:
    model, opt = _model()
    scaler = symgrad.amp.GradScaler("cpu", init_scale=8.0)
    scaler.scale(_loss(model, float("inf"))).backward()
    before = model.weight.detach().clone()
    assert scaler.step(opt) is None
    assert symgrad.equal(model.weight.detach(), before)
    scaler.update()
    assert scaler.get_scale() == 4.0


def test_scaling_containers_and_errors() -> None:
    scaler = symgrad.amp.GradScaler("cpu", init_scale=2.0)
    out = scaler.scale([symgrad.ones(1), (symgrad.ones(2),)])
    assert type(out) is list and type(out[1]) is tuple
    assert out[0].tolist() == [2.0] and out[1][0].tolist() == [2.0, 2.0]
    assert scaler.scale(symgrad.ones(1, dtype=symgrad.float64)).dtype == symgrad.float64
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        scaler.scale(3.0)
    model, opt = _model()
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0)
    with pytest.raises(AssertionError, match="No inf checks were recorded for this optimizer"):
        scaler.step(opt)  # no gradient yet


def test_step_or_update_before_scale() -> None:
    model, opt = _model()
    for name, call in (("step", lambda s: s.step(opt)), ("update", lambda s: s.update())):
        with pytest.raises(AssertionError, match=f"Attempted {name} but _scale is None"):
            call(symgrad.amp.GradScaler("cpu"))


def test_update_to_a_given_scale() -> None:
    scaler = symgrad.amp.GradScaler("cpu")
    assert scaler.get_scale() == 65536.0
    scaler.scale(symgrad.ones(1))
    scaler.update(8.0)
    assert scaler.get_scale() == 8.0
    scaler.update(symgrad.tensor(16.0))
    assert scaler.get_scale() == 16.0
    with pytest.raises(AssertionError, match="new_scale should be a float or a 1-element"):
        scaler.update(symgrad.tensor([16.0, 2.0]))


def test_state_dict_round_trip() -> None:
    scaler = symgrad.amp.GradScaler("cpu")
    state = {"scale": 2.0, "growth_factor": 3.0, "backoff_factor": 0.25, "growth_interval": 5}
    scaler.load_state_dict({**state, "_growth_tracker": 1})
    assert scaler.state_dict() == {**state, "_growth_tracker": 1}
    assert (scaler.get_growth_factor(), scaler.get_backoff_factor()) == (3.0, 0.25)
    assert scaler.get_growth_interval() == 5
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        symgrad.amp.GradScaler("cpu").load_state_dict({})


def test_disabled_scaler_changes_nothing() -> None:
    model, opt = _model()
    scaler = symgrad.amp.GradScaler("cpu", enabled=False)
    loss = _loss(model)
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_allclose(model.weight.detach().numpy(), [[0.4, -0.35]])
    assert scaler.get_scale() == 1.0 and scaler.state_dict() == {}


def test_cuda_scalers_are_disabled_with_pytorch_s_warnings() -> None:
    with pytest.warns(UserWarning, match="CUDA is not available"):
        assert not symgrad.amp.GradScaler().is_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not symgrad.amp.GradScaler(enabled=False).is_enabled()
    with pytest.warns(FutureWarning, match="symgrad.cuda.amp.GradScaler\\(args...\\)"):
        with pytest.warns(UserWarning, match="CUDA is not available"):
            scaler = symgrad.cuda.amp.GradScaler()
    assert isinstance(scaler, symgrad.amp.GradScaler) and not scaler.is_enabled()
    with pytest.warns(FutureWarning, match="symgrad.cuda.amp.autocast"):
        with symgrad.cuda.amp.autocast(enabled=False):
            pass
