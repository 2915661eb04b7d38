"""Muon, as PyTorch computes it: momentum steps orthogonalised by a Newton-Schulz iteration,
for the 2-d parameters (weight matrices) of hidden layers."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from symgrad import dtypes
from symgrad.creation import tensor
from symgrad.optim.optimizer import Optimizer
from symgrad.tensor import Tensor

__all__ = ["Muon"]

# Keller Jordan's quintic coefficients (maximal slope at zero) and PyTorch's defaults
_COEFFICIENTS = (3.4445, -4.7750, 2.0315)


def _bfloat16(x: np.ndarray) -> np.ndarray:
    """``x`` rounded to bfloat16 (to nearest, ties to even), held in float32: PyTorch runs
    the Newton-Schulz iteration in bfloat16, and symgrad has no such dtype."""
    wide = np.asarray(x, dtype=np.float32)
    bits = wide.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(wide), wide, out)


def _orthogonalise(g: np.ndarray, coefficients: Any, steps: int, eps: float) -> np.ndarray:
    """The zeroth power ``U V^T`` of ``g = U S V^T``, approximately: ``steps`` quintic
    Newton-Schulz iterations on ``g / |g|_F``, each product rounded to bfloat16 as PyTorch's
    CPU kernels round it (a float32 sum of float32 products)."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if g.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(k) for k in coefficients)
    x = _bfloat16(g)
    tall = g.shape[0] > g.shape[1]
    if tall:
        x = x.T
    norm = _bfloat16(np.sqrt(np.sum(x * x, dtype=np.float32)))
    x = _bfloat16(x / np.maximum(norm, _bfloat16(np.float32(eps))))
    for _ in range(steps):
        gram = _bfloat16(x @ x.T)
        gram_update = _bfloat16(b * gram + c * (gram @ gram))
        x = _bfloat16(a * x + gram_update @ x)
    return x.T if tall else x


def _adjusted_lr(lr: Any, adjust_lr_fn: str | None, shape: tuple) -> Any:
    """The learning rate scaled so that updates of matrices of any shape have a like RMS."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * (0.2 * math.sqrt(max(rows, cols)))
    return lr * 1.0


class Muon(Optimizer):
    """Muon, step for step as ``torch.optim.Muon``: the momentum buffer ``b`` moves towards
    the gradient, ``b += (1 - momentum) * (g - b)``; the update ``u`` is ``b``, or with
    ``nesterov`` ``g + momentum * (b - g)``; it is orthogonalised by ``ns_steps`` Newton-Schulz
    iterations with ``ns_coefficients`` (in bfloat16, as PyTorch); then
    ``p *= 1 - lr * weight_decay`` and ``p -= lr' * u``, where ``lr'`` is ``lr`` times
    ``sqrt(max(1, rows / cols))`` (``adjust_lr_fn`` None or ``"original"``) or
    ``0.2 * sqrt(max(rows, cols))`` (``"match_rms_adamw"``). Every parameter must be 2-d;
    train biases and embeddings with another optimizer.

    Examples
    --------
    >>> import symgrad
    >>> w = symgrad.nn.Parameter(symgrad.tensor([[2.0, 0.0], [0.0, 1.0]]))
    >>> opt = symgrad.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w  # the update's singular values, 0.69 and 1.12, are pushed towards 1
    Parameter containing:
    tensor([[1.9309, 0.0000],
            [0.0000, 0.8883]], requires_grad=True)
    """

    def __init__(
        self,
        params: Any,
        lr: float | Tensor = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple = _COEFFICIENTS,
        eps: float = 1e-7,
        ns_steps: int = 5,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        for ok, message in (
            (0.0 <= lr, f"Learning rate should be >= 0 but is: {lr}"),
            (0.0 <= momentum, f"momentum should be >= 0 but is: {momentum}"),
            (0.0 <= weight_decay, f"weight decay should be >= 0 but is: {weight_decay}"),
            (
                adjust_lr_fn in (None, "original", "match_rms_adamw"),
                f"Adjust learning rate function {adjust_lr_fn} is not supported",
            ),
        ):
            if not ok:
                raise ValueError(message)
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )

    def _update(self, p: Tensor, group: dict) -> None:
        grad = p.grad
        state = self.state[p]
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = grad.new_zeros(grad.shape)
        buf = state["momentum_buffer"]
        momentum = group["momentum"]
        buf.lerp_(grad, 1 - momentum)
        update = grad.lerp(buf, momentum) if group["nesterov"] else buf
        ortho = _orthogonalise(
            update.detach().numpy(), group["ns_coefficients"], group["ns_steps"], group["eps"]
        )
        lr = group["lr"]
        if isinstance(lr, Tensor) and lr.dim() != 0:
            lr = lr.squeeze()
        # bfloat16 values are exact in float32 and float64, and PyTorch adds them to a
        # float16 parameter in float32
        wide = dtypes.float32 if p.dtype == dtypes.float16 else p.dtype
        p.mul_(1 - lr * group["weight_decay"])
        p.add_(tensor(ortho, dtype=wide), alpha=-_adjusted_lr(lr, group["adjust_lr_fn"], p.shape))
