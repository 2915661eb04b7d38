"""gradcheck and gradgradcheck: verdicts, messages and edge cases.

The wrong backwards come from ``functions.py``, each off by a known amount in a known input,
so the tests can say which input and which element a message must name.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad.autograd import Function, GradcheckError, gradcheck, gradgradcheck

from .functions import cube, detached_cube, mul_sin, ones_when_zero, sum_and_scale, swapped


def f64(*shape, requires_grad=True, seed=0):
    rng = np.random.default_rng(seed)
    return symgrad.tensor(
        rng.uniform(-2, 2, shape), dtype=symgrad.float64, requires_grad=requires_grad
    )


@pytest.fixture
def xy():
    return f64(2, 3, seed=1), f64(3, seed=2)


# -- the verdicts ---------------------------------------------------------------------------------


@pytest.mark.parametrize("fast_mode", [False, True])
def test_a_correct_custom_function_passes(xy, fast_mode):
    assert gradcheck(mul_sin(symgrad).apply, xy, fast_mode=fast_mode) is True


@pytest.mark.parametrize("fast_mode", [False, True])
def test_a_backward_wrong_by_one_percent_is_caught_naming_the_input(xy, fast_mode):
    with pytest.raises(GradcheckError) as info:
        gradcheck(mul_sin(symgrad, error=0.01).apply, xy, fast_mode=fast_mode)
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 1,\n")
    assert "input 0" not in message


def test_the_message_names_the_worst_element_and_shows_both_jacobians(xy):
    x, y = xy
    with pytest.raises(GradcheckError) as info:
        gradcheck(mul_sin(symgrad, error=0.01).apply, xy)
    message = str(info.value)
    # d out[i, j] / d y[j] = x[i, j] cos(y[j]); 1% of it, less the tolerance 1e-5 + 1e-3 |.|,
    # is largest where |x cos y| is
    exact = x.detach().numpy() * np.cos(y.detach().numpy())
    i, j = np.unravel_index(np.argmax(np.abs(exact)), exact.shape)
    assert f"The worst element: d(output 0)[{i}, {j}] / d(input 1)[{j}]: " in message
    values = message.split(": numerical ")[1].split(" (")[0]
    numerical, analytical = (float(v) for v in values.split(" vs analytical "))
    assert numerical == pytest.approx(exact[i, j], rel=1e-8)
    assert analytical == pytest.approx(exact[i, j] * 1.01, rel=1e-12)
    assert "\nnumerical:tensor([[" in message and "\nanalytical:tensor([[" in message


def test_fast_mode_reruns_a_small_failing_pair_element_by_element(xy):
    with pytest.raises(GradcheckError) as info:
        gradcheck(mul_sin(symgrad, error=0.01).apply, xy, fast_mode=True)
    message = str(info.value)
    assert "Below, we recompute numerical and analytical jacobians in slow mode:" in message
    assert "\nThe max per-element difference (slow mode) is: " in message
    assert "\nThe worst element: d(output 0)" in message


@pytest.mark.parametrize("fast_mode", [False, True])
def test_raise_exception_false_returns_false(xy, fast_mode):
    wrong = mul_sin(symgrad, error=0.01).apply
    assert gradcheck(wrong, xy, raise_exception=False, fast_mode=fast_mode) is False
    assert gradcheck(mul_sin(symgrad).apply, xy, raise_exception=False) is True


def test_gradcheck_error_is_a_runtime_error():
    assert issubclass(GradcheckError, RuntimeError)


def test_several_outputs_name_the_wrong_one():
    x = f64(4)
    with pytest.raises(
        GradcheckError, match="^Jacobian mismatch for output 1 with respect to input 0,"
    ):
        gradcheck(sum_and_scale(symgrad, error=0.01).apply, x)
    assert gradcheck(sum_and_scale(symgrad).apply, x)


def test_swapped_gradients_are_caught():
    with pytest.raises(GradcheckError, match="output 0 with respect to input 0"):
        gradcheck(swapped(symgrad).apply, (f64(3, seed=1), f64(3, seed=2)))


def test_a_tiny_error_passes_as_in_pytorch():
    # 1e-7 relative is far inside rtol=1e-3: gradcheck cannot see it (check_function can)
    assert gradcheck(cube(symgrad, error=1e-7).apply, f64(3))


def test_inputs_are_restored_bit_for_bit(xy):
    before = [t.detach().numpy().copy() for t in xy]
    gradcheck(mul_sin(symgrad).apply, xy)
    gradcheck(mul_sin(symgrad).apply, xy, fast_mode=True)
    for t, b in zip(xy, before):
        np.testing.assert_array_equal(t.detach().numpy(), b)


@pytest.mark.parametrize("fast_mode", [False, True])
def test_inputs_are_restored_when_the_function_fails_under_perturbation(fast_mode):
    x = symgrad.tensor([0.0, 1.0], dtype=symgrad.float64, requires_grad=True)
    before = x.detach().numpy().copy()

    def changes_shape(t):
        return t[t > 0]

    # PyTorch's AssertionError, raised also with raise_exception=False
    with pytest.raises(AssertionError, match="same shape"):
        gradcheck(changes_shape, x, fast_mode=fast_mode, raise_exception=False)
    np.testing.assert_array_equal(x.detach().numpy(), before)

    def fails(t):
        if t.detach().numpy()[0] != 0.0:
            raise ValueError("perturbed")
        return t * 2

    with pytest.raises(ValueError, match="perturbed"):
        gradcheck(fails, x, fast_mode=fast_mode)
    np.testing.assert_array_equal(x.detach().numpy(), before)


# -- dtype, inputs and outputs ------------------------------------------------------------------


def test_single_precision_inputs_warn_from_the_callers_line():
    x = symgrad.tensor([0.5, 1.0], requires_grad=True)  # float32
    with pytest.warns(
        UserWarning, match="Input #0 requires gradient and is not a double precision floating point"
    ) as record:
        gradcheck(lambda t: t * 2, x, atol=1e-2, rtol=1e-2, eps=1e-3)
    assert record[0].filename == __file__


def test_gradgradcheck_warns_for_each_single_precision_input_and_grad_output():
    # PyTorch's: the input #0 and the grad_output drawn for the float32 output, #1
    x = symgrad.tensor([0.5, 1.0], requires_grad=True)
    with pytest.warns(UserWarning) as record:
        gradgradcheck(lambda t: t * t, x, atol=1e-2, rtol=1e-2, eps=1e-3)
    warned = [str(w.message) for w in record if "double precision" in str(w.message)]
    assert [w.split(" requires")[0] for w in warned] == ["Input #0", "Input #1"]
    assert warned[0] == (
        "Input #0 requires gradient and is not a double precision floating point or complex. "
        "This check will likely fail if all the inputs are not of double precision floating "
        "point or complex. "
    )
    assert all(w.filename == __file__ for w in record)


def _jacobians_printed(T, forward_ad: bool) -> list:
    """The Jacobian lines of gradcheck's message for a float32 input whose backward (or, with
    ``forward_ad``, jvp) gives 3 where the derivative is 2."""
    wrong = type(
        "Wrong",
        (T.autograd.Function,),
        {
            "forward": staticmethod(lambda ctx, x: x * 2),
            "backward": staticmethod(lambda ctx, g: g * (2 if forward_ad else 3)),
            "jvp": staticmethod(lambda ctx, t: t * 3),
        },
    )
    x = T.tensor([0.5, 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # not double precision
        with pytest.raises(RuntimeError, match="Jacobian") as info:  # GradcheckError
            T.autograd.gradcheck(
                wrong.apply, x, check_forward_ad=forward_ad, check_backward_ad=not forward_ad
            )
    lines = str(info.value).splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("numerical:"))
    return lines[start : start + 4]


# the finite differences of x * 2 at 0.5 and 1.0 in float32, with eps 1e-6
_FLOAT32_JACOBIANS = [
    "numerical:tensor([[2.0266, 0.0000],",
    "        [0.0000, 1.9670]])",
    "analytical:tensor([[3., 0.],",
    "        [0., 3.]])",
]


@pytest.mark.parametrize("forward_ad", [False, True])
def test_jacobians_print_in_the_inputs_dtype(forward_ad):
    # they were float64 tensors (", dtype=symgrad.float64" after each)
    assert _jacobians_printed(symgrad, forward_ad) == _FLOAT32_JACOBIANS


@pytest.mark.torch
@pytest.mark.parametrize("forward_ad", [False, True])
def test_jacobians_print_in_the_inputs_dtype_as_pytorch(forward_ad):
    torch = pytest.importorskip("torch")
    assert _jacobians_printed(torch, forward_ad) == _FLOAT32_JACOBIANS


def test_no_input_requiring_grad_is_a_clear_error():
    with pytest.raises(ValueError, match="at least one input tensor to require gradient"):
        gradcheck(lambda t: t * 2, f64(3, requires_grad=False))


def test_non_tensor_outputs_are_a_clear_error():
    # PyTorch's AttributeError (it reads requires_grad of each output); it was a TypeError
    with pytest.raises(AttributeError, match="output 1 of the function is a float, not a Tensor"):
        gradcheck(lambda t: (t * 2, 3.0), f64(3))


def test_overlapping_inputs_are_a_runtime_error_as_in_pytorch():
    # it was a ValueError
    x = symgrad.from_numpy(np.broadcast_to(np.ones(3), (2, 3))).requires_grad_()
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(lambda t: t * 2, x)
    y = symgrad.ones(1, dtype=symgrad.float64).expand(3).requires_grad_()
    with pytest.raises(RuntimeError, match="You should call .contiguous on the input"):
        gradcheck(lambda a, b: a * b, (f64(3), y))


def test_read_only_inputs_are_a_clear_error():
    data = np.ones(3)
    data.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # from_numpy of a read-only array
        x = symgrad.from_numpy(data).requires_grad_()
    with pytest.raises(ValueError, match="read-only"):
        gradcheck(lambda t: t * 2, x)


def test_non_contiguous_inputs_are_perturbed_correctly():
    x = f64(3, 4, requires_grad=False).t().detach().requires_grad_()
    assert not x._data.flags.c_contiguous
    assert gradcheck(lambda t: (t * t).sum(0), x)
    with pytest.raises(GradcheckError):
        gradcheck(cube(symgrad, error=0.01).apply, x)


def test_the_same_tensor_twice():
    x = f64(3)
    assert gradcheck(lambda a, b: a * b.sin(), (x, x))


def test_grad_of_a_tensor_listed_twice_fills_both_places_as_in_pytorch():
    # gradcheck relies on it; d/dx sum(x * x) = 2 x in both places, and backward(inputs=[y, y])
    # gives y.grad once
    x = f64(3)
    first, second = symgrad.autograd.grad((x * x).sum(), [x, x])
    np.testing.assert_array_equal(first.numpy(), 2 * x.detach().numpy())
    np.testing.assert_array_equal(second.numpy(), 2 * x.detach().numpy())
    y = x * 3
    (y * y).sum().backward(inputs=[y, y])
    np.testing.assert_array_equal(y.grad.numpy(), 2 * y.detach().numpy())


def test_numbers_and_integer_tensors_pass_through():
    x = f64(2, 3)
    index = symgrad.tensor([[0, 2], [1, 1]])
    assert gradcheck(lambda t, i, s: symgrad.gather(t, 1, i) * s, (x, index, 2.5))


def test_outputs_that_do_not_require_grad_are_skipped():
    # as PyTorch: only outputs that require grad are compared
    x = f64(3)
    assert gradcheck(lambda t: (t.sin(), t.detach() * 2, t.argmax()), x)


def test_a_function_with_no_differentiable_output_must_be_constant():
    x = f64(3)
    assert gradcheck(lambda t: t.detach() * 0 + 1, x)
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradcheck(lambda t: t.detach() * 2, x)


def test_non_scalar_and_0d_outputs():
    x = f64(2, 3)
    assert gradcheck(lambda t: t @ t.T, x)
    assert gradcheck(lambda t: t.sum(), x)
    assert gradcheck(lambda t: t[0, 1] * t[1, 2], x)


def test_output_shape_changing_under_perturbation_is_an_error():
    # PyTorch's AssertionError; it was a GradcheckError
    x = symgrad.tensor([0.0, 1.0], dtype=symgrad.float64, requires_grad=True)
    with pytest.raises(AssertionError, match="same shape when inputs are perturbed by 1e-06"):
        gradcheck(lambda t: t[t > 0.5 * 1e-6], x)


def test_unsupported_modes_say_so():
    with pytest.raises(NotImplementedError, match="check_batched_forward_grad"):
        gradcheck(lambda t: t * 2, f64(3), check_batched_forward_grad=True, check_forward_ad=True)


# check, keywords, PyTorch's AssertionError for flags that contradict each other
_CONTRADICTING_FLAGS = [
    (
        "gradcheck",
        {"check_backward_ad": False},
        "Expected at least one of check_forward_ad or check_backward_ad to be True",
    ),
    (
        "gradcheck",
        {"check_backward_ad": False, "check_forward_ad": True, "check_batched_grad": True},
        "Setting check_batched_grad=True requires check_backward_ad to be True",
    ),
    (
        "gradcheck",
        {"check_batched_forward_grad": True},
        "Setting check_batched_forward_grad=True requires check_forward_ad to be True",
    ),
    (
        "gradgradcheck",
        {"check_rev_over_rev": False, "check_undefined_grad": False},
        "Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True",
    ),
    (
        "gradgradcheck",
        {"check_rev_over_rev": False, "check_fwd_over_rev": True},
        "Setting check_undefined_grad=True requires check_rev_over_rev to be True",
    ),
    (
        "gradgradcheck",
        {
            "check_rev_over_rev": False,
            "check_fwd_over_rev": True,
            "check_undefined_grad": False,
            "check_batched_grad": True,
        },
        "Setting check_batched_grad=True requires check_rev_over_rev to be True",
    ),
]


def _flag_errors(T) -> list:
    x = T.tensor([0.4, 1.1], dtype=T.float64, requires_grad=True)
    found = []
    for check, flags, _ in _CONTRADICTING_FLAGS:
        try:
            getattr(T.autograd, check)(lambda t: t.sin(), x, **flags)
        except AssertionError as e:
            found.append(str(e))
        else:
            found.append(None)
    return found


def test_contradicting_flags_are_assertion_errors():
    # they returned True (nothing checked)
    assert _flag_errors(symgrad) == [message for _, _, message in _CONTRADICTING_FLAGS]


@pytest.mark.torch
def test_contradicting_flags_are_assertion_errors_as_in_pytorch():
    torch = pytest.importorskip("torch")
    assert _flag_errors(torch) == [message for _, _, message in _CONTRADICTING_FLAGS]


# -- nondeterminism and undefined gradients -----------------------------------------------------


class Jittery(Function):
    """2x with a backward whose factor has noise of 1e-9: inside the Jacobian tolerance, but
    two runs differ. (Noise added rather than multiplied is caught by PyTorch's check that a
    zero incoming gradient gives zero.)"""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * (2 + symgrad.randn(g.shape, dtype=g.dtype) * 1e-9)


def test_a_nondeterministic_backward_is_caught_unless_tolerated():
    x = f64(3)
    with pytest.raises(GradcheckError, match="Backward is not reentrant"):
        gradcheck(Jittery.apply, x, check_undefined_grad=False)
    assert gradcheck(Jittery.apply, x, nondet_tol=1e-6, check_undefined_grad=False)


@pytest.mark.parametrize("check_undefined_grad", [True, False])
def test_a_backward_not_multiplied_by_grad_output_is_caught_whatever_the_flags(
    check_undefined_grad,
):
    # PyTorch checks it always; with check_undefined_grad=False it passed
    x = f64(3)
    bad = ones_when_zero(symgrad).apply
    with pytest.raises(GradcheckError, match="^backward not multiplied by grad_output"):
        gradcheck(bad, x, check_undefined_grad=check_undefined_grad)
    assert gradcheck(bad, x, check_undefined_grad=check_undefined_grad, raise_exception=False) is (
        False
    )


class TinyWhenZero(Function):
    """2x whose backward adds 1e-9 to an all-zero incoming gradient."""

    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2 + (1e-9 if not bool((g != 0).any()) else 0.0)


def test_masked_allows_tiny_gradients_for_zero_output_gradients():
    x = f64(3)
    with pytest.raises(GradcheckError, match="backward not multiplied by grad_output"):
        gradcheck(TinyWhenZero.apply, x, check_undefined_grad=False)
    assert gradcheck(TinyWhenZero.apply, x, check_undefined_grad=False, masked=True)


class TwoOutputs(Function):
    """``(x * y, x - y)`` with unmaterialized gradients: backward must handle None."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x, y)
        return x * y, x - y

    @staticmethod
    def backward(ctx, g_prod, g_diff):
        x, y = ctx.saved_tensors
        gx, gy = symgrad.zeros_like(x), symgrad.zeros_like(y)
        if g_prod is not None:
            gx, gy = gx + g_prod * y, gy + g_prod * x
        if g_diff is not None:
            gx, gy = gx + g_diff, gy - g_diff
        return gx, gy


