"""Vector constraints (one-hot, simplex, multinomial), matrix constraints (triangular,
Cholesky, symmetric, positive definite) and the structural ``cat`` and ``stack``, as
``torch.distributions.constraints``.

Examples
--------
>>> import symgrad
>>> from symgrad.distributions import constraints
>>> constraints.lower_cholesky.check(symgrad.tensor([[1.0, 0.0], [2.0, 3.0]]))
tensor(True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from symgrad import creation, dtypes, linalg, type_info
from symgrad.distributions.constraint_base import Constraint, _array
from symgrad.ops import joining, summaries
from symgrad.tensor import Tensor

__all__: list = []


class _OneHot(Constraint):
    """Vectors of zeros with a single one.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.one_hot.check(symgrad.tensor([[0.0, 1.0], [1.0, 1.0]]))
    tensor([ True, False])
    """

    is_discrete = True
    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        zero_or_one = (value == 0) | (value == 1)
        return zero_or_one.all(-1) & value.sum(-1).eq(1)


class _Simplex(Constraint):
    """Nonnegative vectors summing to 1 (within ``1e-6``, as PyTorch).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.simplex.check(symgrad.tensor([[0.25, 0.75], [0.5, 0.6]]))
    tensor([ True, False])
    """

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)

    def _holds(self, value: Tensor) -> bool:
        x = _array(value)
        return bool((x >= 0).all() and (np.abs(x.sum(-1) - 1) < 1e-6).all())


class _Multinomial(Constraint):
    """Nonnegative count vectors whose total is at most ``upper_bound``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.multinomial(3).check(symgrad.tensor([[1.0, 2.0], [2.0, 2.0]]))
    tensor([ True, False])
    """

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, x: Tensor) -> Tensor:
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


def _is_lower_triangular(value: Tensor) -> Tensor:
    same = value.tril() == value
    return same.reshape(*value.shape[:-2], -1).all(-1)


class _LowerTriangular(Constraint):
    """Square matrices that are zero above the diagonal.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.lower_triangular.check(symgrad.tensor([[1.0, 1.0], [0.0, 1.0]]))
    tensor(False)
    """

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        return _is_lower_triangular(value)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.lower_cholesky.check(symgrad.tensor([[1.0, 0.0], [0.0, 0.0]]))
    tensor(False)
    """

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        # the triangle first: a tensor of fewer than 2 dims fails there (tril's RuntimeError)
        lower = _is_lower_triangular(value)
        return lower & (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky with rows of unit norm.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.corr_cholesky.check(symgrad.tensor([[1.0, 0.0], [0.6, 0.8]]))
    tensor(True)
    """

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        # the tolerance grows with the row length: rounding in the norm adds up
        tol = type_info.finfo(value.dtype).eps * value.shape[-1] * 10
        row_norm = linalg.norm(value.detach(), dim=-1)
        unit_rows = (row_norm - 1.0).abs().le(tol).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class _Square(Constraint):
    """Square matrices.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.square.check(symgrad.ones(3, 2, 2))
    tensor([True, True, True])
    """

    event_dim = 2

    def check(self, value: Tensor) -> Tensor:
        is_square = value.shape[-2] == value.shape[-1]
        return creation.full(tuple(value.shape[:-2]), is_square, dtype=dtypes.bool_)


def _is_symmetric(value: Tensor) -> Tensor:
    return summaries.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


def _has_nonnegative_eigenvalues(value: Tensor) -> Tensor:
    return linalg.eigvalsh(value).ge(0).all(-1)


def _has_cholesky_factor(value: Tensor) -> Tensor:
    return linalg.cholesky_ex(value).info.eq(0)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (within ``atol=1e-6``).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.symmetric.check(symgrad.tensor([[1.0, 2.0], [0.0, 1.0]]))
    tensor(False)
    """

    # each test runs only once every matrix of the batch passed the ones before it: the
    # eigenvalue and Cholesky tests need square, symmetric input
    _tests: tuple = (_is_symmetric,)

    def check(self, value: Tensor) -> Tensor:
        holds = super().check(value)
        for test in self._tests:
            if not bool(holds.all()):
                return holds
            holds = test(value)
        return holds


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with nonnegative eigenvalues.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.positive_semidefinite.check(symgrad.zeros(2, 2))
    tensor(True)
    """

    _tests = (_is_symmetric, _has_nonnegative_eigenvalues)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factor (positive eigenvalues).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> constraints.positive_definite.check(symgrad.tensor([[1.0, 0.0], [0.0, -1.0]]))
    tensor(False)
    """

    _tests = (_is_symmetric, _has_cholesky_factor)


def _check_dim(dim: int, value: Tensor) -> None:
    if not -value.ndim <= dim < value.ndim:
        raise AssertionError(f"dim {dim} out of range for value with {value.ndim} dimensions")


def _check_constraints(cseq: Sequence) -> list:
    if not all(isinstance(c, Constraint) for c in cseq):
        raise AssertionError("All elements of cseq must be Constraint instances")
    return list(cseq)


class _Joined(Constraint):
    # the constraints ``cseq`` applied to slices along ``dim``: discrete when any of them is
    def __init__(self, cseq: Sequence, dim: int = 0) -> None:
        self.cseq = _check_constraints(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)


class _Cat(_Joined):
    """The constraints ``cseq`` applied to consecutive slices of ``lengths`` along ``dim``, as
    ``cat`` joins them.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> c = constraints.cat([constraints.real, constraints.positive], 0, [1, 2])
    >>> c.check(symgrad.tensor([-1.0, 1.0, -2.0]))
    tensor([ True,  True, False])
    """

    def __init__(self, cseq: Sequence, dim: int = 0, lengths: Sequence | None = None) -> None:
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})"
            )

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return max(c.event_dim for c in self.cseq)

    def check(self, value: Tensor) -> Tensor:
        _check_dim(self.dim, value)
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return joining.cat(checks, self.dim)


class _Stack(_Joined):
    """The constraints ``cseq`` applied to the slices along ``dim``, as ``stack`` joins them.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> c = constraints.stack([constraints.real, constraints.positive], -1)
    >>> c.check(symgrad.tensor([[-1.0, 1.0], [1.0, -1.0]]))
    tensor([[ True,  True],
            [ True, False]])
    """

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = max(c.event_dim for c in self.cseq)
        # a negative stacking dim inside the event makes the stacked dim part of it
        return dim + 1 if self.dim + dim < 0 else dim

    def check(self, value: Tensor) -> Any:
        _check_dim(self.dim, value)
        slices = [value.select(self.dim, i) for i in range(value.shape[self.dim])]
        return joining.stack([c.check(v) for v, c in zip(slices, self.cseq)], self.dim)
