"""``MixtureSameFamilyConstraint``: the support of a :class:`MixtureSameFamily`, re-exported
by :mod:`symgrad.distributions.constraints`."""

from __future__ import annotations

from symgrad.distributions.constraint_base import Constraint
from symgrad.tensor import Tensor

__all__ = ["MixtureSameFamilyConstraint"]


class MixtureSameFamilyConstraint(Constraint):
    """The support of a :class:`~symgrad.distributions.MixtureSameFamily`: its component
    distribution's support, checked against every component (the value is given back the
    rightmost batch dimension the mixture reduces).

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.distributions import constraints
    >>> c = constraints.MixtureSameFamilyConstraint(constraints.nonnegative_integer)
    >>> c, c.is_discrete, c.event_dim
    (MixtureSameFamilyConstraint(IntegerGreaterThan(lower_bound=0)), True, 0)
    >>> c.check(symgrad.tensor([1.0, 0.5]))
    tensor([ True, False])
    """

    def __init__(self, base_constraint: Constraint) -> None:
        if not isinstance(base_constraint, Constraint):
            raise AssertionError(
                f"base_constraint must be a Constraint, got {type(base_constraint).__name__}"
            )
        self.base_constraint = base_constraint
        super().__init__()

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim

    def check(self, value: Tensor) -> Tensor:
        ok = self.base_constraint.check(value.unsqueeze(-1 - self.event_dim))
        if value.ndim < self.event_dim:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.ndim}")
        kept = value.ndim - self.event_dim
        return ok.reshape(*ok.shape[:kept], -1).all(-1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_constraint!r})"
