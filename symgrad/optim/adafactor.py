"""Adafactor, as PyTorch computes it (single-tensor form): Adam-like steps whose second
moment of a matrix is kept as a row factor and a column factor."""

from __future__ import annotations

from typing import Any

from symgrad import _like
from symgrad.optim.optimizer import Optimizer, scalar_state
from symgrad.tensor import Tensor
from symgrad.type_info import finfo

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor, step for step as ``torch.optim.Adafactor``: at step ``t``, with
    ``beta = t ** beta2_decay``, ``rho = min(lr, 1 / sqrt(t))`` and
    ``alpha = max(eps2, rms(p)) * rho``:

    ``p *= 1 - lr * weight_decay``; for a matrix (and over the last two dimensions of a
    batch of them) the row and column means of ``g**2`` are averaged into ``row_var`` and
    ``col_var`` (weight ``beta``) and ``v = row_var @ col_var / mean(row_var)``; a vector
    keeps ``variance``, the average of ``g**2``, as ``v``. Then ``u = g / sqrt(max(v,
    eps1**2))`` and ``p -= alpha / max(1, rms(u) / d) * u``. ``eps1`` defaults to the
    parameter dtype's machine epsilon; ``maximize`` negates ``g`` first.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.tensor([3.0, 4.0], requires_grad=True)
    >>> opt = symgrad.optim.Adafactor([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w  # each entry moves by alpha = rms(w) * 0.1 = 0.3536 times sign(g)
    tensor([2.6464, 3.6464], requires_grad=True)
    """

    _tensor_steps = True

    def __init__(
        self,
        params: Any,
        lr: float | Tensor = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for ok, message in (
            (0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
            (0.0 >= beta2_decay, f"beta2_decay should be <= 0 but is: {beta2_decay}"),
            (eps[0] is None or 0.0 <= eps[0], f"epsilon1 should be >= 0 but is: {eps[0]}"),
            (0.0 <= eps[1], f"epsilon2 should be >= 0 but is: {eps[1]}"),
            (1.0 <= d, f"Clipping threshold d should be >= 1 but is: {d}"),
            (0.0 <= weight_decay, f"weight_decay should be >= 0 but is: {weight_decay}"),
        ):
            if not ok:
                raise ValueError(message)
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)

    def _state(self, p: Tensor) -> dict:
        state = self.state[p]
        if not state:
            state["step"] = scalar_state()
            if p.grad.dim() > 1:
                state["row_var"] = p.grad.new_zeros((*p.grad.shape[:-1], 1))
                state["col_var"] = p.grad.new_zeros((*p.grad.shape[:-2], 1, p.grad.shape[-1]))
            else:
                state["variance"] = _like.zeros_like(p.grad)
        return state

    def _update(self, p: Tensor, group: dict) -> None:
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        lr = group["lr"]  # a tensor lr stays one: PyTorch rounds alpha to its dtype
        if isinstance(lr, Tensor) and lr.dim() != 0:
            lr = lr.squeeze()
        state = self._state(p)
        grad = -p.grad if group["maximize"] else p.grad
        eps1 = group["eps"][0]
        if eps1 is None:
            eps1 = finfo(p.dtype).eps
        state["step"].add_(1)
        step = state["step"].item()
        beta = step ** group["beta2_decay"]
        alpha = max(group["eps"][1], p.norm(2).item() / p.numel() ** 0.5) * min(lr, step**-0.5)
        if group["weight_decay"] != 0:
            p.mul_(1 - lr * group["weight_decay"])
        if grad.dim() > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square().div(grad.shape[-1]), beta)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square().div(grad.shape[-2]), beta)
            estimate = (row_var @ col_var).div(row_var.mean(dim=-2, keepdim=True).clamp(min=eps1))
        else:
            state["variance"].lerp_(grad * grad, beta)
            estimate = state["variance"].clone()
        update = estimate.clamp(min=eps1 * eps1).rsqrt().mul(grad)
        denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * group["d"]))
        p.add_(update, alpha=-alpha / denom)
