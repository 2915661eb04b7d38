"""Forward mode through custom Functions and in-place ops, and the forward-mode checks of
``gradcheck`` and ``gradgradcheck`` (expected outcomes written out, PyTorch's compared when it
is importable)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import symgrad
import symgrad.autograd.forward_ad as fwAD
from symgrad.autograd import GradcheckError, gradcheck, gradgradcheck


def functions(T):
    """Custom Functions of library ``T``: with a jvp, without one, and with wrong ones."""

    class Cube(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_forward(a)
            ctx.inside = T.autograd.forward_ad.unpack_dual(a).tangent
            return a**3 * b

        @staticmethod
        def backward(ctx, g):
            return g, g

        @staticmethod
        def jvp(ctx, ta, tb):
            (a,) = ctx.saved_tensors
            return 3 * a**2 * ta + (0 if tb is None else a**3 * tb)

    class NoJvp(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class TooFew(NoJvp):
        @staticmethod
        def forward(ctx, a):
            return a * 2, a * 3

        @staticmethod
        def backward(ctx, g, h):
            return g

        @staticmethod
        def jvp(ctx, t):
            return t * 2

    class WrongSize(NoJvp):
        @staticmethod
        def jvp(ctx, t):
            return t.sum()

    class NotATensor(NoJvp):
        @staticmethod
        def jvp(ctx, t):
            return 5.0

    return Cube, NoJvp, TooFew, WrongSize, NotATensor


def _run(T, case):
    fw = importlib.import_module(T.__name__ + ".autograd.forward_ad")
    Cube, NoJvp, TooFew, WrongSize, NotATensor = functions(T)
    x = T.tensor([1.0, 2.0], dtype=T.float64)
    try:
        with fw.dual_level():
            d = fw.make_dual(x, T.tensor([1.0, 0.5], dtype=T.float64))
            if case == "cube_of_a_number_factor":
                out = Cube.apply(d, 2.0)
            elif case == "cube_with_a_tensor_factor":
                out = Cube.apply(d, T.tensor([1.0, 1.0], dtype=T.float64))
            else:
                out = {"no_jvp": NoJvp, "too_few": TooFew, "wrong_size": WrongSize}.get(
                    case, NotATensor
                ).apply(d)
            return "ok", fw.unpack_dual(out).tangent.numpy().tolist()
    except Exception as exc:  # the outcome compared is the exception itself
        return type(exc).__name__, str(exc)


CASES = {
    "cube_of_a_number_factor": ("ok", [3.0, 6.0]),
    "cube_with_a_tensor_factor": ("ok", [3.0, 6.0]),
    "no_jvp": (
        "NotImplementedError",
        "You must implement the jvp function for custom autograd.Function to use it with "
        "forward mode AD.",
    ),
    "too_few": (
        "RuntimeError",
        "Function's jvp returned an invalid number of forward gradients (expected 2 but got 1)",
    ),
    "wrong_size": (
        "RuntimeError",
        "Trying to set a forward gradient that has a different size than that of the original "
        "Tensor, this is not supported. Tensor is of size [2] while the given forward gradient "
        "is of size [].",
    ),
    "not_a_tensor": ("RuntimeError", "expected Variable or None (got float) for grad output 0."),
}


@pytest.mark.parametrize("case", list(CASES))
def test_custom_function_jvp(case):
    assert _run(symgrad, case) == CASES[case]


@pytest.mark.torch
@pytest.mark.parametrize("case", list(CASES))
def test_custom_function_jvp_is_pytorchs(case):
    torch = pytest.importorskip("torch")
    assert _run(torch, case) == CASES[case]


def test_forward_of_a_custom_function_sees_no_tangent():
    """As in PyTorch, forward runs with forward mode off; the jvp gives the tangent."""
    Cube = functions(symgrad)[0]
    x = symgrad.ones(2, dtype=symgrad.float64, requires_grad=True)
    with fwAD.dual_level():
        out = Cube.apply(fwAD.make_dual(x, symgrad.ones(2, dtype=symgrad.float64)), 1.0)
        assert out.grad_fn.inside is None
        assert fwAD.unpack_dual(out).tangent.tolist() == [3.0, 3.0]


# -- in-place ops on tensors that share memory ------------------------------------------------
def views_and_tangents(T):
    """Values and tangents after in-place changes through views, as lists."""
    fw = importlib.import_module(T.__name__ + ".autograd.forward_ad")

    def f(*values):
        return T.tensor(list(values))

    def dual(values, tangent):
        return fw.make_dual(T.tensor(values), T.tensor(tangent))

    def show(*ts):
        return [None if t is None else t.tolist() for t in ts]

    def tangent(t):
        return fw.unpack_dual(t).tangent

    out = []
    with fw.dual_level():
        x = f(1.0, 2.0, 3.0)
        d = fw.make_dual(x, T.ones(3))
        d.mul_(2)  # the primal's values change, its tangent stays None
        out.append(show(x, tangent(x), tangent(d)))
        e = f(1.0, 2.0, 3.0)
        v, w = e[1:], e[:2]
        v.mul_(dual([2.0, 2.0], [1.0, 1.0]))
        out.append(show(tangent(e), tangent(v), tangent(w)))
        e = dual([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]).clone()
        v = e[1:]
        e.mul_(3)
        out.append(show(tangent(v)))
        e = dual([[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]).clone()
        column = e.t()[0]
        column.add_(dual([0.0, 0.0], [10.0, 20.0]))
        out.append(show(e, tangent(e), tangent(column)))
        e = dual([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]).clone()
        e[1:] = 7.0
        out.append(show(e, tangent(e)))
        e = T.zeros(3)
        e[0:2] = dual([5.0, 6.0], [1.0, 2.0])
        out.append(show(e, tangent(e)))
        e = dual([1.0, 2.0, 3.0], [1.0, 1.0, 1.0]).clone()
        alias = e.detach()
        alias.mul_(2)  # shares the values, not the tangent
        out.append(show(e, tangent(e), tangent(alias)))
        e = f(1.0, 2.0, 3.0)
        e[0:2].copy_(dual([5.0, 6.0], [1.0, 2.0]))
        out.append(show(e, tangent(e)))
    return out


VIEWS = [
    [[2.0, 4.0, 6.0], None, [2.0, 2.0, 2.0]],
    [[0.0, 2.0, 3.0], [2.0, 3.0], [0.0, 2.0]],
    [[3.0, 3.0]],
    [[[1.0, 2.0], [3.0, 4.0]], [[11.0, 2.0], [23.0, 4.0]], [11.0, 23.0]],
    [[1.0, 7.0, 7.0], [1.0, 0.0, 0.0]],
    [[5.0, 6.0, 0.0], [1.0, 2.0, 0.0]],
    [[2.0, 4.0, 6.0], [1.0, 1.0, 1.0], None],
    [[5.0, 6.0, 3.0], [1.0, 2.0, 0.0]],
]


def test_in_place_changes_through_views_share_tangents():
    assert views_and_tangents(symgrad) == VIEWS


@pytest.mark.torch
def test_in_place_changes_through_views_are_pytorchs():
    torch = pytest.importorskip("torch")
    assert views_and_tangents(torch) == VIEWS


def test_in_place_through_a_view_with_a_differentiable_tangent_is_refused():
    """The tangents of views are shared without recording, so a tangent that requires grad
    (forward-over-reverse) would lose its graph: refused rather than left wrong."""
    with fwAD.dual_level():
        tangent = symgrad.ones(3, requires_grad=True) * 2
        e = fwAD.make_dual(symgrad.ones(3), tangent).clone()
        view = e[1:]
        with pytest.raises(RuntimeError, match="requires grad"):
            view.mul_(2)
        np.testing.assert_array_equal(e.numpy(), [1.0, 1.0, 1.0])  # nothing was changed
        with pytest.raises(RuntimeError, match="requires grad"):
            e.mul_(2)  # e has a live view
        del view
        e.mul_(2)  # no view left: the tangent stays differentiable
        t = fwAD.unpack_dual(e).tangent
        assert t.requires_grad and t.tolist() == [4.0, 4.0, 4.0]


# -- gradcheck's forward-mode and batched checks ------------------------------------------------
def _x():
    return symgrad.tensor([0.3, -0.8, 1.1], dtype=symgrad.float64, requires_grad=True)


def _y():
    return symgrad.tensor(
        [[0.5, -1.2, 0.7], [1.4, 0.2, -0.3]], dtype=symgrad.float64
    ).requires_grad_()


def model(a, b):
    return (a.sin() * b).softmax(1), (b @ a).exp(), (a * a).sum()


def test_gradcheck_forward_and_batched_pass_on_correct_rules():
    assert gradcheck(model, (_x(), _y()), check_forward_ad=True, check_batched_grad=True)
    assert gradcheck(model, (_x(), _y()), check_forward_ad=True, check_backward_ad=False)
    assert gradgradcheck(model, (_x(), _y()), check_fwd_over_rev=True, check_batched_grad=True)
    # without reverse over reverse, PyTorch asks for check_undefined_grad=False
    assert gradgradcheck(
        model,
        (_x(), _y()),
        check_fwd_over_rev=True,
        check_rev_over_rev=False,
        check_undefined_grad=False,
    )


class WrongJvp(symgrad.autograd.Function):
    """x**2 with a right backward and a wrong forward rule."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g

    @staticmethod
    def jvp(ctx, t):
        return 3 * t


