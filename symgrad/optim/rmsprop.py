"""RMSprop, as PyTorch computes it (plain, centred, with momentum)."""

from __future__ import annotations

from typing import Any

from symgrad import _like
from symgrad.optim.optimizer import (
    Optimizer,
    addcdiv_,
    addcmul_,
    check_nonnegative,
    lerp_,
    scalar_state,
)
from symgrad.tensor import Tensor

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop, step for step as ``torch.optim.RMSprop``:

    ``s = alpha * s + (1 - alpha) * g * g``; with ``centered`` also
    ``m = lerp(m, g, 1 - alpha)`` and ``s - m * m`` under the root; then
    ``p -= lr * g / (sqrt(s) + eps)``, or with ``momentum``
    ``b = momentum * b + g / (sqrt(s) + eps)`` and ``p -= lr * b``. ``weight_decay`` adds
    ``weight_decay * p`` to ``g``; ``maximize`` negates ``g`` first.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = symgrad.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward()
    >>> opt.step()  # the first step divides by sqrt(0.01 g^2) = 0.1 |g|: lr / 0.1 = 0.1
    >>> w
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    _tensor_steps = True

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(
            ("learning rate", lr),
            ("epsilon value", eps),
            ("momentum value", momentum),
            ("weight_decay value", weight_decay),
            ("alpha value", alpha),
        )
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _state(self, p: Tensor, group: dict) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["square_avg"] = _like.zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = _like.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = _like.zeros_like(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        alpha, momentum = group["alpha"], group["momentum"]
        state = self._state(p, group)
        grad = -p.grad if group["maximize"] else p.grad
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        square_avg = addcmul_(state["square_avg"].mul_(alpha), grad, grad, 1 - alpha)
        if group["centered"]:
            grad_avg = lerp_(state["grad_avg"], grad, 1 - alpha)
            avg = (square_avg - grad_avg * grad_avg).sqrt()  # addcmul(value=-1)'s order
        else:
            avg = square_avg.sqrt()
        avg = avg.add(group["eps"])
        if momentum > 0:
            buf = addcdiv_(state["momentum_buffer"].mul_(momentum), grad, avg)
            p.add_(buf, alpha=-group["lr"])
        else:
            addcdiv_(p, grad, avg, -group["lr"])
