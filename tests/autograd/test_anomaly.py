"""Anomaly detection: the node that returned NaN in backward is named, with the line of user
code that ran its forward (PyTorch's error and warning; infinite gradients pass, as in
PyTorch); forward NaN/inf warn from that line; the switch is global and costs nothing when
off."""

from __future__ import annotations

import os
import threading
import warnings

import numpy as np
import pytest

import symgrad
from symgrad.autograd import (
    AnomalyWarning,
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)

SYMGRAD_DIR = os.path.dirname(symgrad.__file__) + os.sep


@pytest.fixture(autouse=True)
def _anomaly_off_after():
    yield
    symgrad.autograd.set_detect_anomaly(False)


@pytest.fixture(autouse=True)
def _quiet_numpy():
    # NumPy's own divide-by-zero warnings at log(0) are not what these tests are about
    with np.errstate(divide="ignore", invalid="ignore"):
        yield


def anomaly(check_nan=True):
    """detect_anomaly() without its "has been enabled" warning (checked once, below)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return detect_anomaly(check_nan=check_nan)


def line_of(marker: str) -> int:
    """The line of this file that holds ``marker`` (in a comment)."""
    with open(__file__) as f:
        lines = [n for n, text in enumerate(f, start=1) if marker in text and "line_of" not in text]
    assert len(lines) == 1, marker
    return lines[0]


def backward_error(y) -> tuple[str, str]:
    """The RuntimeError that ``y.sum().backward()`` raises, and the text of the UserWarning
    ("Error detected in ...") that comes before it."""
    with pytest.raises(RuntimeError) as info, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        y.sum().backward()  # the-backward-call
    detected = [w for w in caught if "Error detected in" in str(w.message)]
    assert len(detected) == 1, [str(w.message) for w in caught]
    (warning,) = detected
    assert warning.category is UserWarning
    assert warning.filename == __file__ and warning.lineno == line_of("# the-backward-call")
    return str(info.value), str(warning.message)


def x0():
    return symgrad.tensor([0.0, 1.0], dtype=symgrad.float64, requires_grad=True)


# -- backward: the node and the forward line ----------------------------------------------------


def test_log_of_zero_names_the_node_whose_gradient_is_nan_and_the_forward_line():
    x = x0()
    with anomaly(), warnings.catch_warnings():
        warnings.simplefilter("ignore", AnomalyWarning)
        y = (x * 0).log()  # forward-log
        message, warning = backward_error(y)
    # LogBackward0 returns 1/0 = inf, which passes (as in PyTorch); MulBackward0 then makes
    # inf * 0 = nan for x
    assert message == "Function 'MulBackward0' returned nan values in its 0th output."
    assert warning.startswith(
        "Error detected in MulBackward0. Traceback of forward call that caused the error:\n"
    )
    assert f'File "{__file__}", line {line_of("# forward-log")}, in ' in warning
    assert "y = (x * 0).log()" in warning


def test_infinite_gradients_pass_as_in_pytorch():
    # sqrt's gradient at 0 is inf: PyTorch's anomaly mode checks for nan only
    x = x0()
    with anomaly(), warnings.catch_warnings():
        warnings.simplefilter("error")
        x.sqrt().sum().backward()
        y = x**1.5
        (g,) = symgrad.autograd.grad(y.sum(), x, create_graph=True)
    g.sum().backward()  # d/dx 1.5 sqrt(x) = 0.75 / sqrt(x): inf at 0
    assert x.grad.tolist() == [np.inf, 0.5 + 0.75]


def test_nan_through_where_names_the_unselected_branch():
    # the classic trap: where() sends a zero gradient into log at 0, and 0 * inf is nan
    x = x0()
    with anomaly(), warnings.catch_warnings():
        warnings.simplefilter("ignore", AnomalyWarning)
        y = symgrad.where(x > 0, x.log(), 0.0)  # forward-where
        message, warning = backward_error(y)
    assert message == "Function 'LogBackward0' returned nan values in its 0th output."
    assert f"line {line_of('# forward-where')}" in warning


@pytest.mark.torch
def test_error_and_warning_match_pytorchs_for_the_where_trap():
    torch = pytest.importorskip("torch")
    seen = []
    for T in (symgrad, torch):
        x = T.tensor([0.0, 1.0], dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with T.autograd.detect_anomaly():
                y = T.where(x > 0, x.log(), 0.0)
                with pytest.raises(RuntimeError) as info:
                    y.sum().backward()
        first = [str(w.message).splitlines()[0] for w in caught if w.category is UserWarning]
        seen.append((str(info.value), first[-1]))
    assert seen[0] == seen[1]


@pytest.mark.torch
def test_infinite_gradients_pass_as_in_pytorch_crosscheck():
    torch = pytest.importorskip("torch")
    grads = []
    for T in (symgrad, torch):
        x = T.tensor([0.0, 4.0], dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with T.autograd.detect_anomaly():
                (x.sqrt() + x.log()).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == [np.inf, 0.25 + 0.25]


def _scaled_log(x):
    return (x * 0).log() * 2  # helper-line


def test_traceback_shows_the_user_call_chain_without_symgrads_frames():
    x = x0()
    with anomaly(), warnings.catch_warnings():
        warnings.simplefilter("ignore", AnomalyWarning)
        y = _scaled_log(x)  # caller-line
        _, warning = backward_error(y)
    trace = warning.split("Traceback of forward call that caused the error:\n")[1]
    files = [line.split('"')[1] for line in trace.splitlines() if line.startswith('  File "')]
    assert files and all(not f.startswith(SYMGRAD_DIR) for f in files)
    # outermost first, as Python prints a traceback
    caller = trace.index(f"line {line_of('# caller-line')}")
    helper = trace.index(f"line {line_of('# helper-line')}")
    assert caller < helper


def test_custom_function_returning_nan_is_named():
    class Bad(symgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = x0()
    with anomaly():
        y = Bad.apply(x)  # forward-custom
        message, warning = backward_error(y)
    assert message == "Function 'BadBackward' returned nan values in its 0th output."
    assert warning.startswith("Error detected in BadBackward.")
    assert f"line {line_of('# forward-custom')}" in warning


def test_other_errors_in_backward_warn_with_the_forward_traceback():
    class Raises(symgrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise ValueError("broken backward")

    x = x0()
    with anomaly():
        y = Raises.apply(x)  # forward-raises
        with pytest.raises(ValueError, match="broken backward"):
            with pytest.warns(UserWarning, match=r"Error detected in RaisesBackward\.") as record:
                y.sum().backward()
    assert f"line {line_of('# forward-raises')}" in str(record[0].message)


def test_the_output_slot_is_named():
    w = symgrad.tensor([1.0, 2.0], dtype=symgrad.float64, requires_grad=True)
    c = symgrad.tensor([np.nan, 1.0], dtype=symgrad.float64)
    with anomaly():
        y = c * w  # MulBackward0's slot 1 is w's gradient, g * c
        message, _ = backward_error(y)
    assert message == "Function 'MulBackward0' returned nan values in its 1th output."


def test_second_order_backward_is_checked_too():
    x = x0()
    with anomaly():
        (g,) = symgrad.autograd.grad((x**1.5).sum(), x, create_graph=True)  # 1.5 sqrt(x)
        # g's pow node multiplies its zero gradient by 0.75 / sqrt(0) = inf: nan (PyTorch too)
        message, _ = backward_error(g * 0)
    assert message == "Function 'PowBackward0' returned nan values in its 0th output."


def test_second_derivative_of_power_at_zero_is_inf():
    x = x0()
    (g,) = symgrad.autograd.grad((x**1.5).sum(), x, create_graph=True)
    g.sum().backward()
    assert x.grad.numpy()[0] == np.inf  # d2/dx2 x**1.5 = 0.75 / sqrt(x)


def test_no_traceback_for_forwards_run_with_detection_off():
    x = x0()
    y = symgrad.where(x > 0, x.log(), 0.0)
    with anomaly():
        message, warning = backward_error(y)
    assert message == "Function 'LogBackward0' returned nan values in its 0th output."
    assert warning == (
        "Error detected in LogBackward0. No forward pass information available. Enable detect "
        "anomaly during forward pass for more information."
    )


# -- forward warnings ---------------------------------------------------------------------------


def test_forward_inf_warns_from_the_users_line():
    x = x0()
    with anomaly(), pytest.warns(AnomalyWarning) as record:
        (x * 0).log()  # forward-warn
    (w,) = record
    assert w.filename == __file__ and w.lineno == line_of("# forward-warn")
    assert "Forward of 'log' (LogBackward0) produced inf values." in str(w.message)
    assert f"line {line_of('# forward-warn')}" in str(w.message)


def test_forward_nan_warns_for_structural_ops_too():
    x = symgrad.tensor([[np.inf, 1.0]], dtype=symgrad.float64, requires_grad=True)
    with anomaly(), pytest.warns(AnomalyWarning, match="produced nan values") as record:
        x @ symgrad.tensor([[0.0], [1.0]], dtype=symgrad.float64)  # inf * 0 in a matmul
    assert "Mm" in str(record[0].message)


def test_only_new_nan_and_inf_warn():
    x = symgrad.tensor([np.nan, 1.0], dtype=symgrad.float64, requires_grad=True)
    with anomaly(), warnings.catch_warnings():
        warnings.simplefilter("error", AnomalyWarning)
        y = (x * 2).exp().sum()  # the NaN was already there
    assert np.isnan(y.item())


def test_the_warning_is_a_runtime_warning():
    assert issubclass(AnomalyWarning, RuntimeWarning)


def test_check_nan_false_records_locations_but_does_not_raise():
    x = x0()
    with anomaly(check_nan=False), warnings.catch_warnings():
        warnings.simplefilter("error", AnomalyWarning)
        y = x.sqrt()  # forward-nocheck
        y.sum().backward()
    assert x.grad.numpy()[0] == np.inf
    assert f"line {line_of('# forward-nocheck')}" in "".join(y.grad_fn.metadata["traceback_"])


# -- the switch -----------------------------------------------------------------------------------


def test_off_by_default_with_nothing_recorded():
    assert not is_anomaly_enabled()
    x = x0()
    y = x.sqrt()
    assert "traceback_" not in y.grad_fn.metadata
    y.sum().backward()  # silently inf, as PyTorch
    assert x.grad.numpy()[0] == np.inf


def test_detect_anomaly_warns_that_it_slows_things_down_as_pytorch_does():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        mode = detect_anomaly()
    with mode:
        assert is_anomaly_enabled()
    assert not is_anomaly_enabled()


def test_detect_anomaly_as_a_decorator():
    @anomaly()
    def inside():
        return is_anomaly_enabled(), is_anomaly_check_nan_enabled()

    assert inside() == (True, True)
    assert not is_anomaly_enabled()


def test_nesting_restores_the_outer_mode():
    with anomaly():
        with anomaly(check_nan=False):
            assert is_anomaly_enabled() and not is_anomaly_check_nan_enabled()
        assert is_anomaly_enabled() and is_anomaly_check_nan_enabled()
        with set_detect_anomaly(False):
            assert not is_anomaly_enabled()
        assert is_anomaly_enabled()
    assert not is_anomaly_enabled()


def test_set_detect_anomaly_acts_at_once():
    set_detect_anomaly(True)
    assert is_anomaly_enabled()
    set_detect_anomaly(False)
    assert not is_anomaly_enabled()


def test_the_switch_is_global_across_threads_as_in_pytorch():
    seen = []
    with anomaly():
        thread = threading.Thread(target=lambda: seen.append(is_anomaly_enabled()))
        thread.start()
        thread.join()
    thread = threading.Thread(target=lambda: set_detect_anomaly(True))
    thread.start()
    thread.join()
    assert seen == [True]
    assert is_anomaly_enabled()  # turned on by the other thread


def test_a_training_step_under_anomaly_detection_is_silent_and_unchanged():
    symgrad.manual_seed(0)
    x = symgrad.randn(8, 4)
    target = symgrad.tensor([0, 1, 2, 1, 0, 2, 1, 0])
    w = symgrad.randn(4, 3, requires_grad=True)

    def step():
        w.grad = None
        loss = symgrad.nn.functional.cross_entropy(x @ w, target)
        loss.backward()
        return loss.item(), w.grad.numpy().copy()

    plain = step()
    with anomaly(), warnings.catch_warnings():
        warnings.simplefilter("error")
        checked = step()
    assert plain[0] == checked[0]
    np.testing.assert_array_equal(plain[1], checked[1])
