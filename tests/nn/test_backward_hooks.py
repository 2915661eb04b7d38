"""Module.register_full_backward_hook / register_full_backward_pre_hook, get_parameter,
get_buffer."""

import numpy as np
import pytest

import symgrad
import symgrad.nn as nn


def _model(lib):
    m = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU(), lib.nn.Linear(2, 1))
    with lib.no_grad():
        m[0].weight.copy_(lib.tensor([[1.0, -1.0, 0.5], [0.5, 2.0, -1.0]]))
        m[0].bias.copy_(lib.tensor([0.1, -0.2]))
        m[2].weight.copy_(lib.tensor([[2.0, -3.0]]))
        m[2].bias.fill_(0.0)
    return m


def _run(lib, replace=False):
    m = _model(lib)
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append(
            (type(module).__name__, [None if g is None else g.tolist() for g in grad_input])
        )
        if replace and isinstance(module, lib.nn.ReLU):
            return (grad_input[0] * 2,)

    for mod in m:
        mod.register_full_backward_hook(hook)
    pre = []
    m[2].register_full_backward_pre_hook(lambda mod, go: pre.append(go[0].tolist()))
    x = lib.tensor([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]], requires_grad=True)
    y = m(x)
    y.sum().backward()
    return type(y.grad_fn).__name__, seen, pre, x.grad.tolist()


def test_hooks_order_values_and_replacement():
    name, seen, pre, xg = _run(symgrad)
    assert name == "BackwardHookFunctionBackward"
    assert [s[0] for s in seen] == ["Linear", "ReLU", "Linear"]
    assert seen[0][1] == [[[2.0, -3.0], [2.0, -3.0]]]
    assert pre == [[[1.0], [1.0]]]
    assert xg == [[0.5, -8.0, 4.0], [2.0, -2.0, 1.0]]
    _, _, _, doubled = _run(symgrad, replace=True)
    assert doubled == [[1.0, -16.0, 8.0], [4.0, -4.0, 2.0]]


def test_hook_without_input_grad_and_remove():
    lin = nn.Linear(2, 1)
    got = []
    h = lin.register_full_backward_hook(lambda m, gi, go: got.append((gi, go[0].shape)))
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are"):
        lin(symgrad.ones(4, 2)).sum().backward()
    assert got == [((None,), (4, 1))]
    h.remove()
    lin(symgrad.ones(4, 2)).sum().backward()
    assert len(got) == 1


def test_hook_without_input_grad_must_return_nones():
    lin = nn.Linear(2, 1)
    lin.register_full_backward_hook(lambda m, gi, go: (None,))
    with pytest.warns(UserWarning, match="since no inputs require gradients"):
        lin(symgrad.ones(4, 2)).sum().backward()  # all None: accepted
    lin.register_full_backward_hook(lambda m, gi, go: (symgrad.ones(4, 2),))
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="should always return None"):
        lin(symgrad.ones(4, 2)).sum().backward()


@pytest.mark.torch
def test_hook_without_input_grad_against_torch():
    torch = pytest.importorskip("torch")
    for lib in (symgrad, torch):
        lin = lib.nn.Linear(2, 1)
        lin.register_full_backward_hook(lambda m, gi, go: go[0])
        with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="always return None"):
            lin(lib.ones(4, 2)).sum().backward()


def test_get_parameter_and_buffer():
    m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    assert m.get_parameter("0.bias") is m[0].bias
    assert m.get_buffer("1.running_mean") is m[1].running_mean
    with pytest.raises(AttributeError):
        m.get_parameter("0.nothing")


def test_against_torch():
    torch = pytest.importorskip("torch")
    for replace in (False, True):
        ours, theirs = _run(symgrad, replace), _run(torch, replace)
        assert ours[0] == theirs[0] and [s[0] for s in ours[1]] == [s[0] for s in theirs[1]]
        for a, b in zip(ours[1], theirs[1]):
            assert np.allclose(a[1], b[1])
        assert np.allclose(ours[2], theirs[2]) and np.allclose(ours[3], theirs[3])


def test_get_parameter_and_buffer_errors_are_pytorchs():
    m = nn.BatchNorm1d(2)
    with pytest.raises(AttributeError, match=r"^`running_mean` is not an nn.Parameter$"):
        m.get_parameter("running_mean")
    with pytest.raises(AttributeError, match=r"^`weight` is not a buffer$"):
        m.get_buffer("weight")
    with pytest.raises(AttributeError, match=r"^BatchNorm1d has no attribute `zz`$"):
        m.get_buffer("zz")
    assert m.get_buffer("running_mean").shape == (2,)


def _with_forward_hooks(lib):
    """A backward hook registered before a forward pre-hook that doubles the input and a
    forward hook that triples the output: grad_input is the gradient of the doubled input,
    grad_output that of the tripled output, and the forward hook sees the output before any
    hook node."""
    lin = lib.nn.Linear(3, 2)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]]))
        lin.bias.fill_(0.1)
    seen = {}

    def backward_hook(module, grad_input, grad_output):
        seen["grad_input"] = grad_input[0].tolist()
        seen["grad_output"] = grad_output[0].tolist()

    def forward_hook(module, args, output):
        seen["forward_hook_node"] = type(output.grad_fn).__name__
        return output * 3

    lin.register_full_backward_hook(backward_hook)
    lin.register_forward_pre_hook(lambda module, args: (args[0] * 2,))
    lin.register_forward_hook(forward_hook)
    seen["hook_counts"] = (len(lin._forward_pre_hooks), len(lin._forward_hooks))
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = lin(x)
    seen["output_node"] = type(y.grad_fn).__name__
    y.sum().backward()
    seen["x_grad"] = x.grad.tolist()
    return seen


def test_backward_hooks_see_the_inputs_after_the_forward_pre_hooks():
    seen = _with_forward_hooks(symgrad)
    assert seen["grad_input"] == [4.5, 1.5, -1.5]
    assert seen["grad_output"] == [1.0, 1.0]
    assert seen["x_grad"] == [9.0, 3.0, -3.0]
    assert seen["forward_hook_node"] == "ViewBackward0"
    assert seen["output_node"] == "BackwardHookFunctionBackward"
    assert seen["hook_counts"] == (1, 1)


def test_backward_hooks_with_forward_hooks_against_torch():
    torch = pytest.importorskip("torch")
    assert _with_forward_hooks(symgrad) == _with_forward_hooks(torch)
