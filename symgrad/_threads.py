"""PyTorch's thread settings (``get_num_threads``, ``set_num_threads`` and the inter-op ones),
mapped onto what symgrad's arithmetic actually runs on.

symgrad's own Python code runs in one thread; the work done by several threads is inside the
BLAS library NumPy is linked with (matrix products, factorizations) and in element-wise ops on
large arrays, whose blocks symgrad shares among threads (:mod:`symgrad.prim.blocks`).
``set_num_threads`` therefore sets that library's thread count and the number of threads the
blocks are shared among, and ``get_num_threads`` reads the library's back. The library
is found the way ``threadpoolctl`` finds it: with ``threadpoolctl`` when it is installed,
otherwise among the shared libraries loaded into the process (Linux), asking OpenBLAS, MKL or
BLIS through their own C functions. Where no library can be controlled, the number is
remembered and reported, and changes nothing (:func:`blas_controlled` says which).

symgrad has no inter-op thread pool: ``set_num_interop_threads`` records the number (once, as
PyTorch allows) and ``get_num_interop_threads`` reports it.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

from symgrad.prim import blocks

__all__ = [
    "get_num_threads",
    "set_num_threads",
    "get_num_interop_threads",
    "set_num_interop_threads",
    "init_num_threads",
]

# (library name part, getter, setter): each library's own C functions for its thread count
_BLAS_SYMBOLS = (
    ("openblas", "openblas_get_num_threads", "openblas_set_num_threads"),
    ("openblas", "openblas_get_num_threads64_", "openblas_set_num_threads64_"),
    ("openblas", "scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas", "scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("mkl_rt", "MKL_Get_Max_Threads", "MKL_Set_Num_Threads"),
    ("blis", "bli_thread_get_num_threads", "bli_thread_set_num_threads"),
)


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class _State:
    controllers: list | None = None  # found on first use: [(get, set)]
    threads = _cpu_count()  # reported when no library can be controlled
    interop = _cpu_count()
    interop_set = False


_state = _State()


class _Threadpoolctl:
    """The BLAS libraries as ``threadpoolctl`` sees them."""

    def __init__(self, module: Any) -> None:
        self._module = module

    def get(self) -> int:
        infos = [i for i in self._module.threadpool_info() if i.get("user_api") == "blas"]
        return max(i["num_threads"] for i in infos)

    def set(self, n: int) -> None:
        self._module.threadpool_limits(limits=n, user_api="blas")


def _loaded_libraries() -> list[str]:
    """The paths of the shared libraries mapped into this process (Linux only)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if ".so" in line}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/") and ".so" in os.path.basename(p))


def _from_libraries() -> list:
    """(get, set) pairs for the BLAS libraries already loaded (never loads a new one)."""
    found = []
    for path in _loaded_libraries():
        name = os.path.basename(path).lower()
        for part, get_name, set_name in _BLAS_SYMBOLS:
            if part not in name:
                continue
            try:
                lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_GLOBAL)
                get, set_ = getattr(lib, get_name), getattr(lib, set_name)
            except (OSError, AttributeError):
                continue
            get.restype = ctypes.c_int
            set_.argtypes = [ctypes.c_int]
            found.append((get, set_))
            break
    return found


def _controllers() -> list:
    if _state.controllers is None:
        import numpy  # noqa: F401  (its BLAS library is loaded with it)

        try:
            import threadpoolctl
        except ImportError:
            _state.controllers = _from_libraries()
        else:
            tool = _Threadpoolctl(threadpoolctl)
            _state.controllers = [(tool.get, tool.set)]
    return _state.controllers


def blas_controlled() -> bool:
    """Whether :func:`set_num_threads` reaches a BLAS library (otherwise it only records the
    number).

    Examples
    --------
    >>> from symgrad import _threads
    >>> isinstance(_threads.blas_controlled(), bool)
    True
    """
    try:
        return bool(_controllers()) and get_num_threads() > 0
    except (ValueError, OSError):
        return False


def get_num_threads() -> int:
    """The number of threads the BLAS library under NumPy uses for matrix products and
    factorizations (symgrad's own code runs in one thread). Where no library can be asked,
    the number last given to :func:`set_num_threads` (at first, the CPUs available).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.get_num_threads() >= 1
    True
    """
    for get, _ in _controllers():
        try:
            return int(get())
        except (ValueError, OSError):
            continue
    return _state.threads


def _check_count(function: str, n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{function} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{function} expects a positive integer")
    return n


def set_num_threads(n: int) -> None:
    """Set the number of threads of the BLAS library under NumPy to ``n`` (a positive int),
    for the whole process: matrix products and factorizations then use at most ``n`` threads,
    and so do element-wise ops on large arrays.
    Where no library can be controlled, ``n`` is only remembered (see the module's notes).

    Examples
    --------
    >>> import symgrad
    >>> before = symgrad.get_num_threads()
    >>> symgrad.set_num_threads(1)
    >>> symgrad.set_num_threads(before)
    >>> symgrad.set_num_threads(0)
    Traceback (most recent call last):
        ...
    RuntimeError: set_num_threads expects a positive integer
    """
    n = _check_count("set_num_threads", n)
    for _, set_ in _controllers():
        set_(n)
    blocks.set_threads(n)
    _state.threads = n


def get_num_interop_threads() -> int:
    """The number of inter-op threads: symgrad runs ops one after another, so this is only
    the number recorded by :func:`set_num_interop_threads` (at first, the CPUs available).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.get_num_interop_threads() >= 1
    True
    """
    return _state.interop


def set_num_interop_threads(n: int) -> None:
    """Record ``n`` as the number of inter-op threads (symgrad has no inter-op pool, so it
    changes nothing else). As in PyTorch it may be called once; a second call raises
    ``RuntimeError``.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.set_num_interop_threads(-1)
    Traceback (most recent call last):
        ...
    RuntimeError: set_num_interop_threads expects a positive integer
    """
    n = _check_count("set_num_interop_threads", n)
    if _state.interop_set:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _state.interop = n
    _state.interop_set = True


def init_num_threads() -> None:
    """Initialise the thread settings of the calling thread: nothing to do in symgrad (the
    BLAS setting is process-wide), kept for PyTorch code that calls it.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.init_num_threads()
    """