def test_a_function_that_handles_missing_output_gradients_passes():
    assert gradcheck(TwoOutputs.apply, (f64(3, seed=1), f64(3, seed=2)))


# -- gradgradcheck ------------------------------------------------------------------------------


def test_gradgradcheck_passes_for_differentiable_backwards(xy):
    assert gradgradcheck(mul_sin(symgrad).apply, xy)
    assert gradgradcheck(lambda a, b: (a * b).tanh(), xy, fast_mode=True)


def test_gradgradcheck_catches_a_backward_that_is_not_differentiable():
    x = f64(3)
    detached = detached_cube(symgrad).apply
    assert gradcheck(detached, x)
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(detached, x)
    # output 0 of the check is x's gradient; its derivative by x (input 0) should be 6 x g
    # PyTorch's message (it began "gradgradcheck (second derivatives): "); a note ends it
    message = str(info.value)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\n")
    assert message.endswith(
        "inputs 1 and up are the grad_outputs; output j is the gradient of "
        "the j-th input that requires grad.)"
    )
    assert gradgradcheck(detached, x, raise_exception=False) is False


def test_gradgradcheck_with_given_grad_outputs():
    x = f64(2, 3)
    v = symgrad.ones(2, 3, dtype=symgrad.float64)  # not requiring grad: only x is checked
    assert gradgradcheck(lambda t: t.exp() * t, x, (v,))
    with pytest.raises(RuntimeError, match="got 2 outputs that require grad and 1 grad_outputs"):
        gradgradcheck(lambda t: (t.exp(), t.sin()), x, (v,))