def test_check_forward_ad_catches_a_wrong_jvp():
    assert gradcheck(WrongJvp.apply, (_x(),))  # reverse mode is right
    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch"):
        gradcheck(WrongJvp.apply, (_x(),), check_forward_ad=True)
    assert not gradcheck(WrongJvp.apply, (_x(),), check_forward_ad=True, raise_exception=False)


class SquaredGrad(symgrad.autograd.Function):
    """2x whose backward squares its incoming gradient: right for g = 1 only."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return 2 * g * g


def test_check_batched_grad_catches_a_backward_not_linear_in_g():
    with pytest.raises(GradcheckError, match="Batched grad check failed"):
        gradcheck(lambda t: SquaredGrad.apply(t).sum(), (_x(),), check_batched_grad=True)


class WrongJvpInBackward(symgrad.autograd.Function):
    """sin whose backward multiplies by cos through :class:`WrongJvp`-like op with a wrong
    forward rule: reverse-over-reverse is right, forward-over-reverse is not."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.save_for_forward(x)
        return x.sin()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * WrongCos.apply(x)

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return x.cos() * t


class WrongCos(symgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.cos()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return -g * x.sin()

    @staticmethod
    def jvp(ctx, t):
        return t  # should be -sin(x) t


def test_check_fwd_over_rev_catches_a_wrong_rule_in_a_backward():
    assert gradgradcheck(WrongJvpInBackward.apply, (_x(),))
    with pytest.raises(GradcheckError, match="forward mode mismatch"):
        gradgradcheck(WrongJvpInBackward.apply, (_x(),), check_fwd_over_rev=True)


def non_differentiable_output(T, requires_grad):
    fw = importlib.import_module(T.__name__ + ".autograd.forward_ad")

    class Two(T.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            b = a * 3
            ctx.mark_non_differentiable(b)
            return a * 2, b

        @staticmethod
        def backward(ctx, g, h):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 2, t * 3

    try:
        with fw.dual_level():
            d = fw.make_dual(T.ones(2, requires_grad=requires_grad), T.ones(2))
            a, b = Two.apply(d)
            return [fw.unpack_dual(o).tangent.tolist() for o in (a, b)]
    except RuntimeError as exc:
        return " ".join(str(exc).split())[:60]  # PyTorch's message has a double space


@pytest.mark.parametrize("requires_grad", [False, True])
def test_a_tangent_for_a_non_differentiable_output_is_refused(requires_grad):
    expected = "Function's jvp returned a gradient at position 1, but the co"
    assert non_differentiable_output(symgrad, requires_grad) == expected
    torch = pytest.importorskip("torch")
    assert non_differentiable_output(torch, requires_grad) == expected
