"""How a sweep result is compared with the recorded one: what differs, in words, or ``None``.

Tensors must have the same dtype and shape, the same nan, inf and -inf positions, and values
within ``rtol`` (1e-7 in float64, 1e-4 in float32) plus a tiny ``atol`` for results that are
zero in one library and a rounding error in the other. An exception must be of the same type,
raised at the same step.

Examples
--------
>>> from sweep.compare import difference
>>> t = {"dtype": "float64", "shape": [2], "values": [1.0, "nan"]}
>>> difference(t, t) is None
True
>>> difference({"error": "IndexError", "at": "forward"}, t)
"raised IndexError at forward, expected {'dtype': 'float64', 'shape': [2], 'values': [1.0, 'nan']}"
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .encoding import decode_values

TOLERANCES = {
    "float64": {"rtol": 1e-7, "atol": 1e-12},
    "float32": {"rtol": 1e-4, "atol": 1e-6},
}


def _tensor_difference(actual: dict, expected: dict, where: str, tol: dict | None) -> str | None:
    for key in ("dtype", "shape"):
        if actual[key] != expected[key]:
            return f"{where}: {key} {actual[key]} != expected {expected[key]}"
    dtype = expected["dtype"]
    a = decode_values(actual["values"], dtype)
    e = decode_values(expected["values"], dtype)
    if a.dtype.kind == "f":
        tol = tol or TOLERANCES.get(dtype, TOLERANCES["float32"])
        close = np.isclose(a, e, equal_nan=True, **tol)
    else:
        close = a == e
    if close.all():
        return None
    bad = np.flatnonzero(~close)
    shown = ", ".join(f"[{k}] {a[k]!r} != {e[k]!r}" for k in bad[:4])
    return f"{where}: {len(bad)} of {a.size} values differ: {shown}"


def difference(
    actual: Any, expected: Any, where: str = "result", tol: dict | None = None
) -> str | None:
    """What differs between two encoded results (nested lists and dicts of tensors); ``tol``
    (``rtol`` and ``atol``) in place of the dtype's tolerances."""
    if isinstance(expected, dict) and "error" in expected:
        if actual == expected:
            return None
        return f"{where}: got {actual!r}, expected to raise {expected['error']} at {expected['at']}"
    if isinstance(actual, dict) and "error" in actual:
        return f"raised {actual['error']} at {actual['at']}, expected {expected!r}"
    if isinstance(expected, dict) and "values" in expected:
        if not isinstance(actual, dict) or "values" not in actual:
            return f"{where}: got {actual!r}, expected a tensor"
        return _tensor_difference(actual, expected, where, tol)
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or actual.keys() != expected.keys():
            return f"{where}: got {actual!r}, expected {expected!r}"
        for key in expected:
            found = difference(actual[key], expected[key], f"{where}.{key}", tol)
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where}: got {actual!r}, expected {expected!r}"
        for k, (a, e) in enumerate(zip(actual, expected)):
            found = difference(a, e, f"{where}[{k}]", tol)
            if found:
                return found
        return None
    return None if actual == expected else f"{where}: got {actual!r}, expected {expected!r}"
