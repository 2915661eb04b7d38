"""Learning-rate schedules as in ``torch.optim.lr_scheduler``: each ``step()`` sets the
optimizer's ``group["lr"]`` to the next value, in PyTorch's arithmetic (the chainable form,
each rate from the previous one), so a schedule gives PyTorch's numbers bit for bit."""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from symgrad.optim.optimizer import Optimizer
from symgrad.tensor import Tensor

__all__ = [
    "LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the "
    "new chainable form, where available."
)


def _group_values(optimizer: Optimizer, key: str) -> list:
    """Each group's ``group[key]``; a tensor is copied, so the list never aliases the
    optimizer's own tensor."""
    return [
        group[key].clone() if isinstance(group[key], Tensor) else group[key]
        for group in optimizer.param_groups
    ]


def _set_group_value(group: dict, key: str, value: Any) -> None:
    """Set ``group[key]``; a tensor there is filled in place, as PyTorch does, so a tensor
    rate stays the one object the optimizer (and any reference to it) holds."""
    if isinstance(group[key], Tensor):
        if isinstance(value, Tensor) and value.dim() != 0:
            value = value.squeeze()
        group[key].fill_(value)
    else:
        group[key] = value


def _mark_steps(optimizer: Optimizer) -> None:
    """Make ``optimizer.step`` note that it ran, so a schedule stepped first can warn."""
    step = optimizer.step
    if getattr(step, "_noted_for_schedules", False):
        return

    def noted_step(*args: Any, **kwargs: Any) -> Any:
        optimizer._opt_called = True
        return step(*args, **kwargs)

    noted_step._noted_for_schedules = True  # type: ignore[attr-defined]
    noted_step.__doc__ = step.__doc__
    optimizer.step = noted_step  # type: ignore[method-assign]


