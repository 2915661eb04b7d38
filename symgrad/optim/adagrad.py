"""Adagrad, as PyTorch computes it."""

from __future__ import annotations

from typing import Any

from symgrad import _like
from symgrad.optim.optimizer import (
    Optimizer,
    addcdiv_,
    addcmul_,
    check_nonnegative,
    scalar_state,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad, step for step as ``torch.optim.Adagrad``:

    ``s += g * g`` (``s`` starts at ``initial_accumulator_value``), then
    ``p -= clr * g / (sqrt(s) + eps)`` with ``clr = lr / (1 + (t - 1) * lr_decay)`` at step
    ``t``. ``weight_decay`` adds ``weight_decay * p`` to ``g``; ``maximize`` negates ``g``
    first. The state exists from construction, as in PyTorch; a parameter of a group added
    later gets it at its first step, its ``sum`` starting at the optimizer's (not the
    group's) ``initial_accumulator_value``, as PyTorch's does.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = symgrad.optim.Adagrad([w], lr=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()  # g / sqrt(g * g) = sign(g): each weight moves by lr
    >>> w
    tensor([ 0.5000, -1.5000], requires_grad=True)
    """

    _tensor_steps = True

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_nonnegative(
            ("learning rate", lr),
            ("lr_decay value", lr_decay),
            ("weight_decay value", weight_decay),
            ("initial_accumulator_value value", initial_accumulator_value),
            ("epsilon value", eps),
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p: Any) -> None:
        self.state[p]["step"] = scalar_state(fused=self.defaults["fused"])
        self.state[p]["sum"] = _like.full_like(p, self.defaults["initial_accumulator_value"])

    def _update(self, p: Any, group: dict) -> None:
        if not self.state[p]:
            self._init_state(p)
        state = self.state[p]
        state["step"].add_(1)
        step = state["step"].item()
        grad = -p.grad if group["maximize"] else p.grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        addcmul_(state["sum"], grad, grad)
        std = state["sum"].sqrt().add(group["eps"])
        addcdiv_(p, grad, std, -clr)