def test_gradgradcheck_of_a_linear_function():
    # the first gradient does not depend on x: its Jacobian with respect to x is zero
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gradgradcheck(lambda t: t * 2 + 1, f64(3))


def _errors(T) -> list:
    """The exception type and first words of gradcheck's errors for misused inputs, outputs
    and backwards."""
    x = T.tensor([0.4, 1.1, 0.0], dtype=T.float64, requires_grad=True)
    ones_when_zero_backward = type(
        "OnesWhenZero",
        (T.autograd.Function,),
        {
            "forward": staticmethod(lambda ctx, t: t * 3),
            "backward": staticmethod(
                lambda ctx, g: (g if bool((g != 0).any()) else T.ones_like(g)) * 3
            ),
        },
    )
    calls = [
        lambda: T.autograd.gradcheck(lambda t: (t * 2, None), x),
        lambda: T.autograd.gradcheck(
            lambda t: t * 2, T.ones(1, dtype=T.float64).expand(3).requires_grad_()
        ),
        lambda: T.autograd.gradcheck(lambda t: t[t > 0], x, raise_exception=False),
        lambda: T.autograd.gradcheck(ones_when_zero_backward.apply, x, check_undefined_grad=False),
    ]
    found = []
    for call in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                call()
            except Exception as e:
                found.append((type(e).__name__, str(e)[:30]))
    return found


_ERRORS = [
    ("AttributeError", "'NoneType' object has no attri"),
    ("RuntimeError", "The 0th input has a dimension "),
    ("AssertionError", "Expected `func` to return outp"),
    ("GradcheckError", "backward not multiplied by gra"),
]


def test_errors_have_pytorchs_types():
    assert _errors(symgrad) == _ERRORS


@pytest.mark.torch
def test_errors_have_pytorchs_types_as_pytorch():
    torch = pytest.importorskip("torch")
    assert _errors(torch) == _ERRORS
