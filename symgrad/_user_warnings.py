"""Warnings pointing at the user's line, and what reading values out of nested lists for a new
tensor warns about, as PyTorch: NumPy arrays in the list (slow), a tensor that requires grad
(its value leaves the graph). This module sits below the tensor class: symgrad.autograd, which
knows the grad mode, puts its warning for the second in ``on_value_of_grad``."""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

__all__ = ["warn_at_user", "note_list_value", "warn_arrays_in_list", "on_value_of_grad"]

# in the set of dtypes found in a list: it held NumPy arrays with values
ARRAYS_IN_LIST = "NumPy arrays in a list"
_WARNED: set = set()
on_value_of_grad: list = []


def warn_at_user(message: str) -> None:
    """A UserWarning pointing at the first caller outside symgrad."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("symgrad"):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, UserWarning, stacklevel=level)


def note_list_value(value: Any, found: set) -> None:
    """Mark ``found`` for a NumPy array with values; a tensor that requires grad calls the
    hooks of ``on_value_of_grad``."""
    if isinstance(value, np.ndarray) and value.ndim and value.size:
        found.add(ARRAYS_IN_LIST)
    elif getattr(value, "_requires_grad", False):
        for hook in on_value_of_grad:
            hook(value)


def warn_arrays_in_list(found: set) -> None:
    """PyTorch's warning, once per process, for a list holding NumPy arrays (and the mark of
    ``note_list_value`` taken out of ``found``)."""
    if ARRAYS_IN_LIST in found:
        found.discard(ARRAYS_IN_LIST)
        if "arrays" not in _WARNED:
            _WARNED.add("arrays")
            warn_at_user(
                "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please "
                "consider converting the list to a single numpy.ndarray with numpy.array() "
                "before converting to a tensor."
            )
