"""``torch.autograd.functional`` in strict mode: which step refuses a function, and PyTorch's
words for it (the output, the first gradient, the Jacobian, or the double-backward trick of
``hvp``), and ``hvp``'s graph with ``create_graph``."""

from __future__ import annotations

import pytest


def _x(T):
    return T.tensor([0.5, -1.0, 2.0], dtype=T.float64)


def _v(T):
    return T.tensor([1.0, 2.0, -1.0], dtype=T.float64)


def _F(T):
    return T.autograd.functional


_OUTPUT = (
    "Output 0 of the user-provided function does not require gradients. The outputs must be "
    "computed in a differentiable manner from the input when running in strict mode."
)
_TRICK = (
    "The hessian of the user-provided function is independent of entry 0 in the grad_jacobian. "
    "This is not allowed in strict mode as it prevents from using the double backward trick to "
    "replace forward mode AD."
)
_LINEAR = (
    "While computing the hessian, found that the jacobian of the user-provided function with "
    "respect to input 0 is independent of the input. This is not allowed in strict mode. You "
    "should ensure that your function is twice differentiable and that the jacobian depends on "
    "the inputs (this would be violated by a linear function for example)."
)

CASES = {
    # relu and abs have a first derivative whose own derivative is no function of anything:
    # the double-backward trick of hvp finds no path to the vector it multiplies
    "hvp_relu": (lambda T: _F(T).hvp(lambda x: x.relu().sum(), _x(T), _v(T), strict=True), _TRICK),
    "hvp_abs_create_graph": (
        lambda T: _F(T).hvp(lambda x: x.abs().sum(), _x(T), _v(T), strict=True, create_graph=True),
        _TRICK,
    ),
    "hvp_linear": (
        lambda T: _F(T).hvp(lambda x: (2 * x).sum(), _x(T), _v(T), strict=True),
        _LINEAR,
    ),
    "vhp_linear": (
        lambda T: _F(T).vhp(lambda x: (2 * x).sum(), _x(T), _v(T), strict=True),
        _LINEAR,
    ),
    "hessian_linear": (
        lambda T: _F(T).hessian(lambda x: (2 * x).sum(), _x(T), strict=True),
        _LINEAR,
    ),
    "jacobian_detached": (
        lambda T: _F(T).jacobian(lambda x: x.detach(), _x(T), strict=True),
        _OUTPUT,
    ),
    "hessian_detached": (
        lambda T: _F(T).hessian(lambda x: x.detach().sum(), _x(T), strict=True),
        _OUTPUT,
    ),
    "jacobian_unused_second_input": (
        lambda T: _F(T).jacobian(lambda x, y: x * 2, (_x(T), _v(T)), strict=True),
        "Output 0 of the user-provided function is independent of input 1. This is not allowed "
        "in strict mode.",
    ),
    "jacobian_linear_create_graph": (
        lambda T: _F(T).jacobian(lambda x: x * 2, _x(T), create_graph=True, strict=True),
        "The jacobian of the user-provided function is independent of input 0. This is not "
        "allowed in strict mode when create_graph=True.",
    ),
    "vhp_linear_in_y_create_graph": (
        lambda T: _F(T).vhp(
            lambda x, y: (x**3).sum() + y.sum(),
            (_x(T), _v(T)),
            (_v(T), _v(T)),
            create_graph=True,
            strict=True,
        ),
        _LINEAR.replace("input 0", "input 1"),
    ),
}


def _message(T, fn):
    with pytest.raises(RuntimeError) as info:
        fn(T)
    return str(info.value)


@pytest.mark.parametrize("name", list(CASES))
def test_strict_refusal(name):
    import symgrad

    fn, expected = CASES[name]
    assert _message(symgrad, fn) == expected


@pytest.mark.torch
@pytest.mark.parametrize("name", list(CASES))
def test_strict_refusal_is_pytorchs(name):
    torch = pytest.importorskip("torch")
    fn, expected = CASES[name]
    assert _message(torch, fn) == expected


def _hvp_graph(T):
    """hvp with create_graph of a cubic, then its gradients in x and v."""
    x = _x(T).requires_grad_()
    v = _v(T).requires_grad_()
    r = _F(T).hvp(lambda t: (t**3).sum(), x, v, create_graph=True)[1]
    names = [type(n).__name__ if n is not None else None for n, _ in r.grad_fn.next_functions]
    r.sum().backward()
    return r.tolist(), type(r.grad_fn).__name__, names, x.grad.tolist(), v.grad.tolist()


_HVP_GRAPH = (
    [3.0, -12.0, -12.0],
    "MulBackward0",
    ["MulBackward1", None],
    [6.0, 12.0, -6.0],
    [3.0, -6.0, 12.0],
)


def test_hvp_create_graph():
    import symgrad

    assert _hvp_graph(symgrad) == _HVP_GRAPH


@pytest.mark.torch
def test_hvp_create_graph_is_pytorchs():
    assert _hvp_graph(pytest.importorskip("torch")) == _HVP_GRAPH
