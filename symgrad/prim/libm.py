"""The C math library's functions applied element by element, for kernels that follow
PyTorch's scalar C++ code (which calls ``std::lgamma``, ``std::erfc``, ``std::log``, ... and, for
float32, their float variants ``lgammaf``, ``erfcf``, ...). NumPy's vectorised ``exp``/``log``
and SciPy's Cephes ``gammaln``/``erfc`` differ from the C library's in the last bits, and sums
such as ``a log(x) - x - lgamma(a)`` turn one such bit into thousands of units in the last
place of the result. Where no C library can be loaded, ``function`` returns ``None`` and the
caller falls back to NumPy.

Examples
--------
>>> import numpy as np
>>> from symgrad.prim import libm
>>> fn = libm.function("lgamma", np.dtype(np.float64))
>>> fn is None or float(libm.apply(fn, np.array([4.0]))[0]) == float(np.log(6.0))
True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from typing import Any

import numpy as np

__all__ = ["function", "apply"]

# the number of arguments of each function used
_ARITY = {"exp": 1, "log": 1, "log1p": 1, "expm1": 1, "erfc": 1, "lgamma": 1, "pow": 2}


@functools.cache
def _library() -> Any:
    """The C math library already loaded by the interpreter, or ``None``."""
    names = ["ucrtbase", "msvcrt"] if sys.platform == "win32" else ["m", "c"]
    for name in names:
        path = ctypes.util.find_library(name)
        if path is None:
            continue
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


@functools.cache
def function(name: str, dtype: np.dtype) -> Any:
    """The C function ``name`` for ``dtype`` (``name + "f"`` for float32), or ``None``."""
    lib = _library()
    single = np.dtype(dtype) == np.float32
    try:
        fn = getattr(lib, name + ("f" if single else "")) if lib is not None else None
    except AttributeError:
        return None
    if fn is not None:
        ctype = ctypes.c_float if single else ctypes.c_double
        fn.restype = ctype
        fn.argtypes = [ctype] * _ARITY[name]
    return fn


def apply(fn: Any, *args: np.ndarray) -> np.ndarray:
    """``fn`` of the broadcast ``args``, element by element, in the first one's dtype."""
    dtype = args[0].dtype
    if np.broadcast(*args).size == 0:
        return np.empty(np.broadcast(*args).shape, dtype=dtype)
    return np.asarray(np.frompyfunc(fn, len(args), 1)(*args), dtype=np.float64).astype(dtype)
