"""As PyTorch 2.13: ``binary_cross_entropy`` refuses an input or a target outside [0, 1] (nan
included), and ``padding='same'`` with an even kernel length and odd dilation warns once per
process that the input may be copied with zeros added."""

from __future__ import annotations

import math
import warnings

import pytest

import symgrad
import symgrad.nn.convolution as convolution
from symgrad.nn import functional as F

NAN = math.nan

# (input, target, which one PyTorch names): elements are checked in order, input first
OUT_OF_RANGE = [
    ([NAN, 0.5], [1.0, 0.0], "input"),
    ([0.3, 0.5], [NAN, 0.0], "target"),
    ([0.3, 0.5], [1.5, 0.0], "target"),
    ([0.3, 0.5], [-1.0, 0.0], "target"),
    ([NAN, 0.5], [NAN, 0.0], "input"),
    ([math.inf, 0.5], [1.0, 0.0], "input"),
    ([0.3, NAN], [NAN, 0.0], "target"),
    ([NAN, 0.3], [0.5, 2.0], "input"),
]


@pytest.mark.parametrize("input, target, name", OUT_OF_RANGE)
def test_binary_cross_entropy_refuses_values_outside_0_1(input, target, name):
    x, y = symgrad.tensor(input), symgrad.tensor(target)
    with pytest.raises(RuntimeError, match=f"all elements of {name} should be between 0 and 1"):
        F.binary_cross_entropy(x, y)
    with pytest.raises(RuntimeError, match=f"all elements of {name} should be between 0 and 1"):
        symgrad.nn.BCELoss()(x, y)


@pytest.mark.parametrize("options", [{"reduction": "none"}, {"weight": symgrad.tensor([0.0, 1.0])}])
def test_binary_cross_entropy_nan_input_with_options(options):
    x = symgrad.tensor([NAN, 0.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(x, symgrad.tensor([1.0, 0.0]), **options)


def test_binary_cross_entropy_in_range():
    out = F.binary_cross_entropy(symgrad.tensor([0.0, 1.0]), symgrad.tensor([0.0, 1.0]))
    assert out.item() == 0.0
    assert math.isnan(F.binary_cross_entropy(symgrad.zeros(0), symgrad.zeros(0)).item())


SAME = (
    "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
    "copy of the input be created"
)


def _warnings(call, monkeypatch):
    monkeypatch.setitem(convolution._WARNED, "same", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if w.category is UserWarning]


# (call, whether it warns)
CONV_CALLS = [
    (lambda: F.conv2d(symgrad.ones(1, 1, 5, 5), symgrad.ones(1, 1, 2, 2), padding="same"), True),
    (lambda: F.conv1d(symgrad.ones(1, 1, 5), symgrad.ones(1, 1, 4), padding="same"), True),
    (
        lambda: F.conv3d(symgrad.ones(1, 1, 5, 5, 5), symgrad.ones(1, 1, 2, 3, 3), padding="same"),
        True,
    ),
    (
        lambda: F.conv2d(
            symgrad.ones(1, 1, 5, 5), symgrad.ones(1, 1, 2, 2), padding="same", dilation=(2, 1)
        ),
        True,
    ),
    (
        lambda: F.conv2d(
            symgrad.ones(1, 1, 5, 5), symgrad.ones(1, 1, 2, 3), padding="same", dilation=(1, 2)
        ),
        True,
    ),
    (lambda: symgrad.nn.Conv2d(1, 1, 2, padding="same")(symgrad.ones(1, 1, 5, 5)), True),
    (lambda: symgrad.nn.Conv1d(1, 1, 2, padding="same")(symgrad.ones(1, 1, 5)), True),
    (lambda: symgrad.nn.Conv3d(1, 1, 2, padding="same")(symgrad.ones(1, 1, 5, 5, 5)), True),
    (
        lambda: F.conv2d(
            symgrad.ones(1, 1, 5, 5), symgrad.ones(1, 1, 2, 2), padding="same", dilation=2
        ),
        False,
    ),
    (lambda: F.conv2d(symgrad.ones(1, 1, 5, 5), symgrad.ones(1, 1, 3, 3), padding="same"), False),
    (lambda: F.conv2d(symgrad.ones(1, 1, 5, 5), symgrad.ones(1, 1, 2, 2), padding=1), False),
    (
        lambda: symgrad.nn.Conv1d(1, 1, 2, padding="same", padding_mode="reflect")(
            symgrad.ones(1, 1, 5)
        ),
        False,
    ),
    (lambda: symgrad.nn.Conv2d(1, 1, 2, padding="same"), False),
]


@pytest.mark.parametrize("call, warns", CONV_CALLS)
def test_same_padding_with_even_kernel_warns(call, warns, monkeypatch):
    assert _warnings(call, monkeypatch) == ([SAME] if warns else [])


def test_same_padding_warning_once_per_process(monkeypatch):
    def twice():
        for _ in range(2):
            F.conv2d(symgrad.ones(1, 1, 5, 5), symgrad.ones(1, 1, 2, 2), padding="same")
            F.conv1d(symgrad.ones(1, 1, 5), symgrad.ones(1, 1, 4), padding="same")

    assert _warnings(twice, monkeypatch) == [SAME]


def test_same_padding_with_even_kernel_values():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = F.conv1d(symgrad.arange(5.0).reshape(1, 1, 5), symgrad.ones(1, 1, 2), padding="same")
    assert out.tolist() == [[[1.0, 3.0, 5.0, 7.0, 4.0]]]
