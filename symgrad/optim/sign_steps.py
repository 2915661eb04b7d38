"""Adadelta and Rprop: steps whose size the optimizer sets itself, as PyTorch computes them
(single-tensor form)."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _like
from symgrad.ops.addc import addcmul_values
from symgrad.ops.inplace import _write as write
from symgrad.ops.scaled import scaled_sum
from symgrad.optim.optimizer import (
    Optimizer,
    addcmul_,
    check_nonnegative,
    decayed_gradient,
    on_arrays,
    scalar_state,
)
from symgrad.tensor import Tensor

__all__ = ["Adadelta", "Rprop"]


class Adadelta(Optimizer):
    """Adadelta, step for step as ``torch.optim.Adadelta``:

    ``s = rho * s + (1 - rho) * g * g``, ``delta = sqrt(a + eps) / sqrt(s + eps) * g``,
    ``a = rho * a + (1 - rho) * delta * delta`` and ``p -= lr * delta``.
    ``weight_decay`` adds ``weight_decay * p`` to ``g``; ``maximize`` negates ``g`` first.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.Adadelta([w])
    >>> (w * w).sum().backward()
    >>> opt.step()  # the first steps are about sqrt(eps / (1 - rho)): tiny
    >>> w
    tensor([0.9968], requires_grad=True)
    """

    _tensor_steps = True

    _capturable_devices = ["cuda", "xpu", "hpu", "privateuseone"]

    def __init__(
        self,
        params: Any,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(("learning rate", lr))
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(("epsilon value", eps), ("weight_decay value", weight_decay))
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _state(self, p: Tensor) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["square_avg"] = _like.zeros_like(p)
            state["acc_delta"] = _like.zeros_like(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        if on_arrays(p, group, ("lr", "rho", "eps", "weight_decay"), self.state.get(p, {})):
            self._update_arrays(p, group)
            return
        rho, eps = group["rho"], group["eps"]
        state = self._state(p)
        state["step"].add_(1)
        grad = -p.grad if group["maximize"] else p.grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        square_avg = addcmul_(state["square_avg"].mul_(rho), grad, grad, 1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = state["acc_delta"].add(eps).sqrt_().div(std).mul(grad)
        addcmul_(state["acc_delta"].mul_(rho), delta, delta, 1 - rho)
        p.add_(delta, alpha=-group["lr"])

    def _update_arrays(self, p: Tensor, group: dict) -> None:
        """The same step on the NumPy arrays, in the same order of operations (so the same
        numbers), each tensor written once through ``write``."""
        rho, eps = group["rho"], group["eps"]
        state = self._state(p)
        write(state["step"], state["step"]._data + 1, "add_")
        grad = decayed_gradient(p, group)
        square_avg = addcmul_values(state["square_avg"]._data * rho, grad, grad, 1 - rho)
        write(state["square_avg"], square_avg, "addcmul_")
        delta = np.sqrt(state["acc_delta"]._data + eps) / np.sqrt(square_avg + eps) * grad
        acc_delta = addcmul_values(state["acc_delta"]._data * rho, delta, delta, 1 - rho)
        write(state["acc_delta"], acc_delta, "addcmul_")
        write(p, scaled_sum(p._data, delta, -group["lr"]), "add_")


class Rprop(Optimizer):
    """Resilient backpropagation, step for step as ``torch.optim.Rprop``:

    each weight has its own step size, multiplied by ``etas[1]`` while its gradient keeps
    its sign and by ``etas[0]`` when the sign flips (then that gradient counts as zero),
    clamped to ``step_sizes``; the weight moves by its step size against the gradient's
    sign. The step sizes start at ``lr``.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([3.0, -2.0], requires_grad=True)
    >>> opt = symgrad.optim.Rprop([w], lr=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()  # each weight moves by lr, whatever the gradient's size
    >>> w
    tensor([ 2.5000, -1.5000], requires_grad=True)
    """

    _tensor_steps = True

    def __init__(
        self,
        params: Any,
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_nonnegative(("learning rate", lr))
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update(self, p: Tensor, group: dict) -> None:
        (etaminus, etaplus), (size_min, size_max) = group["etas"], group["step_sizes"]
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            state["prev"] = _like.zeros_like(p)
            state["step_size"] = _like.full_like(p.grad, group["lr"])
        state["step"].add_(1)
        grad = -p.grad if group["maximize"] else p.grad
        sign = grad.mul(state["prev"]).sign()
        factor = sign.clone()
        factor[sign.gt(0)] = etaplus
        factor[sign.lt(0)] = etaminus
        factor[sign.eq(0)] = 1
        state["step_size"].mul_(factor).clamp_(size_min, size_max)
        grad = grad.clone()
        grad[factor.eq(etaminus)] = 0
        addcmul_(p, grad.sign(), state["step_size"], -1)
        state["prev"].copy_(grad)
