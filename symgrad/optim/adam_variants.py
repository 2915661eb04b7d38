"""Adamax, NAdam and RAdam: Adam's moving averages with another step, as PyTorch computes
them (single-tensor form)."""

from __future__ import annotations

from typing import Any

from symgrad import _like
from symgrad.optim.adam import check_adam_like
from symgrad.optim.optimizer import (
    Optimizer,
    addcdiv_,
    addcmul_,
    check_nonnegative,
    lerp_,
    scalar_state,
)
from symgrad.tensor import Tensor

__all__ = ["Adamax", "NAdam", "RAdam"]


def _decayed_grad(p: Tensor, group: dict, decoupled: bool = False) -> Tensor:
    """The gradient, negated under ``maximize``, with L2 weight decay added (or, decoupled,
    the parameter shrunk by ``1 - lr * weight_decay`` instead)."""
    grad = -p.grad if group["maximize"] else p.grad
    decay = group["weight_decay"]
    if decay != 0:
        if decoupled:
            p.mul_(1 - group["lr"] * decay)
        else:
            grad = grad.add(p, alpha=decay)
    return grad


class Adamax(Optimizer):
    """Adamax (Adam under the infinity norm), step for step as ``torch.optim.Adamax``:

    ``m = lerp(m, g, 1 - beta1)``, ``u = max(beta2 * u, |g| + eps)``, then
    ``p -= lr / (1 - beta1**t) * m / u``. ``weight_decay`` adds ``weight_decay * p`` to
    ``g``; ``maximize`` negates ``g`` first.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = symgrad.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()  # the first step moves each weight by lr against its gradient
    >>> w
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    _tensor_steps = True

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_adam_like(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        beta1, beta2 = group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["exp_avg"] = _like.zeros_like(p)
            state["exp_inf"] = _like.zeros_like(p)
        grad = -p.grad if group["maximize"] else p.grad
        state["step"].add_(1)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        lerp_(state["exp_avg"], grad, 1 - beta1)
        exp_inf = state["exp_inf"]
        exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(group["eps"])))
        clr = group["lr"] / (1 - beta1 ** state["step"].item())
        addcdiv_(p, state["exp_avg"], exp_inf, -clr)


class NAdam(Optimizer):
    """NAdam (Adam with Nesterov momentum), step for step as ``torch.optim.NAdam``:

    the momentum ``mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay))`` and its running
    product ``P_t`` weight the gradient and the first moment:
    ``p -= lr * (1 - mu_t) / (1 - P_t) * g / d + lr * mu_{t+1} / (1 - P_t mu_{t+1}) * m / d``
    with ``d = sqrt(v / (1 - beta2**t)) + eps``. ``weight_decay`` adds ``weight_decay * p``
    to ``g`` (or, ``decoupled_weight_decay``, shrinks ``p`` first).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([0.8944], requires_grad=True)
    """

    _tensor_steps = True

    _capturable_tensors = "params, mu_products and state_steps"

    def __init__(
        self,
        params: Any,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_like(lr, betas, eps, weight_decay)
        check_nonnegative(("momentum_decay value", momentum_decay))
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        lr, (beta1, beta2), decay_rate = group["lr"], group["betas"], group["momentum_decay"]
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["mu_product"] = scalar_state(1.0)
            state["exp_avg"] = _like.zeros_like(p)
            state["exp_avg_sq"] = _like.zeros_like(p)
        state["step"].add_(1)
        step = state["step"].item()
        bias_correction2 = 1 - beta2**step
        grad = _decayed_grad(p, group, group["decoupled_weight_decay"])
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * decay_rate)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * decay_rate)))
        state["mu_product"].mul_(mu)
        mu_product = state["mu_product"].item()
        lerp_(state["exp_avg"], grad, 1 - beta1)
        addcmul_(state["exp_avg_sq"].mul_(beta2), grad, grad, 1 - beta2)
        denom = state["exp_avg_sq"].div(bias_correction2).sqrt().add(group["eps"])
        addcdiv_(p, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
        addcdiv_(p, state["exp_avg"], denom, (-lr * mu_next) / (1.0 - mu_product * mu_next))


class RAdam(Optimizer):
    """RAdam (rectified Adam), step for step as ``torch.optim.RAdam``:

    while the variance estimate is too young (``rho_t <= 5``) the step is plain momentum,
    ``p -= lr * m / (1 - beta1**t)``; after, Adam's step times the rectification
    ``sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``.
    ``weight_decay`` adds ``weight_decay * p`` to ``g`` (or, ``decoupled_weight_decay``,
    shrinks ``p`` first).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = symgrad.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()  # first steps are momentum SGD: lr * g
    >>> w
    tensor([ 0.8000, -0.8000], requires_grad=True)
    """

    _tensor_steps = True

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_adam_like(lr, betas, eps, weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        lr, (beta1, beta2) = group["lr"], group["betas"]
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["exp_avg"] = _like.zeros_like(p)
            state["exp_avg_sq"] = _like.zeros_like(p)
        state["step"].add_(1)
        step = state["step"].item()
        grad = _decayed_grad(p, group, group["decoupled_weight_decay"])
        lerp_(state["exp_avg"], grad, 1 - beta1)
        addcmul_(state["exp_avg_sq"].mul_(beta2), grad, grad, 1 - beta2)
        bias_correction2 = 1 - beta2**step
        corrected = state["exp_avg"] / (1 - beta1**step)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = (
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            adaptive = (bias_correction2**0.5) / state["exp_avg_sq"].sqrt().add(group["eps"])
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)
