"""Stochastic weight averaging, as ``torch.optim.swa_utils``: :class:`AveragedModel` (a copy
of a model whose weights are a running average of the model's), :class:`SWALR` (the
learning-rate schedule of the averaging phase) and :func:`update_bn` (batch-norm statistics
recomputed for the averaged weights)."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any

import numpy as np

from symgrad import creation, dtypes
from symgrad.autograd.grad_mode import no_grad
from symgrad.nn.modules.module import Module
from symgrad.nn.modules.normalization import _BatchNorm
from symgrad.optim.lr_scheduler import LRScheduler
from symgrad.optim.optimizer import Optimizer
from symgrad.tensor import Tensor

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def _lerp_(x: Tensor, end: Tensor, weight: float) -> Tensor:
    """``x += weight * (end - x)`` in place as PyTorch's ``lerp_`` computes it on the CPU: the
    weight in the tensor's precision and a fused multiply-add (one rounding), which float64
    arithmetic reproduces exactly for float32 tensors."""
    narrow = x.dtype == dtypes.float32
    wide = dtypes.float64 if narrow else x.dtype
    w = float(np.float32(weight)) if narrow else weight
    diff = (end - x).to(wide)
    if w < 0.5:
        out = x.to(wide) + w * diff
    else:
        rest = float(np.float32(1) - np.float32(w)) if narrow else 1 - w
        out = end.to(wide) - diff * rest
    return x.copy_(out)


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """An exponential moving average over lists of tensors, for ``AveragedModel``'s
    ``multi_avg_fn``: each average moves ``1 - decay`` of the way to the current value.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim.swa_utils import get_ema_multi_avg_fn
    >>> ema, now = [symgrad.tensor([0.0])], [symgrad.tensor([1.0])]
    >>> get_ema_multi_avg_fn(0.75)(ema, now, 1)
    >>> ema
    [tensor([0.2500])]
    """
    _check_decay(decay)

    def ema_update(averaged: list, current: list, num_averaged: Any) -> None:
        with no_grad():
            for avg, now in zip(averaged, current):
                if avg.is_floating_point() or avg.is_complex():
                    _lerp_(avg, now, 1 - decay)
                else:  # an integer buffer takes the float average, truncated, as PyTorch
                    avg.copy_(avg * decay + now * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """The running mean over lists of tensors, for ``AveragedModel``'s ``multi_avg_fn``:
    after ``num_averaged`` values, a new one has weight ``1 / (num_averaged + 1)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim.swa_utils import get_swa_multi_avg_fn
    >>> mean, now = [symgrad.tensor([1.0])], [symgrad.tensor([4.0])]
    >>> get_swa_multi_avg_fn()(mean, now, 2)  # the mean of 1, 1 and 4
    >>> mean
    [tensor([2.])]
    """

    def swa_update(averaged: list, current: list, num_averaged: Any) -> None:
        weight = 1 / (num_averaged + 1)
        weight = weight.item() if isinstance(weight, Tensor) else weight
        with no_grad():
            for avg, now in zip(averaged, current):
                if avg.is_floating_point() or avg.is_complex():
                    _lerp_(avg, now, weight)
                else:
                    avg.add_(now - avg, alpha=weight)

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """An exponential moving average for ``AveragedModel``'s ``avg_fn``:
    ``decay * averaged + (1 - decay) * current``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim.swa_utils import get_ema_avg_fn
    >>> get_ema_avg_fn(0.75)(symgrad.tensor([0.0]), symgrad.tensor([1.0]), 1)
    tensor([0.2500])
    """
    _check_decay(decay)

    def ema_update(averaged: Tensor, current: Tensor, num_averaged: Any) -> Tensor:
        return decay * averaged + (1 - decay) * current

    return ema_update


def get_swa_avg_fn() -> Callable:
    """The running mean for ``AveragedModel``'s ``avg_fn``:
    ``averaged + (current - averaged) / (num_averaged + 1)``.

    Examples
    --------
    >>> import symgrad
    >>> from symgrad.optim.swa_utils import get_swa_avg_fn
    >>> get_swa_avg_fn()(symgrad.tensor([1.0]), symgrad.tensor([4.0]), 2)
    tensor([2.])
    """

    def swa_update(averaged: Tensor, current: Tensor, num_averaged: Any) -> Tensor:
        return averaged + (current - averaged) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` (as ``self.module``) whose parameters :meth:`update_parameters`
    keeps as an average of ``model``'s: the running mean by default (SWA), or ``avg_fn``
    (one tensor at a time) or ``multi_avg_fn`` (lists of tensors of one device and dtype),
    e.g. :func:`get_ema_multi_avg_fn`. The buffer ``n_averaged`` counts the updates (the
    first copies the weights). With ``use_buffers`` the buffers are averaged too; otherwise
    they are copied from ``model``. Calling the averaged model calls ``self.module``.

    Examples
    --------
    >>> import symgrad
    >>> model = symgrad.nn.Linear(1, 1, bias=False)
    >>> swa = symgrad.optim.swa_utils.AveragedModel(model)
    >>> for value in (1.0, 2.0, 6.0):
    ...     with symgrad.no_grad():
    ...         _ = model.weight.fill_(value)
    ...     swa.update_parameters(model)
    >>> swa.module.weight, swa.n_averaged
    (Parameter containing:
    tensor([[3.]], requires_grad=True), tensor(3))
    """

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable | None = None,
        multi_avg_fn: Callable | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        # the counter before the copy: its key comes first in the state dict, as in PyTorch
        self.register_buffer("n_averaged", creation.tensor(0, dtype=dtypes.int64, device=device))
        self.module = copy.deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module) -> list:
        if self.use_buffers:
            return list(chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current weights into the average (the first call copies them).

        Examples
        --------
        >>> import symgrad
        >>> model = symgrad.nn.Linear(2, 1)
        >>> ema = symgrad.optim.swa_utils.AveragedModel(
        ...     model, multi_avg_fn=symgrad.optim.swa_utils.get_ema_multi_avg_fn(0.9)
        ... )
        >>> ema.update_parameters(model)
        >>> symgrad.equal(ema.module.weight, model.weight)
        True
        """
        averaged = [p.detach() for p in self._tensors(self.module)]
        current = [p.detach().to(a.device) for p, a in zip(self._tensors(model), averaged)]
        first = self.n_averaged.item() == 0
        with no_grad():
            if first:
                for avg, now in zip(averaged, current):
                    avg.copy_(now)
            elif self.avg_fn is not None:
                for avg, now in zip(averaged, current):
                    avg.copy_(self.avg_fn(avg, now, self.n_averaged))
            elif self.multi_avg_fn is not None:
                for avgs, nows in _by_device_and_dtype(averaged, current):
                    self.multi_avg_fn(avgs, nows, self.n_averaged.to(avgs[0].device))
            else:  # on the CPU PyTorch takes the one-tensor-at-a-time running mean
                swa = get_swa_avg_fn()
                for avg, now in zip(averaged, current):
                    avg.copy_(swa(avg, now, self.n_averaged))
            if not self.use_buffers:
                for mine, theirs in zip(self.module.buffers(), model.buffers()):
                    mine.detach().copy_(theirs.detach().to(mine.device))
            self.n_averaged += 1


def _by_device_and_dtype(averaged: list, current: list) -> list:
    """Pairs of lists of the tensors of each (device, dtype), in order of first appearance."""
    groups: dict = {}
    for avg, now in zip(averaged, current):
        avgs, nows = groups.setdefault((str(avg.device), avg.dtype), ([], []))
        avgs.append(avg)
        nows.append(now)
    return list(groups.values())


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of ``model``'s batch-norm layers over one pass of
    ``loader`` (their cumulative average, as with ``momentum=None``), e.g. for an averaged
    model at the end of training. A batch that is a list or tuple contributes its first
    element; ``device``: where to move each batch. The model's training mode and the
    layers' momenta are restored afterwards.

    Examples
    --------
    >>> import symgrad
    >>> bn = symgrad.nn.BatchNorm1d(1)
    >>> loader = [symgrad.tensor([[1.0], [3.0]]), symgrad.tensor([[5.0], [7.0]])]
    >>> symgrad.optim.swa_utils.update_bn(loader, bn)
    >>> bn.running_mean
    tensor([4.])
    """
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


def _cosine_anneal(t: float) -> float:
    return (1 - math.cos(math.pi * t)) / 2


def _linear_anneal(t: float) -> float:
    return t


class SWALR(LRScheduler):
    """The learning rate of the averaging phase: each group's rate moves from its current
    value to its ``swa_lr`` (one number, or one per group) over ``anneal_epochs`` epochs,
    along a half cosine (``"cos"``) or a line (``"linear"``), then stays there. Each
    group keeps its target as ``group["swa_lr"]``.

    Examples
    --------
    >>> import symgrad
    >>> opt = symgrad.optim.SGD([symgrad.zeros(1, requires_grad=True)], lr=0.5)
    >>> schedule = symgrad.optim.swa_utils.SWALR(
    ...     opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="linear"
    ... )
    >>> rates = []
    >>> for epoch in range(3):
    ...     opt.step()
    ...     schedule.step()
    ...     rates.append(round(schedule.get_last_lr()[0], 6))
    >>> rates
    [0.275, 0.05, 0.05]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        groups = optimizer.param_groups
        if isinstance(swa_lr, (list, tuple)):
            if len(swa_lr) != len(groups):
                raise ValueError(
                    "swa_lr must have the same length as optimizer.param_groups. swa_lr has "
                    f"{len(swa_lr)} values, param_groups has {len(groups)}."
                )
            swa_lrs = list(swa_lr)
        else:
            swa_lrs = [swa_lr] * len(groups)
        for lr, group in zip(swa_lrs, groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t: float) -> float:
        return _cosine_anneal(t) if self._anneal_strategy == "cos" else _linear_anneal(t)

    def get_lr(self) -> list[float]:
        """The rates for the next epoch: the previous anneal's start recovered from each
        group's current rate, then annealed one epoch further toward ``swa_lr``."""
        current = self._values()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        span = max(1, self.anneal_epochs)
        prev_alpha = self._anneal(max(0, min(1, (step - 1) / span)))
        alpha = self._anneal(max(0, min(1, step / span)))
        rates = []
        for lr, group in zip(current, self.optimizer.param_groups):
            swa_lr = group["swa_lr"]
            start = swa_lr if prev_alpha == 1 else (lr - prev_alpha * swa_lr) / (1 - prev_alpha)
            rates.append(swa_lr * alpha + start * (1 - alpha))
        return rates
