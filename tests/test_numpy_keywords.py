"""NumPy's keyword names, ``axis`` and ``keepdims``, for ``dim`` and ``keepdim``: PyTorch's
argument parser takes either, on the Tensor methods and the functions."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

X = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]

CALLS = {
    "x.sum(axis=1)": (lambda x: x.sum(axis=1), [6.0, 15.0]),
    "x.sum(axis=1, keepdims=True)": (lambda x: x.sum(axis=1, keepdims=True), [[6.0], [15.0]]),
    "symgrad.sum(x, axis=0)": (lambda x: symgrad.sum(x, axis=0), [5.0, 7.0, 9.0]),
    "symgrad.mean(x, axis=(0, 1))": (lambda x: symgrad.mean(x, axis=(0, 1)), 3.5),
    "x.max(axis=1).values": (lambda x: x.max(axis=1).values, [3.0, 6.0]),
    "x.argmax(axis=0)": (lambda x: x.argmax(axis=0), [1, 1, 1]),
    "x.amax(axis=0, keepdims=True)": (lambda x: x.amax(axis=0, keepdims=True), [[4.0, 5.0, 6.0]]),
    "symgrad.cat(axis=1)": (lambda x: symgrad.cat([x, x], axis=1)[0], [1.0, 2.0, 3.0] * 2),
    "symgrad.stack(axis=0)": (lambda x: symgrad.stack([x, x], axis=0).shape, [2, 2, 3]),
    "x.softmax(axis=1)": (lambda x: x.softmax(axis=1).sum(1), [1.0, 1.0]),
    "x.cumsum(axis=0)": (lambda x: x.cumsum(axis=0)[1], [5.0, 7.0, 9.0]),
    "x.squeeze(axis=0)": (lambda x: x[:1].squeeze(axis=0), [1.0, 2.0, 3.0]),
    "x.unsqueeze(axis=0)": (lambda x: x.unsqueeze(axis=0).shape, [1, 2, 3]),
    "x.var(axis=1, keepdims=True)": (lambda x: x.var(axis=1, keepdims=True), [[1.0], [1.0]]),
    "x.count_nonzero(axis=0)": (lambda x: x.count_nonzero(axis=0), [2, 2, 2]),
    "x.all(axis=1)": (lambda x: x.all(axis=1), [True, True]),
}


@pytest.mark.parametrize("code", sorted(CALLS))
def test_numpy_names(code: str) -> None:
    fn, expected = CALLS[code]
    x = symgrad.tensor(X)
    found = fn(x)
    found = list(found) if isinstance(found, symgrad.Size) else found.tolist()
    np.testing.assert_allclose(found, expected)


def test_gradient_through_numpy_names() -> None:
    x = symgrad.tensor(X, requires_grad=True)
    x.mean(axis=1, keepdims=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3), 1 / 3))


def test_both_names_is_an_error() -> None:
    x = symgrad.tensor(X)
    with pytest.raises(TypeError, match="both 'dim' and its NumPy name 'axis'"):
        x.sum(dim=0, axis=0)
    with pytest.raises(TypeError, match="both 'keepdim'"):
        symgrad.amax(x, 0, keepdim=True, keepdims=True)


def test_unknown_keyword_still_refused() -> None:
    with pytest.raises(TypeError):
        symgrad.tensor(X).sum(axes=0)
