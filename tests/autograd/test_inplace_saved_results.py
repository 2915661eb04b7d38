"""Which values a node saves decides which in-place changes break its backward, as in PyTorch:
``relu`` (in place or not) and the in-place ``leaky_relu_``, ``elu_``, ``selu_`` and ``celu_``
save their result, so changing the result afterwards raises the inplace-modification
``RuntimeError``, while changing their input does not (``relu``); a product or quotient by a
number or a constant reads only that constant, so changing the other factor is fine."""

from __future__ import annotations

import pytest

import symgrad

MODIFIED = "modified by an inplace operation"


def _leaf(T):
    return T.tensor([0.5, -1.0, 2.0], requires_grad=True)


def _result_changed(fn):
    def run(T):
        x = _leaf(T)
        y = x * 1
        fn(T, y)
        y.mul_(2)
        y.sum().backward()
        return x.grad.tolist()

    return run


def _input_changed(fn):
    def run(T):
        x = _leaf(T)
        h = x * 1
        y = fn(T, h)
        h.mul_(2)
        y.sum().backward()
        return x.grad.tolist()

    return run


def _factor_changed(fn):
    def run(T):
        x = _leaf(T)
        y = x * 1
        z = fn(T, y)
        y.relu_()
        z.sum().backward()
        return x.grad.tolist()

    return run


F = symgrad.nn.functional
# (name, run(T), expected gradient or None for the RuntimeError)
CASES = [
    ("relu_then_mul_", _result_changed(lambda T, y: y.relu_()), None),
    ("F_relu_inplace_then_mul_", _result_changed(lambda T, y: T.nn.functional.relu_(y)), None),
    ("relu_twice", _result_changed(lambda T, y: y.relu_().relu_()), None),
    ("leaky_relu_then_mul_", _result_changed(lambda T, y: T.nn.functional.leaky_relu_(y)), None),
    ("elu_then_mul_", _result_changed(lambda T, y: T.nn.functional.elu_(y)), None),
    ("selu_then_mul_", _result_changed(lambda T, y: T.nn.functional.selu_(y)), None),
    ("celu_then_mul_", _result_changed(lambda T, y: T.nn.functional.celu_(y)), None),
    ("sigmoid_then_mul_", _result_changed(lambda T, y: y.sigmoid_()), None),
    ("tanh_then_mul_", _result_changed(lambda T, y: y.tanh_()), None),
    ("exp_then_mul_", _result_changed(lambda T, y: y.exp_()), None),
    (
        "hardtanh_then_mul_",
        _result_changed(lambda T, y: T.nn.functional.hardtanh_(y)),
        [2.0, 0.0, 0.0],
    ),
    ("relu_input_changed", _input_changed(lambda T, h: T.relu(h)), [1.0, 0.0, 1.0]),
    ("relu_of_mul_by_number", _factor_changed(lambda T, y: y * 2), [2.0, 2.0, 2.0]),
    (
        "mul_by_constant",
        _factor_changed(lambda T, y: y * T.tensor([2.0, 3.0, 4.0])),
        [2.0, 3.0, 4.0],
    ),
    ("div_by_number", _factor_changed(lambda T, y: y / 2), [0.5, 0.5, 0.5]),
    ("add_number", _factor_changed(lambda T, y: y + 2), [1.0, 1.0, 1.0]),
    ("square_reads_y", _factor_changed(lambda T, y: y**2), None),
    ("mul_by_itself", _factor_changed(lambda T, y: y * y), None),
]
IDS = [c[0] for c in CASES]


@pytest.mark.parametrize("name, run, expected", CASES, ids=IDS)
def test_inplace_changes_after_saving(name, run, expected):
    if expected is None:
        with pytest.raises(RuntimeError, match=MODIFIED):
            run(symgrad)
    else:
        assert run(symgrad) == pytest.approx(expected)


@pytest.mark.parametrize("name, run, expected", CASES, ids=IDS)
def test_agrees_with_torch(name, run, expected):
    torch = pytest.importorskip("torch")
    try:
        want = run(torch)
    except RuntimeError as exc:
        assert MODIFIED in str(exc)
        want = None
    if want is None:
        with pytest.raises(RuntimeError, match=MODIFIED):
            run(symgrad)
    else:
        assert run(symgrad) == pytest.approx(want)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda T, y: T.nn.functional.leaky_relu_(y, -0.5), "In-place leakyReLu backward"),
        (lambda T, y: T.nn.functional.elu_(y, -0.5), "In-place elu backward"),
        (lambda T, y: T.nn.functional.celu_(y, -0.5), "In-place elu backward"),
    ],
)
def test_in_place_backward_with_a_negative_slope_is_refused(call, message):
    x = _leaf(symgrad)
    y = x * 1
    call(symgrad, y)  # the forward is fine
    with pytest.raises(RuntimeError, match=message):
        y.sum().backward()


def test_nodes_save_the_result():
    x = _leaf(symgrad)
    y = x.relu()
    assert y.grad_fn._saved_result.tolist() == [0.5, 0.0, 2.0]
    z = x * 1
    F.leaky_relu_(z)
    assert type(z.grad_fn).__name__ == "LeakyReluBackward1"
    assert z.grad_fn._saved_result.tolist() == pytest.approx([0.5, -0.01, 2.0])


def test_relu_gradients_are_unchanged():
    x = symgrad.tensor([0.5, -1.0, 0.0, float("nan")], requires_grad=True)
    x.relu().sum().backward()
    assert x.grad.tolist()[:3] == [1.0, 0.0, 0.0]
    x.grad = None
    y = x * 1
    y.relu_()
    (y * 3).sum().backward()
    assert x.grad.tolist()[:3] == [3.0, 0.0, 0.0]
    assert symgrad.autograd.gradgradcheck(
        symgrad.relu, (symgrad.tensor([0.5, -1.0, 2.0], dtype=symgrad.float64, requires_grad=True),)
    )


def test_logit_gradient_outside_the_unit_interval_is_nan():
    x = symgrad.tensor([4.0, -1.0, 0.5], requires_grad=True)
    symgrad.logit(x).sum().backward()
    g = x.grad.tolist()
    assert g[0] != g[0] and g[1] != g[1] and g[2] == 4.0
