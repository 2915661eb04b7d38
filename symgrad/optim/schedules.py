"""More of ``torch.optim.lr_scheduler``: warm-up and one-cycle schedules (``LinearLR``,
``ConstantLR``, ``PolynomialLR``, ``OneCycleLR``), restarts (``CosineAnnealingWarmRestarts``),
composition (``SequentialLR``) and ``ReduceLROnPlateau``, in PyTorch's arithmetic.

They are reached as :mod:`symgrad.optim.lr_scheduler` names.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import Any

from symgrad.optim.lr_scheduler import LRScheduler, _group_values, _set_group_value
from symgrad.optim.optimizer import Optimizer

__all__ = [
    "ConstantLR",
    "LinearLR",
    "PolynomialLR",
    "CosineAnnealingWarmRestarts",
    "SequentialLR",
]


def _set_rates(scheduler: Any, values: list) -> None:
    for group, lr in zip(scheduler.optimizer.param_groups, values, strict=True):
        _set_group_value(group, "lr", lr)
    scheduler._last_lr = _group_values(scheduler.optimizer, "lr")


def _update_lr(scheduler: LRScheduler, epoch: int) -> None:
    """Jump to ``epoch`` by the closed form where there is one (PyTorch's ``_update_lr``)."""
    scheduler._get_lr_called_within_step = True
    try:
        scheduler.last_epoch = epoch
        closed = getattr(scheduler, "_get_closed_form_lr", None)
        values = closed() if closed is not None else scheduler.get_lr()
    finally:
        scheduler._get_lr_called_within_step = False
    _set_rates(scheduler, values)


class ConstantLR(LRScheduler):
    """``lr = initial_lr * factor`` until epoch ``total_iters``, then ``initial_lr``.

    Examples
    --------
    >>> import symgrad
    >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = symgrad.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=2)
    >>> rates = []
    >>> for _ in range(3):
    ...     rates.append(s.get_last_lr()[0]); opt.step(); s.step()
    ...
    >>> rates
    [0.5, 0.5, 1.0]
    """

    def __init__(
        self, optimizer: Optimizer, factor: float = 1.0 / 3, total_iters: int = 5, last_epoch=-1
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        current = self._values()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in current]
        if self.last_epoch != self.total_iters:
            return current
        return [lr * (1.0 / self.factor) for lr in current]

    def _get_closed_form_lr(self) -> list[float]:
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class LinearLR(LRScheduler):
    """The rate's factor goes linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs (a warm-up).

    Examples
    --------
    >>> import symgrad
    >>> opt = symgrad.optim.SGD([symgrad.ones(1, requires_grad=True)], lr=1.0)
    >>> s = symgrad.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> rates = [opt.param_groups[0]["lr"]]
    >>> for _ in range(3):
    ...     opt.step()
    ...     s.step()
    ...     rates.append(s.get_last_lr()[0])
    >>> rates
    [0.5, 0.75, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        current = self._values()
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in current]
        if self._is_initial or self.last_epoch > self.total_iters:
            return current
        span = self.end_factor - self.start_factor
        step = 1.0 + span / (self.total_iters * self.start_factor + (self.last_epoch - 1) * span)
        return [lr * step for lr in current]

    def _get_closed_form_lr(self) -> list[float]:
        span = self.end_factor - self.start_factor
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + span * done) for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """``lr = initial_lr * (1 - t / total_iters) ** power`` up to ``total_iters``.

    Examples
    --------
    >>> import symgrad
    >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = symgrad.optim.lr_scheduler.PolynomialLR(opt, total_iters=4, power=1.0)
    >>> rates = []
    >>> for _ in range(3):
    ...     rates.append(s.get_last_lr()[0]); opt.step(); s.step()
    ...
    >>> rates
    [1.0, 0.75, 0.5]
    """

    def __init__(
        self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch=-1
    ) -> None:
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        current = self._values()
        if self._is_initial or self.last_epoch > self.total_iters:
            return current
        t, n = self.last_epoch, self.total_iters
        factor = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [lr * factor for lr in current]

    def _get_closed_form_lr(self) -> list[float]:
        t = min(self.total_iters, self.last_epoch)
        return [base * (1.0 - t / self.total_iters) ** self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every ``T_i`` epochs, ``T_i`` growing by ``T_mult``.

    Examples
    --------
    >>> import symgrad
    >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = symgrad.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(round(s.get_last_lr()[0], 3)); opt.step(); s.step()
    ...
    >>> rates
    [1.0, 0.5, 1.0, 0.5]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min, self.T_cur = T_mult, eta_min, last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[float]:
        self._values()
        cos = 1 + math.cos(math.pi * self.T_cur / self.T_i)
        return [self.eta_min + (base - self.eta_min) * cos / 2 for base in self.base_lrs]

    def step(self, epoch: Any = None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i, self.T_cur = self.T_0, epoch
        # (its own step, which PyTorch's doesn't count in _step_count: that stays 0)
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        _set_rates(self, values)


class SequentialLR(LRScheduler):
    """Run ``schedulers`` one after another, switching at the epochs in ``milestones``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim import lr_scheduler as ls
    >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=1.0)
    >>> first = ls.ConstantLR(opt, factor=0.5, total_iters=1)
    >>> s = ls.SequentialLR(opt, [first, ls.ExponentialLR(opt, gamma=0.5)], milestones=[1])
    >>> rates = []
    >>> for _ in range(3):
    ...     rates.append(s.get_last_lr()[0]); opt.step(); s.step()
    ...
    >>> rates
    [0.5, 1.0, 0.5]
    """

    def __init__(
        self, optimizer: Optimizer, schedulers: list, milestones: list, last_epoch: int = -1
    ) -> None:
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        for i, scheduler in enumerate(schedulers):
            if not hasattr(scheduler, "optimizer"):
                raise TypeError(
                    f"SequentialLR at index {i} should have `optimizer` as its attribute."
                )
            if type(scheduler).__name__ == "ReduceLROnPlateau":
                raise ValueError(
                    "SequentialLR does not support `ReduceLROnPlateau` scheduler as it requires "
                    "additional kwargs to be specified when calling `step`, but got one at "
                    f"index {i} in the given schedulers sequence."
                )
            if scheduler.optimizer is not optimizer:
                raise ValueError(
                    "SequentialLR expects all schedulers to belong to the same optimizer, but "
                    f"got scheduler {type(scheduler).__name__} at index {i} has "
                    f"{scheduler.optimizer}, which is different from {type(optimizer).__name__}."
                )
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to {len(milestones)}"
            )
        self._schedulers, self._milestones = list(schedulers), list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._step_count = 0
        first._is_initial = True
        try:
            first.step()
        finally:
            first._is_initial = False
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched: Any = None) -> None:
        """Undo the step each schedule made when it was built: the schedules inside a nested
        ``SequentialLR`` or ``ChainedScheduler`` go back one epoch, the nesting one keeps its
        count (PyTorch's order, which nested sequences rely on)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for inner in scheds._schedulers:
                self.recursive_undo(inner)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self) -> None:  # type: ignore[override]
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            _update_lr(scheduler, 0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        state = dict(state_dict)
        inner = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, inner):
            scheduler.load_state_dict(saved)
