"""PyTorch's ``GradScaler``: the loss multiplied by a scale before ``backward``, the gradients
divided by it before the optimizer's step, the step skipped when one of them is inf or nan,
and the scale lowered after such a step and raised after ``growth_interval`` clean ones.

symgrad computes on the CPU in the dtypes a program asks for, so scaling never changes its
results except by skipping steps with non-finite gradients; a program written for mixed
precision runs unchanged. ``GradScaler("cuda")``, the default device, is disabled with
PyTorch's warning (there is no CUDA): every method then does what it does disabled.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from symgrad.autograd import grad_mode
from symgrad.tensor import Tensor

__all__ = ["GradScaler"]

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"
_NO_SCALE = (
    "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the "
    "iteration."
)


class GradScaler:
    """Scale a loss and unscale its gradients, skipping optimizer steps whose gradients are
    not finite (``torch.amp.GradScaler``).

    Examples
    --------
    >>> import symgrad
    >>> model = symgrad.nn.Linear(2, 1)
    >>> opt = symgrad.optim.SGD(model.parameters(), lr=0.1)
    >>> scaler = symgrad.amp.GradScaler("cpu", init_scale=4.0)
    >>> loss = model(symgrad.ones(1, 2)).sum()
    >>> scaler.scale(loss).backward()
    >>> model.bias.grad  # still the scaled gradient
    tensor([4.])
    >>> scaler.step(opt)  # unscales, then steps (gradients are finite)
    >>> model.bias.grad
    tensor([1.])
    >>> scaler.update()
    >>> scaler.get_scale()
    4.0
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn(
                "symgrad.amp.GradScaler('cuda') is enabled, but CUDA is not available (symgrad "
                "computes on the CPU): disabling it. GradScaler('cpu') scales on the CPU.",
                UserWarning,
                stacklevel=2 if type(self) is GradScaler else 3,  # (the caller's line)
            )
            self._enabled = False
        if self._enabled:
            if not growth_factor > 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: np.ndarray | None = None  # made by the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = 0
        self._per_optimizer: dict = {}

    # -- scaling ---------------------------------------------------------------------------
    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or an iterable of them) times the scale; unchanged when
        disabled."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = np.asarray(self._init_scale, np.float32)
        factor = Tensor._make(self._scale.copy())
        return _apply(outputs, lambda t: t * factor)

    def unscale_(self, optimizer: Any) -> None:
        """Divide the gradients of ``optimizer``'s parameters by the scale, in place, and note
        whether any is inf or nan (at most once per optimizer between two ``update()``)."""
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = np.float32(1.0 / float(self._scale))  # (computed in float64, as PyTorch)
        found: list = []
        with grad_mode.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.grad.dtype.numpy == np.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    g = p.grad._data
                    found.append(not bool(np.isfinite(g).all()))
                    p.grad.mul_(float(inverse))
        state["found_inf"] = found
        state["stage"] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step(*args, **kwargs)`` on the unscaled gradients, unless one of them
        is inf or nan (then nothing, and None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale("step")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        if not state["found_inf"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None if any(state["found_inf"]) else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale: Any = None) -> None:
        """Lower the scale by ``backoff_factor`` after a step with non-finite gradients, raise
        it by ``growth_factor`` after ``growth_interval`` clean ones in a row; or set it to
        ``new_scale``."""
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            self._scale = np.asarray(_new_scale(new_scale), np.float32)
        else:
            found = [f for s in self._per_optimizer.values() for f in s.get("found_inf", [])]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale = np.asarray(self._scale * self._backoff_factor, np.float32)
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale = np.asarray(self._scale * self._growth_factor, np.float32)
                    self._growth_tracker = 0
        self._per_optimizer = {}

    # -- queries and state -------------------------------------------------------------------
    def get_scale(self) -> float:
        """The scale (``init_scale`` before the first ``scale()``), 1.0 when disabled."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale)

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        """The scale and its settings (empty when disabled)."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore what :meth:`state_dict` gave."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = np.asarray(state_dict["scale"], np.float32)
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = int(state_dict["_growth_tracker"])

    def _state(self, optimizer: Any) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": []})

    def _check_scale(self, name: str) -> None:
        if self._scale is None:
            raise AssertionError(f"Attempted {name} but _scale is None.  {_NO_SCALE}")


def _apply(value: Any, scale: Any) -> Any:
    if isinstance(value, Tensor):
        return scale(value)
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        scaled = (_apply(v, scale) for v in value)
        return type(value)(scaled) if isinstance(value, (list, tuple)) else scaled
    raise ValueError("outputs must be a Tensor or an iterable of Tensors")


def _new_scale(value: Any) -> float:
    if isinstance(value, Tensor):
        if value.numel() != 1 or value.requires_grad or value.dtype.numpy != np.float32:
            raise AssertionError(
                "new_scale should be a float or a 1-element float32 tensor with "
                "requires_grad=False."
            )
        return float(value.item())
    return float(value)
