"""``CyclicLR`` (the rate cycled between two bounds, the momentum the opposite way) and
``ChainedScheduler`` (several schedules stepped together), in PyTorch's arithmetic; reached
as :mod:`symgrad.optim.lr_scheduler` names."""

from __future__ import annotations

import math
import types
from collections.abc import Callable, Sequence
from typing import Any

from symgrad.optim.lr_scheduler import LRScheduler, _group_values, _set_group_value
from symgrad.optim.optimizer import Optimizer
from symgrad.optim.schedules_adaptive import _per_group, _uses_beta1

__all__ = ["CyclicLR", "ChainedScheduler"]

_MODES = ("triangular", "triangular2", "exp_range")


class CyclicLR(LRScheduler):
    """The cyclical learning rate policy: each group's rate climbs from ``base_lr`` to
    ``max_lr`` over ``step_size_up`` steps and back over ``step_size_down``; the amplitude is
    scaled per cycle (``"triangular"``: 1, ``"triangular2"``: halved each cycle) or per step
    (``"exp_range"``: ``gamma**step``), or by ``scale_fn``. With ``cycle_momentum`` the
    momentum (Adam's beta1) moves between ``max_momentum`` and ``base_momentum`` the other
    way. Step it after every batch.

    Examples
    --------
    >>> import symgrad
    >>> opt = symgrad.optim.SGD([symgrad.ones(1, requires_grad=True)], lr=1.0, momentum=0.9)
    >>> s = symgrad.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2)
    >>> rates = []
    >>> for _ in range(5):
    ...     rates.append(round(s.get_last_lr()[0], 4)); opt.step(); s.step()
    >>> rates
    [0.1, 0.3, 0.5, 0.3, 0.1]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: Any,
        max_lr: Any,
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: str = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: str = "cycle",
        cycle_momentum: bool = True,
        base_momentum: Any = 0.8,
        max_momentum: Any = 0.9,
        last_epoch: int = -1,
    ) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in _MODES and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        if scale_fn is None:
            self.scale_mode = "iterations" if mode == "exp_range" else "cycle"
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    self._set_momentum(group, high)
                    group["max_momentum"], group["base_momentum"] = high, low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _set_momentum(self, group: dict, value: float) -> None:
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or step) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        if self.mode == "exp_range":
            return self.gamma**x
        return 1.0

    def get_lr(self) -> list[float]:
        self._values()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        rates = [
            base + (top - base) * scale_factor * scale
            for base, top in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for low, high, group in zip(
                self.base_momentums, self.max_momentums, self.optimizer.param_groups
            ):
                self._set_momentum(group, high - (high - low) * scale_factor * scale)
        return rates

    def state_dict(self) -> dict[str, Any]:
        """The state; of a custom ``scale_fn`` only a callable object's attributes (a function
        is not saved), last, as in PyTorch."""
        state = super().state_dict()
        custom = state.pop("_scale_fn_custom")
        plain = custom is None or isinstance(custom, types.FunctionType)
        state["_scale_fn_custom"] = None if plain else dict(vars(custom))
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the state of :meth:`state_dict`, keeping this schedule's ``scale_fn`` (a
        callable object takes the saved attributes)."""
        custom = self._scale_fn_custom
        saved = state_dict.get("_scale_fn_custom")
        super().load_state_dict({k: v for k, v in state_dict.items() if k != "_scale_fn_custom"})
        self._scale_fn_custom = custom
        if saved is not None:
            vars(custom).update(saved)


class ChainedScheduler(LRScheduler):
    """Several schedules stepped together: each :meth:`step` steps every one of them, in
    order, so their effects multiply.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim import lr_scheduler as ls
    >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=1.0)
    >>> parts = [ls.ConstantLR(opt, 0.5, total_iters=2), ls.ExponentialLR(opt, 0.5)]
    >>> s = ls.ChainedScheduler(parts)
    >>> rates = []
    >>> for _ in range(4):
    ...     rates.append(s.get_last_lr()[0]); opt.step(); s.step()
    >>> rates
    [0.5, 0.25, 0.25, 0.125]
    """

    def __init__(self, schedulers: Sequence[LRScheduler], optimizer: Any = None) -> None:
        name = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(
                f"{name} expects at least one scheduler to be chained, but got no scheduler."
            )
        optimizer = optimizer or schedulers[0].optimizer
        for i, scheduler in enumerate(schedulers):
            if not hasattr(scheduler, "optimizer"):
                raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
            if type(scheduler).__name__ == "ReduceLROnPlateau":
                raise ValueError(
                    f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                    "additional kwargs to be specified when calling `step`, but got one at "
                    f"index {i} in the given schedulers sequence."
                )
            if optimizer != scheduler.optimizer:
                raise ValueError(
                    f"{name} expects all schedulers to belong to the same optimizer, but got "
                    f"scheduler {type(scheduler).__name__} at index {i} has "
                    f"{scheduler.optimizer}, which is different from "
                    f"{type(optimizer).__name__}."
                )
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self) -> None:  # type: ignore[override]
        """Step every schedule, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def state_dict(self) -> dict[str, Any]:
        """This schedule's state with each chained schedule's state dict."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take the state of :meth:`state_dict`, the chained schedules' too."""
        state = {k: v for k, v in state_dict.items() if k != "_schedulers"}
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, state_dict["_schedulers"]):
            scheduler.load_state_dict(saved)
