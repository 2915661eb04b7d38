"""Module hooks under ``compile``: PyTorch runs a compiled model's forward hooks (and pre-hooks,
and backward hooks) at every call, on that call's values, as a feature-extraction hook expects.
A traced program would run them at trace time only (and on the check's perturbed arguments), so
a model whose modules have hooks runs eagerly, with a warning, and each hook runs once per call."""

from __future__ import annotations

import warnings

import pytest

import symgrad


def _hooked_calls(T, register, compiled=True):
    """Three calls of a model (compiled) with hooks registered by ``register``: what the hooks
    saw."""
    T.manual_seed(0)
    nn = T.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)).double()
    seen = []
    register(model, seen)
    fast = T.compile(model) if compiled else model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(3):
            (fast(T.full((2, 3), float(k), dtype=T.float64)) * (k + 1)).sum().backward()
    return [round(float(v.sum()), 6) if hasattr(v, "sum") else v for v in seen]


def _forward_hook(model, seen):
    model[1].register_forward_hook(lambda m, i, o: seen.append(o.detach()))


def _pre_hook(model, seen):
    model.register_forward_pre_hook(lambda m, a: seen.append(a[0].detach()))


def _backward_hook(model, seen):
    model[2].register_full_backward_hook(lambda m, gi, go: seen.append(go[0]))


CASES = {
    "forward_hook": (_forward_hook, [0.042774, 0.314205, 1.104403]),
    "pre_hook": (_pre_hook, [0.0, 6.0, 12.0]),
    "backward_hook": (_backward_hook, [4.0, 8.0, 12.0]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hooks_run_at_every_call(name):
    register, expected = CASES[name]
    assert _hooked_calls(symgrad, register) == expected


def test_a_hooked_model_runs_eagerly_with_a_warning():
    model = symgrad.nn.Sequential(symgrad.nn.Linear(2, 2), symgrad.nn.Tanh())
    model[1].register_forward_hook(lambda m, i, o: None)
    with pytest.warns(UserWarning, match="Tanh has hooks.*test_compiled_hooks.py"):
        symgrad.compile(model)(symgrad.ones(1, 2))
    handle = symgrad.nn.Linear(2, 2).register_forward_hook(lambda m, i, o: None)
    handle.remove()


def test_without_hooks_it_compiles_again():
    model = symgrad.nn.Sequential(symgrad.nn.Linear(2, 2), symgrad.nn.Tanh())
    handle = model[1].register_forward_hook(lambda m, i, o: None)
    fast = symgrad.compile(model)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast(symgrad.ones(1, 2))
    handle.remove()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = fast(symgrad.ones(1, 2, requires_grad=True))
    assert out.grad_fn.name() == "CompiledFunctionBackward"


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_pytorch_runs_hooks_at_every_call(name):
    """PyTorch's hooks see these values; its ``torch.compile`` keeps them (it runs the hooks at
    every call), but loading its compiler takes half a minute, so the run here is eager."""
    torch = pytest.importorskip("torch")
    register, expected = CASES[name]
    assert _hooked_calls(torch, register, compiled=False) == expected
