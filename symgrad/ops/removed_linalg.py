"""Linear-algebra names PyTorch removed in version 1.9 but still exposes: ``lstsq``,
``solve``, ``eig``, ``symeig`` and ``matrix_rank`` (and the methods ``Tensor.lstsq``,
``solve``, ``eig``, ``symeig``). Calling one raises PyTorch's ``RuntimeError``, whose message
says which ``symgrad.linalg`` function replaces it and how its arguments changed.
"""

from __future__ import annotations

from typing import Any

from symgrad.tensor import bind_methods

__all__ = ["lstsq", "solve", "eig", "symeig", "matrix_rank"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def _removed(advice: str) -> RuntimeError:
    return RuntimeError(f"{_REMOVED} {advice}")


def lstsq(input: Any, A: Any, *, out: Any = None) -> Any:
    """Removed from PyTorch: raises ``RuntimeError``; use :func:`symgrad.linalg.lstsq`
    (arguments the other way round).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.lstsq(symgrad.ones(2, 1), symgrad.eye(2))
    Traceback (most recent call last):
    ...
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise _removed(
        "Use torch.linalg.lstsq instead: it takes its arguments the other way round, "
        "X = torch.linalg.lstsq(A, B).solution for torch.lstsq(B, A), and returns the "
        "residuals in its field 'residuals' rather than in the last rows of the solution; "
        "torch.linalg.qr gives the QR decomposition torch.lstsq returned."
    )


def solve(input: Any, A: Any, *, out: Any = None) -> Any:
    """Removed from PyTorch: raises ``RuntimeError``; use :func:`symgrad.linalg.solve`
    (arguments the other way round).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.solve(symgrad.ones(2, 1), symgrad.eye(2))
    Traceback (most recent call last):
    ...
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise _removed(
        "Use torch.linalg.solve instead: it takes its arguments the other way round, "
        "X = torch.linalg.solve(A, B) for torch.solve(B, A).solution, and returns no LU "
        "factorization (torch.linalg.lu_factor gives it, for torch.linalg.lu_solve)."
    )


def eig(input: Any, eigenvectors: bool = False, *, e: Any = None, v: Any = None) -> Any:
    """Removed from PyTorch: raises ``RuntimeError``; PyTorch's replacements
    ``torch.linalg.eig`` and ``eigvals`` return complex tensors (for a symmetric matrix,
    :func:`symgrad.linalg.eigh` gives real ones).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.eig(symgrad.eye(2))
    Traceback (most recent call last):
    ...
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise _removed(
        "Use torch.linalg.eigvals(A) for the eigenvalues and torch.linalg.eig(A) for "
        "eigenvalues and eigenvectors: both return complex tensors instead of real ones "
        "that mimic complex numbers."
    )


def symeig(input: Any, eigenvectors: bool = False, upper: bool = True, *, out: Any = None) -> Any:
    """Removed from PyTorch: raises ``RuntimeError``; use :func:`symgrad.linalg.eigvalsh`
    or :func:`symgrad.linalg.eigh` (which read the lower triangle unless ``UPLO='U'``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.symeig(symgrad.eye(2))
    Traceback (most recent call last):
    ...
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise _removed(
        "Use torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L') for the eigenvalues and "
        "torch.linalg.eigh(A, UPLO='U' if upper else 'L') for eigenvalues and eigenvectors; "
        "note that they read the lower triangle by default, where torch.symeig read the "
        "upper one."
    )


def matrix_rank(input: Any, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> Any:
    """Removed from PyTorch: raises ``RuntimeError``; use
    :func:`symgrad.linalg.matrix_rank` (whose ``hermitian`` was ``symmetric``).

    Examples
    --------
    >>> import symgrad
    >>> symgrad.matrix_rank(symgrad.eye(2))
    Traceback (most recent call last):
    ...
    RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise _removed(
        "Use torch.linalg.matrix_rank instead; its argument 'hermitian' is the former 'symmetric'."
    )


bind_methods({"lstsq": lstsq, "solve": solve, "eig": eig, "symeig": symeig})
