"""Stochastic gradient descent, with PyTorch's momentum, dampening, Nesterov and decay."""

from __future__ import annotations

from typing import Any

from symgrad.ops.inplace import _write as write
from symgrad.ops.scaled import scaled_sum
from symgrad.optim.optimizer import Optimizer, check_nonnegative, decayed_gradient, on_arrays
from symgrad.tensor import Tensor

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent, step for step as ``torch.optim.SGD``:

    ``g = grad (+ weight_decay * p)``; with momentum ``b = momentum * b + (1 - dampening) * g``
    (``b = g`` at the first step) and ``g = b`` (or ``g + momentum * b`` with ``nesterov``);
    then ``p -= lr * g`` (``+=`` with ``maximize``, which negates the gradient first).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     (w * w).sum().backward()
    ...     opt.step()
    >>> w  # 1 - 0.2 = 0.8, then 0.8 - 0.1 * (0.9 * 2 + 1.6)
    tensor([0.4600], requires_grad=True)
    """

    _foreach_refuses_autograd = False  # PyTorch's foreach SGD records its step

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_nonnegative(
            ("learning rate", lr),
            ("momentum value", momentum),
            ("weight_decay value", weight_decay),
            floor=0.0,
        )
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)

    def _update(self, p: Any, group: dict) -> None:
        numbers = ("lr", "momentum", "dampening", "weight_decay")
        if on_arrays(p, group, numbers, self.state.get(p, {})):
            self._update_arrays(p, group)
            return
        grad = -p.grad if group["maximize"] else p.grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = grad.clone().detach()
                state["momentum_buffer"] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
            grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
        p.add_(grad, alpha=-group["lr"])

    def _update_arrays(self, p: Tensor, group: dict) -> None:
        """The same step on the NumPy arrays, in the same order of operations (so the same
        numbers), each tensor written once through ``write`` (its version counter moves, as
        an in-place op's does): no tensor op's bookkeeping for each of a step's ops."""
        grad = decayed_gradient(p, group)
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = Tensor._make(grad.copy(order="K"))
            else:
                kept = scaled_sum(buf._data * momentum, grad, 1 - group["dampening"])
                write(buf, kept, "add_")
            grad = scaled_sum(grad, buf._data, momentum) if group["nesterov"] else buf._data
        write(p, scaled_sum(p._data, grad, -group["lr"]), "add_")
