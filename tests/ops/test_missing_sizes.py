"""Shape methods called without their sizes raise PyTorch's TypeError, also where an empty
size would fit (a 0-d or one-element tensor), rather than reading no sizes as ``()``."""

from __future__ import annotations

import pytest

import symgrad

_MISSING = '{}() missing 1 required positional arguments: "{}"'
# name -> (call, the first line of PyTorch's message)
CASES = {
    "view": (
        lambda x: x.view(),
        "view() received an invalid combination of arguments - got (), but expected one of:",
    ),
    "reshape": (lambda x: x.reshape(), _MISSING.format("reshape", "shape")),
    "reshape_function": (lambda x: _module(x).reshape(x), _MISSING.format("reshape", "shape")),
    "expand": (lambda x: x.expand(), _MISSING.format("expand", "size")),
    "repeat": (lambda x: x.repeat(), _MISSING.format("repeat", "repeats")),
}


def _module(x):
    """The package ``x`` comes from (symgrad or torch), for the function forms."""
    return symgrad if isinstance(x, symgrad.Tensor) else pytest.importorskip("torch")


def _message(T, name, shape):
    with pytest.raises(TypeError) as error:
        CASES[name][0](T.ones(shape))
    return str(error.value).split("\n")[0]


@pytest.mark.parametrize("shape", [(), (1,), (2, 3)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_symgrad(name, shape):
    assert _message(symgrad, name, shape) == CASES[name][1]


@pytest.mark.parametrize("shape", [(), (1,)])
@pytest.mark.parametrize("name", sorted(CASES))
def test_pytorch(name, shape):
    torch = pytest.importorskip("torch")
    assert _message(torch, name, shape) == CASES[name][1]


def test_empty_sizes_given_are_still_taken():
    x = symgrad.ones(1)
    assert x.view(()).shape == () and x.reshape([]).shape == ()
    assert symgrad.ones(()).expand(()).shape == () and symgrad.ones(()).repeat(()).shape == ()
    assert x.view(symgrad.int32).dtype is symgrad.int32
