"""The base class of :mod:`symgrad.distributions` and the helpers its distributions share.

A distribution's parameters are ordinary tensors, so ``log_prob``, ``entropy`` and ``rsample``
are recorded ops: their gradients, ``create_graph`` and closed forms come from the ops.
"""

from __future__ import annotations

import numbers
from typing import Any

from symgrad import creation, dtypes
from symgrad._data import Size
from symgrad.autograd import grad_mode
from symgrad.tensor import Tensor

__all__ = ["Distribution"]


class Distribution:
    """Base class of probability distributions, as ``torch.distributions.Distribution``.

    Examples
    --------
    >>> import symgrad
    >>> d = symgrad.distributions.Normal(0.0, 1.0)
    >>> d.batch_shape, d.event_shape
    (symgrad.Size([]), symgrad.Size([]))
    """

    has_rsample = False
    arg_constraints: dict = {}
    _validate_default = True

    def __init__(
        self, batch_shape: Any = (), event_shape: Any = (), validate_args: Any = None
    ) -> None:
        self._batch_shape = Size(tuple(batch_shape))
        self._event_shape = Size(tuple(event_shape))
        validate = self._validate_default if validate_args is None else validate_args
        self._validate_args = validate
        if validate:
            for name, check in self.arg_constraints.items():
                value = getattr(self, name, None)
                if isinstance(value, Tensor) and not bool(check(value.detach()).all()):
                    raise ValueError(
                        f"Expected parameter {name} (Tensor of shape {tuple(value.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {check.__doc__}, "
                        f"but found invalid values:\n{value}"
                    )

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Whether distributions check their parameters by default (True, as PyTorch)."""
        Distribution._validate_default = bool(value)

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with grad_mode.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterized sample: gradients flow to the parameters."""
        raise NotImplementedError(
            f"{type(self).__name__} has no rsample (it is not reparameterizable): use sample()"
        )

    def sample_n(self, n: int) -> Tensor:
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not define log_prob")

    def entropy(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not define entropy")

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def __repr__(self) -> str:
        parts = []
        for name in self.arg_constraints:
            value = self.__dict__.get(name)
            if isinstance(value, Tensor):
                shown = value.item() if value.numel() == 1 else value.size()
                parts.append(f"{name}: {shown}")
        return f"{type(self).__name__}({', '.join(parts)})"


def broadcast_all(*values: Any) -> tuple:
    """Numbers and tensors as tensors of one broadcast shape (numbers in the default dtype,
    or the dtype of the tensors given)."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    for v in values:
        if not isinstance(v, (Tensor, numbers.Number)):
            raise ValueError(
                f"Input arguments must all be instances of numbers.Number or Tensor, got "
                f"{type(v).__name__}"
            )
    dtype = tensors[0].dtype if tensors else dtypes.get_default_dtype()
    made = [v if isinstance(v, Tensor) else creation.tensor(v, dtype=dtype) for v in values]
    from symgrad.ops import broadcast_tensors

    return tuple(broadcast_tensors(*made))


def sum_rightmost(value: Tensor, dims: int) -> Tensor:
    """``value`` summed over its last ``dims`` dimensions."""
    return value.reshape(*value.shape[: value.ndim - dims], -1).sum(-1) if dims else value


class _Constraint:
    def __init__(self, check: Any, doc: str) -> None:
        self.check, self.__doc__ = check, doc

    def __call__(self, value: Tensor) -> Tensor:
        return self.check(value)


positive = _Constraint(lambda v: v > 0, "GreaterThan(lower_bound=0.0)")
real = _Constraint(lambda v: v == v, "Real()")
unit_interval = _Constraint(
    lambda v: (v >= 0) & (v <= 1), "Interval(lower_bound=0.0, upper_bound=1.0)"
)
simplex = _Constraint(lambda v: (v >= 0).all(-1) & ((v.sum(-1) - 1).abs() < 1e-6), "Simplex()")
