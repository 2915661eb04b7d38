"""Results as plain JSON data: tensors as dtype, shape and rounded values, nan and inf as text.

Float64 values keep 12 significant digits and float32 values 8, enough for the sweep's
tolerances (``rtol`` 1e-7 and 1e-4) with room to spare.

Examples
--------
>>> import numpy as np
>>> from sweep.encoding import decode_values, encode_values
>>> encode_values(np.array([1 / 3, float("nan"), -float("inf")]))
[0.333333333333, 'nan', '-inf']
>>> decode_values([0.5, "inf"], "float64")
array([0.5, inf])
"""

from __future__ import annotations

from typing import Any

import numpy as np

DIGITS = {"float64": 12, "float32": 8, "float16": 4, "bfloat16": 3}
_SPECIAL = {"nan": float("nan"), "inf": float("inf"), "-inf": -float("inf")}


def _number(v: Any, digits: int | None) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    v = float(v)
    if v != v:
        return "nan"
    if v in (float("inf"), -float("inf")):
        return "inf" if v > 0 else "-inf"
    return float(f"{v:.{digits}g}") if digits else v


def encode_values(values: np.ndarray, dtype: str = "float64") -> list:
    """The flat list of ``values``, floats rounded to the digits ``dtype`` carries."""
    digits = DIGITS.get(dtype)
    return [_number(v, digits) for v in np.asarray(values).reshape(-1).tolist()]


def decode_values(values: list, dtype: str) -> np.ndarray:
    """The array that :func:`encode_values` wrote (flat)."""
    if dtype.startswith("float"):
        return np.array([_SPECIAL.get(v, v) for v in values], dtype=np.float64)
    return np.array(values)


def dtype_name(t: Any) -> str:
    """``"float64"`` for ``torch.float64`` and ``symgrad.float64`` alike."""
    return str(t.dtype).rsplit(".", 1)[-1]


def encode_tensor(t: Any) -> dict | None:
    """``{"dtype", "shape", "values"}`` of a tensor of either library, ``None`` for ``None``."""
    if t is None:
        return None
    dtype = dtype_name(t)
    if type(t).__module__.startswith("torch"):
        values = t.detach().numpy(force=True)  # force: PyTorch's zero tensors convert too
    else:
        values = t.detach().numpy()
    return {"dtype": dtype, "shape": list(t.shape), "values": encode_values(values, dtype)}
