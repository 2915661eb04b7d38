"""Argument checks shared by the loss functions of :mod:`symgrad.nn.functional`."""

from __future__ import annotations

import warnings
from typing import Any

from symgrad import dtypes
from symgrad._arguments import require_floating
from symgrad.autograd import grad_mode
from symgrad.tensor import Tensor

_REDUCTIONS = ("mean", "sum", "none")


def _reduction(reduction: str, size_average: Any = None, reduce: Any = None) -> str:
    if size_average is not None or reduce is not None:
        # PyTorch's deprecated pair: reduce=False means 'none', size_average=False means 'sum'
        legacy = "none" if reduce is False else "sum" if size_average is False else "mean"
        warnings.warn(
            "size_average and reduce args will be deprecated, please use "
            f"reduction='{legacy}' instead.",
            stacklevel=3,
        )
        return legacy
    if reduction == "elementwise_mean":  # PyTorch's old name, still taken
        warnings.warn(
            "reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
            stacklevel=3,
        )
        return "mean"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _check_tensors(op: str, **arguments: Any) -> None:
    for name, v in arguments.items():
        if not isinstance(v, Tensor):
            raise TypeError(
                f"{op}(): argument '{name}' must be a Tensor, not {type(v).__name__}; "
                "wrap the values in symgrad.tensor(...)"
            )


def _promoted(input: Any, target: Any, op: str, kernel: str) -> tuple[Tensor, Tensor]:
    """``input`` and ``target`` in their promoted dtype, as PyTorch's element-wise loss kernels
    take them; an integer or bool result is PyTorch's NotImplementedError."""
    if type(input) is not Tensor or type(target) is not Tensor:
        _check_tensors(op, input=input, target=target)
    if input.dtype is not target.dtype:
        d = dtypes.promote_types(input.dtype, target.dtype)
        input, target = input.to(d), target.to(d)
    require_floating(input, kernel)
    return input, target


def _no_grad_for(op: str, name: str, value: Any) -> None:
    """PyTorch's error for an argument its loss has no derivative for (a weight) that
    requires grad."""
    if isinstance(value, Tensor) and value.requires_grad and grad_mode.is_grad_enabled():
        raise RuntimeError(
            f"The function '{op}' is not differentiable with respect to argument '{name}'. "
            "This input cannot have requires_grad True."
        )


def check_rnn_input(input: Tensor, weight: Tensor, input_size: int) -> None:
    """PyTorch's errors for an RNN's input of another dtype than its weights (ValueError) or
    of another feature size (RuntimeError)."""
    if input.dtype is not weight.dtype:
        raise ValueError(
            f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
            f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})"
        )
    if input.shape[-1] != input_size:
        raise RuntimeError(
            f"input.size(-1) must be equal to input_size. Expected {input_size}, "
            f"got {input.shape[-1]}"
        )


def check_rnn_state_ranks(states: tuple, unbatched: bool, lstm: bool) -> None:
    """PyTorch's error for an initial state of another rank than the input's: 2-D for an
    unbatched input, 3-D for a batch."""
    rank = 2 if unbatched else 3
    kind = "unbatched 2-D" if unbatched else "batched 3-D"
    # read as PyTorch reads them (hx[0].dim(), hx[1].dim(); hx.dim()), so a state of the wrong
    # kind, such as one tensor given to an LSTM, fails with PyTorch's IndexError/AttributeError
    if lstm:
        if states[0].dim() != rank or states[1].dim() != rank:
            raise RuntimeError(
                f"For {kind} input, hx and cx should also be {rank}-D but got "
                f"({states[0].dim()}-D, {states[1].dim()}-D) tensors"
            )
    elif states[0].dim() != rank:
        raise RuntimeError(
            f"For {kind} input, hx should also be {rank}-D but got {states[0].dim()}-D tensor"
        )
