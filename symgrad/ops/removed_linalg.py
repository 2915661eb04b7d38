"""Linear-algebra names PyTorch removed in version 1.9 but still exposes: ``lstsq``,
``solve``, ``eig``, ``symeig`` and ``matrix_rank`` (and the methods ``Tensor.lstsq``,
``solve``, ``eig``, ``symeig``). Calling one raises PyTorch's ``RuntimeError``, whose message
says which ``symgrad.linalg`` function replaces it and how its arguments changed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from symgrad.tensor import bind_methods

__all__ = ["lstsq", "solve", "eig", "symeig", "matrix_rank"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def _removed(example_args: str, advice: str) -> Callable[[Callable], Callable]:
    """Turn a stub, whose signature is the removed function's and whose docstring says what
    replaces it, into the function: it checks its arguments as the stub does (Python's own
    ``TypeError``), then raises ``RuntimeError`` with ``advice``. The docstring gains the
    Examples section, a call with ``example_args``."""

    def decorate(stub: Callable) -> Callable:
        @functools.wraps(stub)
        def removed(*args: Any, **kwargs: Any) -> Any:
            stub(*args, **kwargs)
            raise RuntimeError(f"{_REMOVED} {advice}")

        removed.__doc__ = (
            f"Removed from PyTorch: raises ``RuntimeError``; {stub.__doc__}\n\n"
            "    Examples\n    --------\n    >>> import symgrad\n"
            f"    >>> symgrad.{stub.__name__}({example_args})\n"
            "    Traceback (most recent call last):\n    ...\n"
            f"    RuntimeError: {_REMOVED} ...\n    "
        )
        return removed

    return decorate


@_removed(
    "symgrad.ones(2, 1), symgrad.eye(2)",
    "Use torch.linalg.lstsq instead: it takes its arguments the other way round, "
    "X = torch.linalg.lstsq(A, B).solution for torch.lstsq(B, A), and returns the "
    "residuals in its field 'residuals' rather than in the last rows of the solution; "
    "torch.linalg.qr gives the QR decomposition torch.lstsq returned.",
)
def lstsq(input: Any, A: Any, *, out: Any = None) -> Any:
    """use :func:`symgrad.linalg.lstsq`
    (arguments the other way round)."""


@_removed(
    "symgrad.ones(2, 1), symgrad.eye(2)",
    "Use torch.linalg.solve instead: it takes its arguments the other way round, "
    "X = torch.linalg.solve(A, B) for torch.solve(B, A).solution, and returns no LU "
    "factorization (torch.linalg.lu_factor gives it, for torch.linalg.lu_solve).",
)
def solve(input: Any, A: Any, *, out: Any = None) -> Any:
    """use :func:`symgrad.linalg.solve`
    (arguments the other way round)."""


@_removed(
    "symgrad.eye(2)",
    "Use torch.linalg.eigvals(A) for the eigenvalues and torch.linalg.eig(A) for "
    "eigenvalues and eigenvectors: both return complex tensors instead of real ones "
    "that mimic complex numbers.",
)
def eig(input: Any, eigenvectors: bool = False, *, e: Any = None, v: Any = None) -> Any:
    """PyTorch's replacements
    ``torch.linalg.eig`` and ``eigvals`` return complex tensors (for a symmetric matrix,
    :func:`symgrad.linalg.eigh` gives real ones)."""


@_removed(
    "symgrad.eye(2)",
    "Use torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L') for the eigenvalues and "
    "torch.linalg.eigh(A, UPLO='U' if upper else 'L') for eigenvalues and eigenvectors; "
    "note that they read the lower triangle by default, where torch.symeig read the "
    "upper one.",
)
def symeig(input: Any, eigenvectors: bool = False, upper: bool = True, *, out: Any = None) -> Any:
    """use :func:`symgrad.linalg.eigvalsh`
    or :func:`symgrad.linalg.eigh` (which read the lower triangle unless ``UPLO='U'``)."""


@_removed(
    "symgrad.eye(2)",
    "Use torch.linalg.matrix_rank instead; its argument 'hermitian' is the former 'symmetric'.",
)
def matrix_rank(input: Any, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> Any:
    """use
    :func:`symgrad.linalg.matrix_rank` (whose ``hermitian`` was ``symmetric``)."""


bind_methods({"lstsq": lstsq, "solve": solve, "eig": eig, "symeig": symeig})
