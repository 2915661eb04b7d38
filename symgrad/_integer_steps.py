"""The values of PyTorch's ``arange`` and the ranges it refuses: in an integer dtype its
float bounds are truncated and a narrower type wraps around; no bool ``arange``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad._data import check_number


def integer_arange(start: Any, end: Any, step: Any, dtype: dtypes.dtype, exact: bool) -> Any:
    """PyTorch's integer ``arange`` as int64 values. Float bounds are truncated toward zero:
    all three for int64; for the narrower types only ``start`` and ``step``, the count coming
    from the float bounds."""
    if exact:
        for v in (start, end, step):
            check_number(v, dtypes.int64, "arange")
        # exact integer steps: float64 can't count past 2**53
        return np.arange(int(start), int(end), int(step), dtype=np.int64)
    if dtype is dtypes.int64:
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
        return np.arange(start, end, step, dtype=np.int64)
    count = max(math.ceil((end - start) / step), 0)
    return int(start) + np.arange(count, dtype=np.int64) * int(step)


def arange_values(start: Any, end: Any, step: Any, dtype: dtypes.dtype, exact: bool) -> Any:
    """``arange``'s values for a result of ``dtype`` (``exact``: the bounds are all ints)."""
    if dtype.category == dtypes.int64.category:
        return integer_arange(start, end, step, dtype, exact)
    if dtype is dtypes.bool_:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if math.isinf(step):  # PyTorch counts ceil((end - start) / step): none
        return np.empty(0, np.float64)
    return np.arange(start, end, step, dtype=np.float64)


def check_arange(start: Any, end: Any, step: Any) -> None:
    """PyTorch's refusals of a NaN or zero step, a NaN or infinite bound (its numbers printed
    as C++ prints doubles) and a count past int64."""
    if not (step > 0 or step < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (end - start) * step >= 0 and (end - start) / step > 2**63 - 1:
        raise RuntimeError("invalid size, possible overflow?")
