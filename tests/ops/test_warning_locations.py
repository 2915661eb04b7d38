"""PyTorch's deprecation warnings point at the user's line, whichever path inside symgrad
raised them (a function, a method, an in-place method through the in-place machinery)."""

from __future__ import annotations

import warnings

import pytest

import symgrad


def _x():
    return symgrad.zeros(3)


CALLS = {
    "uint8 mask": lambda: _x()[symgrad.tensor([1, 0, 1], dtype=symgrad.uint8)],
    "where uint8": lambda: symgrad.where(
        symgrad.tensor([1, 0, 1], dtype=symgrad.uint8), _x(), _x()
    ),
    "scatter function": lambda: symgrad.scatter(
        _x(), 0, symgrad.tensor([0, 1]), symgrad.ones(2), reduce="add"
    ),
    "scatter method": lambda: _x().scatter(
        0, symgrad.tensor([0, 1]), symgrad.ones(2), reduce="add"
    ),
    "scatter_ in place": lambda: _x().scatter_(
        0, symgrad.tensor([0, 1]), symgrad.ones(2), reduce="add"
    ),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_deprecation_warning_points_at_the_caller(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CALLS[name]()
    found = [w for w in caught if issubclass(w.category, UserWarning)]
    assert found, f"{name}: no warning"
    assert found[0].filename == __file__, (name, found[0].filename, found[0].lineno)
