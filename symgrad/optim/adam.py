"""Adam and AdamW (Adam with decoupled weight decay), as PyTorch computes them."""

from __future__ import annotations

from typing import Any

import numpy as np

from symgrad import _like
from symgrad.autograd import dual
from symgrad.ops.inplace import _write as write
from symgrad.ops.scaled import scaled_sum
from symgrad.optim.optimizer import (
    Optimizer,
    addcdiv_,
    check_nonnegative,
    scalar_state,
    state_fits,
)
from symgrad.tensor import Tensor

__all__ = ["Adam", "AdamW"]


def check_adam_like(lr: float, betas: tuple[float, float], eps: float, decay: float) -> None:
    """PyTorch's checks of an Adam-like optimizer's settings (ValueError naming the bad one)."""
    check_nonnegative(("learning rate", lr), ("epsilon value", eps))
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    check_nonnegative(("weight_decay value", decay))


def _same_kind_betas(betas: Any, foreach_only: bool) -> tuple:
    """Adam's ``betas`` as a tuple; PyTorch's Adam and AdamW take two floats or two 1-element
    tensors (a 1-d one read as 0-d), nothing else (not an int), and no tensors for a
    ``foreach_only`` step (foreach=True without capturable)."""
    floats = all(isinstance(b, float) for b in betas)
    if not (floats or all(isinstance(b, Tensor) for b in betas)):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, b in enumerate(betas):
        if isinstance(b, Tensor) and foreach_only:
            raise ValueError(
                f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True"
            )
        if isinstance(b, Tensor) and b.numel() != 1:
            raise ValueError(f"Tensor betas[{i}] must be 1-element")
    return tuple(b if floats or b.dim() == 0 else b.squeeze() for b in betas)


_TENSOR_LR_FOREACH = "lr as a Tensor is not supported for capturable=False and foreach=True"


class Adam(Optimizer):
    """Adam, step for step as ``torch.optim.Adam`` (single-tensor form):

    ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``, and
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``, with
    ``amsgrad`` using the running maximum of ``v``; ``weight_decay`` adds
    ``weight_decay * p`` to ``g`` (or, ``decoupled_weight_decay``, scales ``p`` by
    ``1 - lr * weight_decay`` first, as AdamW).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = symgrad.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()  # the first step moves each weight by about lr against its gradient
    >>> w
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    _tensor_steps = True

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        foreach_only = bool(foreach) and not capturable
        if isinstance(lr, Tensor) and foreach_only:
            raise ValueError(_TENSOR_LR_FOREACH)
        check_adam_like(lr, betas, eps, weight_decay)
        betas = _same_kind_betas(betas, foreach_only)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _state(self, p: Tensor, group: dict) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = scalar_state(fused=group["fused"])
            state["exp_avg"] = _like.zeros_like(p)
            state["exp_avg_sq"] = _like.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _like.zeros_like(p)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        if group["foreach"] and isinstance(group["lr"], Tensor) and not group["capturable"]:
            raise RuntimeError(_TENSOR_LR_FOREACH)  # a tensor lr given to the group later
        if (
            not group["differentiable"]
            and not dual.active()
            and state_fits(p, self.state.get(p, {}))
        ):
            self._update_arrays(p, group)
            return
        lr, (beta1, beta2), eps, decay = (group[k] for k in ("lr", "betas", "eps", "weight_decay"))
        state = self._state(p, group)
        grad = -p.grad if group["maximize"] else p.grad
        state["step"].add_(1)
        if decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * decay)
            else:
                grad = grad.add(p, alpha=decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        # the moments' products rounded on their own (PyTorch's lerp_ and addcmul_ round them
        # with the sums): in float32 the fused forms cost twice the step, and PyTorch's Adam
        # differs in its last bit anyway, where its float32 sqrt is not correctly rounded
        _lerp_(exp_avg, grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).add_(grad * (1 - beta2) * grad)
        step = state["step"].item()
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        if group["amsgrad"]:
            biggest = state["max_exp_avg_sq"]
            biggest.copy_(biggest.maximum(exp_avg_sq))
            denom = (biggest.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        addcdiv_(p, exp_avg, denom, -step_size)

    def _update_arrays(self, p: Tensor, group: dict) -> None:
        """The same update on the NumPy arrays, in the same order of operations (so the same
        numbers), each tensor written once through ``write`` (its version counter moves, as
        an in-place op's does)."""
        lr, (beta1, beta2), eps, decay = (group[k] for k in ("lr", "betas", "eps", "weight_decay"))
        state = self._state(p, group)
        grad = -p.grad._data if group["maximize"] else p.grad._data
        write(state["step"], state["step"]._data + 1, "add_")
        if decay != 0:
            if group["decoupled_weight_decay"]:
                write(p, p._data * (1 - lr * decay), "mul_")
            else:
                grad = scaled_sum(grad, p._data, decay)
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        weight = 1 - beta1
        m = m + (grad - m) * weight if weight < 0.5 else grad - (grad - m) * (1 - weight)
        v = v * beta2 + grad * (1 - beta2) * grad
        write(state["exp_avg"], m, "lerp_")
        write(state["exp_avg_sq"], v, "addcmul_")
        step = state["step"].item()
        step_size = lr / (1 - beta1**step)
        bias_correction2_sqrt = (1 - beta2**step) ** 0.5
        if group["amsgrad"]:
            biggest = np.maximum(state["max_exp_avg_sq"]._data, v)
            write(state["max_exp_avg_sq"], biggest, "copy_")
            v = biggest
        denom = np.sqrt(v) / bias_correction2_sqrt + eps
        write(p, p._data + m * -step_size / denom, "addcdiv_")


def _lerp_(x: Tensor, end: Tensor, weight: float) -> Tensor:
    """``lerp_``'s two forms, each product rounded on its own (see ``Adam._update``)."""
    if weight < 0.5:
        return x.add_((end - x) * weight)
    return x.copy_(end - (end - x) * (1 - weight))


class AdamW(Adam):
    """Adam with decoupled weight decay (``torch.optim.AdamW``): each step first scales the
    parameters by ``1 - lr * weight_decay`` (default ``weight_decay=1e-2``).

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([1.0], requires_grad=True)
    >>> opt = symgrad.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> (w * w).sum().backward()
    >>> opt.step()  # 1 * (1 - 0.05), then about 0.1 against the gradient
    >>> w
    tensor([0.8500], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def load_state_dict(self, state_dict: dict) -> None:
        super().load_state_dict(state_dict)
        for group in self.param_groups:  # PyTorch's AdamW always decouples
            group["decoupled_weight_decay"] = True