class LRScheduler:
    """Base class of the schedules: remembers each group's starting rate
    (``group["initial_lr"]``, ``base_lrs``), counts epochs in ``last_epoch`` and sets the
    rates at construction (epoch 0) and at every :meth:`step`. Subclasses define
    :meth:`get_lr` (the next rates from the current ones) and, where one exists,
    ``_get_closed_form_lr`` (the rates at ``last_epoch`` directly).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.SGD([w], lr=1.0)
    >>> schedule = symgrad.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    >>> rates = []
    >>> for epoch in range(5):
    ...     opt.step()
    ...     schedule.step()
    ...     rates.append(schedule.get_last_lr()[0])
    >>> rates
    [1.0, 0.5, 0.5, 0.25, 0.25]
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                lr = group["lr"]
                group.setdefault("initial_lr", lr.clone() if isinstance(lr, Tensor) else lr)
            elif "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                    "scheduler with last_epoch >= 0.\nThis typically happens when:\n1. You're "
                    "trying to resume training from a checkpoint but haven't properly loaded "
                    "the optimizer state\n2. You're using last_epoch >= 0 for a fresh training "
                    "run (not recommended)"
                )
        self.base_lrs: list[Any] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _mark_steps(optimizer)
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self) -> list[float]:
        """The rates for epoch ``last_epoch``, from the current ones (called by :meth:`step`;
        to read the rates, use :meth:`get_last_lr`)."""
        raise NotImplementedError(f"{type(self).__name__} does not define get_lr()")

    def get_last_lr(self) -> list[float]:
        """The rates the last :meth:`step` set, one per parameter group."""
        return self._last_lr

    def _values(self) -> list[float]:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )
        return _group_values(self.optimizer, "lr")

    def step(self, epoch: int | None = None) -> None:
        """Move to the next epoch and set its rates; call it after ``optimizer.step()``.
        (``epoch=`` is deprecated, as in PyTorch: it jumps to that epoch by the closed form
        where one exists.)"""
        if self._step_count == 1:
            if not getattr(self.optimizer.step, "_noted_for_schedules", False):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`.",
                    UserWarning,
                    stacklevel=2,
                )
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule.",
                    UserWarning,
                    stacklevel=2,
                )
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")

    def state_dict(self) -> dict[str, Any]:
        """Everything the schedule holds except the optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the state of :meth:`state_dict`."""
        self.__dict__.update(state_dict)


class _LRScheduler(LRScheduler):
    """The old name of :class:`LRScheduler`, still subclassed by older custom schedules.

    Examples
    --------
    >>> import symgrad
    >>> class Halving(symgrad.optim.lr_scheduler._LRScheduler):
    ...     def get_lr(self):
    ...         return [lr * 0.5**self.last_epoch for lr in self.base_lrs]
    >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=1.0)
    >>> schedule = Halving(opt)
    >>> opt.step()
    >>> schedule.step()
    >>> schedule.get_last_lr()
    [0.5]
    """


class _PerGroupFunctions(LRScheduler):
    """A schedule given by one function of the epoch per group (or one for all)."""

    # PyTorch's MultiplicativeLR refuses a non-callable up front; LambdaLR fails on calling it
    _callables_checked = False

    def __init__(self, optimizer: Optimizer, lr_lambda: Any, last_epoch: int = -1) -> None:
        groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != groups:
                raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas: list[Callable[[int], float]] = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * groups
        for fn in self.lr_lambdas if self._callables_checked else ():
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """The state, with each function saved only if it is a callable object (its
        ``__dict__``); plain functions and lambdas are not saved."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
            for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the state of :meth:`state_dict` (callable objects get their saved
        attributes back)."""
        saved = dict(state_dict)
        functions = saved.pop("lr_lambdas")
        self.__dict__.update(saved)
        for fn, attributes in zip(self.lr_lambdas, functions):
            if attributes is not None:
                fn.__dict__.update(attributes)


class LambdaLR(_PerGroupFunctions):
    """``lr = initial_lr * lr_lambda(epoch)``.

    Examples
    --------
    >>> import symgrad
    >>> opt = symgrad.optim.SGD([symgrad.ones(1, requires_grad=True)], lr=0.1)
    >>> schedule = symgrad.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5**epoch)
    >>> opt.step(); schedule.step(); schedule.get_last_lr()
    [0.05]
    """

    def get_lr(self) -> list[float]:
        self._values()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_PerGroupFunctions):
    """``lr *= lr_lambda(epoch)`` at every step after construction (also at a ``step(0)``
    given explicitly, as in PyTorch)."""

    _callables_checked = True

    def get_lr(self) -> list[float]:
        current = self._values()
        if not self._is_initial:
            return [lr * fn(self.last_epoch) for fn, lr in zip(self.lr_lambdas, current)]
        return current


class StepLR(LRScheduler):
    """``lr *= gamma`` every ``step_size`` epochs."""

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        current = self._values()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return current
        return [lr * self.gamma for lr in current]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """``lr *= gamma`` at each epoch listed in ``milestones`` (twice if listed twice)."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        current = self._values()
        if self.last_epoch not in self.milestones:
            return current
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in current]

    def _get_closed_form_lr(self) -> list[float]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma**passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """``lr *= gamma`` every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        current = self._values()
        return current if self._is_initial else [lr * self.gamma for lr in current]

    def _get_closed_form_lr(self) -> list[float]:
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from ``initial_lr`` down to ``eta_min`` over ``T_max`` epochs (and
    back up over the next ``T_max``): ``eta_min + (initial_lr - eta_min)(1 + cos(pi t /
    T_max)) / 2``, computed step by step from the current rate as PyTorch does."""

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        current = self._values()
        t, period, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return current
        if self._step_count == 1 and t > 0:  # resumed: the closed form
            return self._get_closed_form_lr()
        if (t - 1 - period) % (2 * period) == 0:  # turning back up from eta_min
            rise = 1 - math.cos(math.pi / period)
            return [lr + (base - low) * rise / 2 for lr, base in zip(current, self.base_lrs)]
        ratio = (1 + math.cos(math.pi * t / period)) / (1 + math.cos(math.pi * (t - 1) / period))
        return [ratio * (lr - low) + low for lr in current]

    def _get_closed_form_lr(self) -> list[float]:
        t = self.last_epoch
        return [
            self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * t / self.T_max)) / 2
            for base in self.base_lrs
        ]
