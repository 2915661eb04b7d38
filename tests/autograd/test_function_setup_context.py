"""A custom Function written PyTorch 2's way: ``forward(*inputs)`` without ``ctx`` and a
separate ``setup_context(ctx, inputs, output)``."""

import numpy as np
import pytest

import symgrad
from symgrad.autograd import Function


class LinearFn(Function):
    @staticmethod
    def forward(input, weight, bias=None):
        out = input.mm(weight.t())
        return out if bias is None else out + bias

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight)
        ctx.has_bias = bias is not None

    @staticmethod
    def backward(ctx, g):
        input, weight = ctx.saved_tensors
        gb = g.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return g.mm(weight), g.t().mm(input), gb


def _inputs():
    x = symgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    w = symgrad.tensor([[0.5, -1.0], [2.0, 0.0], [1.0, 1.0]], requires_grad=True)
    b = symgrad.tensor([0.1, 0.2, 0.3], requires_grad=True)
    return x, w, b


def test_setup_context_forward_and_backward():
    x, w, b = _inputs()
    y = LinearFn.apply(x, w, b)
    assert type(y.grad_fn).__name__ == "LinearFnBackward"
    assert np.allclose(y.detach().numpy(), [[-1.4, 2.2, 3.3], [-2.4, 6.2, 7.3]])
    y.sum().backward()
    assert x.grad.tolist() == [[3.5, 0.0], [3.5, 0.0]]
    assert w.grad.tolist() == [[4.0, 6.0]] * 3 and b.grad.tolist() == [2.0, 2.0, 2.0]


def test_setup_context_without_bias_and_gradcheck():
    x, w, _ = _inputs()
    y = LinearFn.apply(x, w, None)
    assert y.shape == (2, 3)
    args = tuple(t.detach().double().requires_grad_() for t in _inputs())
    assert symgrad.autograd.gradcheck(LinearFn.apply, args)


def test_setup_context_against_torch():
    torch = pytest.importorskip("torch")

    class TorchLinear(torch.autograd.Function):
        forward = staticmethod(LinearFn.forward)
        setup_context = staticmethod(LinearFn.setup_context)
        backward = staticmethod(LinearFn.backward)

    ours = _inputs()
    theirs = [torch.tensor(t.tolist(), requires_grad=True) for t in ours]
    LinearFn.apply(*ours).pow(2).sum().backward()
    TorchLinear.apply(*theirs).pow(2).sum().backward()
    for a, b in zip(ours, theirs):
        assert np.allclose(a.grad.numpy(), b.grad.numpy())


def _sine(T, setup_context: bool, rule: bool = False, static_vmap: bool = False):
    """sin as a Function: with ``forward(ctx, x)`` or ``forward(x)`` and ``setup_context``,
    with ``generate_vmap_rule`` and/or a ``vmap`` staticmethod."""
    body = {"generate_vmap_rule": rule}
    if setup_context:
        body["forward"] = staticmethod(lambda x: x.sin())
        body["setup_context"] = staticmethod(
            lambda ctx, inputs, output: ctx.save_for_backward(*inputs)
        )
    else:

        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        body["forward"] = staticmethod(forward)
    body["backward"] = staticmethod(lambda ctx, g: g * ctx.saved_tensors[0].cos())
    if static_vmap:
        body["vmap"] = staticmethod(lambda info, in_dims, x: (x.sin(), in_dims[0]))
    return type("Sine", (T.autograd.Function,), body)


# (transform, Function flags): the error's type and first words, or None where it runs
_UNDER_TRANSFORMS = [
    (
        "vmap",
        {"setup_context": False},
        ("RuntimeError", "In order to use an autograd.Function with functorc"),
    ),
    (
        "grad",
        {"setup_context": False},
        ("RuntimeError", "In order to use an autograd.Function with functorc"),
    ),
    (
        "vmap",
        {"setup_context": True},
        ("RuntimeError", "You tried to vmap over Sine, but it does not have "),
    ),
    (
        "vmap",
        {"setup_context": True, "rule": True, "static_vmap": True},
        ("RuntimeError", "You tried to vmap over Sine, but it has both gener"),
    ),
    ("vmap", {"setup_context": True, "rule": True}, None),
    ("vmap", {"setup_context": True, "static_vmap": True}, None),
    ("grad", {"setup_context": True}, None),
]


def _under_transforms(T) -> list:
    import warnings

    x = T.tensor([[0.5, 1.0], [2.0, -1.0]])
    found = []
    for transform, flags, _ in _UNDER_TRANSFORMS:
        apply = _sine(T, **flags).apply
        run = T.vmap(apply) if transform == "vmap" else T.func.grad(lambda t, f=apply: f(t).sum())
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = run(x)
        except Exception as e:
            found.append((type(e).__name__, str(e)[:50]))
        else:
            expected = x.sin() if transform == "vmap" else x.cos()
            found.append(None if T.allclose(got, expected) else "wrong values")
    return found


def test_functions_under_transforms_need_setup_context_and_a_vmap_rule():
    # they ran (looping over the batch) where PyTorch refuses them
    assert _under_transforms(symgrad) == [expected for _, _, expected in _UNDER_TRANSFORMS]


@pytest.mark.torch
def test_functions_under_transforms_as_pytorch():
    torch = pytest.importorskip("torch")
    assert _under_transforms(torch) == [expected for _, _, expected in _UNDER_TRANSFORMS]
