"""Averaged stochastic gradient descent, as PyTorch computes it (single-tensor form)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _like, creation, dtypes
from symgrad.optim.optimizer import Optimizer, check_nonnegative, scalar_state
from symgrad.tensor import Tensor

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD, step for step as ``torch.optim.ASGD``: at step ``t``

    ``p *= 1 - lambd * eta``, ``p -= eta * g``, then the average ``ax += mu * (p - ax)``
    (``ax = p`` while ``mu`` is 1), and the next ``eta = lr / (1 + lambd * lr * t) ** alpha``
    and ``mu = 1 / max(1, t - t0)``: averaging starts after ``t0`` steps. ``eta`` and ``mu``
    are scalar tensors of the default float dtype's precision (float32 unless it is float64),
    as in PyTorch. ``weight_decay`` adds ``weight_decay * p`` to ``g``; ``maximize`` negates
    ``g`` first. ``capturable=True`` is accepted, but stepping then raises PyTorch's
    AssertionError (the CPU is not a capturable device).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.ASGD([w], lr=0.1, lambd=0.0, t0=0)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     (w * w).sum().backward()
    ...     opt.step()
    >>> w  # 1 - 0.1 * 2 = 0.8, then 0.8 - 0.1 * 1.6
    tensor([0.6400], requires_grad=True)
    >>> opt.state[w]["ax"]  # the average of the iterates since step t0
    tensor([0.6400])
    """

    _tensor_steps = True

    _capturable_tensors = "params, mus, etas, and state_steps"

    def __init__(
        self,
        params: Any,
        lr: float | Tensor = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        check_nonnegative(("learning rate", lr), ("weight_decay value", weight_decay))
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _state(self, p: Tensor, lr: Any) -> dict:
        state = self.state[p]
        if not state:
            scalar = scalar_state().dtype
            state["step"] = creation.zeros((), dtype=scalar)
            state["eta"] = _scalar(lr, scalar)
            state["mu"] = creation.ones((), dtype=scalar)
            state["ax"] = _like.zeros_like(p)
        return state

    def _begin(self, p: Tensor, group: dict) -> tuple:
        """A step's start, in either form: the group's ``lr, lambd, alpha, t0``, the
        parameter's state (its step counted) and its gradient (negated to maximize, with
        weight decay)."""
        lr, lambd, alpha, t0 = (group[k] for k in ("lr", "lambd", "alpha", "t0"))
        state = self._state(p, lr)
        grad = -p.grad if group["maximize"] else p.grad
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        return lr, lambd, alpha, t0, state, grad

    def _update(self, p: Tensor, group: dict) -> None:
        if group["foreach"]:
            self._update_foreach(p, group)
            return
        lr, lambd, alpha, t0, state, grad = self._begin(p, group)
        eta = state["eta"].item()
        p.mul_(1 - lambd * eta)
        p.add_(grad, alpha=-eta)
        ax, mu = state["ax"], state["mu"]
        if mu.item() != 1:
            ax.add_(p.sub(ax).mul_(mu))
        else:
            ax.copy_(p)
        step = state["step"].item()
        state["eta"].copy_(_scalar(lr / ((1 + lambd * lr * step) ** alpha), mu.dtype))
        mu.copy_(_scalar(1 / max(1, step - t0), mu.dtype))

    def _update_foreach(self, p: Tensor, group: dict) -> None:
        """PyTorch's ``foreach=True`` arithmetic, which rounds apart from the single-tensor
        form: ``p -= eta * (g + (weight_decay + lambd) * p)`` (two scaled sums), the average
        always ``ax += mu * (p - ax)``, and the next ``eta`` in the step's float32 tensor
        arithmetic (``(1 + lambd * lr * step) ** alpha``, then its reciprocal times ``lr``)."""
        lr, lambd, alpha, t0, state, grad = self._begin(p, group)
        grad = grad.add(p, alpha=lambd)
        p.addcmul_(grad, state["eta"], value=-1)
        ax = state["ax"]
        ax.addcmul_(p.sub(ax), state["mu"])
        lr = lr.item() if isinstance(lr, Tensor) else lr
        state["eta"].copy_(_foreach_eta(state["step"], lr, lambd, alpha))
        state["mu"].copy_(_scalar(1 / max(1, state["step"].item() - t0), state["mu"].dtype))


def _foreach_eta(step: Tensor, lr: float, lambd: float, alpha: float) -> Tensor:
    """``lr / (1 + lambd * lr * step) ** alpha`` as PyTorch's foreach form computes it on the
    step's tensor (float32 unless the default dtype is float64): each operation rounded to
    its dtype (a float32 power as the C library's ``powf``, correctly rounded where NumPy's
    float32 power is not), the division a reciprocal times ``lr``."""
    kind = np.float64 if step.dtype == dtypes.float64 else np.float32
    base = kind(kind(step.item()) * kind(lambd * lr)) + kind(1)
    power = kind(np.float64(base) ** alpha)
    return creation.tensor(float(kind(kind(1) / power) * kind(lr)), dtype=step.dtype)


def _scalar(value: Any, dtype: Any) -> Tensor:
    """``value`` (a number or a one-element tensor) as a 0-dim tensor of ``dtype``."""
    if isinstance(value, Tensor):
        return value.detach().reshape(()).to(dtype).clone()
    return creation.tensor(value, dtype=dtype)
