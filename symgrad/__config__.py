"""``torch.__config__``: how this build was made, as text.

Examples
--------
>>> import symgrad
>>> print(symgrad.__config__.show().splitlines()[0])
symgrad built with:
"""

from __future__ import annotations

import platform

import numpy as np

__all__ = ["show", "parallel_info"]


def show() -> str:
    """The build's configuration: symgrad runs on NumPy, without CUDA.

    Examples
    --------
    >>> import symgrad
    >>> "NumPy" in symgrad.__config__.show()
    True
    """
    from symgrad.version import __version__

    return (
        "symgrad built with:\n"
        f"  - symgrad {__version__}, Python {platform.python_version()}\n"
        f"  - NumPy {np.__version__}\n"
        "  - CPU only (no CUDA, ROCm or XPU)\n"
    )


def parallel_info() -> str:
    """The threading of the build, as PyTorch reports it: the thread counts symgrad reports.

    Examples
    --------
    >>> import symgrad
    >>> symgrad.__config__.parallel_info().splitlines()[0]
    'ATen/Parallel:'
    """
    from symgrad import get_num_interop_threads, get_num_threads

    return (
        "ATen/Parallel:\n"
        f"\tat::get_num_threads() : {get_num_threads()}\n"
        f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n"
        "symgrad computes with NumPy\n"
    )
